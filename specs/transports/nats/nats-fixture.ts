/**
 * One real nats-server per spec file, and helpers to serve an rxmcp server on it and connect rxmcp clients,
 * every NATS connection closed when the fixture is disposed.
 */
import { type ConnectionOptions, type Msg, type NatsConnection, connect } from '@nats-io/transport-node';
import { z } from 'zod';
import { type ClientOptions, createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import type { InboundFrame } from '../../../core/transport.ts';
import { type McpServer, type ServerOptions, createServer } from '../../../server/create-server.ts';
import { type NatsClientTransport, type NatsClientTransportOptions, type NatsServeOptions, type NatsServing, createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerOptions, type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';

export interface NatsFixture extends AsyncDisposable {
  readonly nats: NatsServerProcess;
  /** A new NATS connection, closed with the fixture. */
  connection(options?: Partial<ConnectionOptions>): Promise<NatsConnection>;
  /** A server with the fixture's demo tools (unless `bare`), served over NATS. */
  serve(options?: { readonly server?: Partial<ServerOptions>; readonly nats?: Partial<NatsServeOptions>; readonly bare?: boolean }): Promise<{ readonly server: McpServer; readonly serving: NatsServing }>;
  /** A client over NATS. */
  client(options?: { readonly client?: Partial<ClientOptions>; readonly transport?: Partial<NatsClientTransportOptions> }): Promise<{ readonly session: ClientSession; readonly transport: NatsClientTransport }>;
}

export const SERVER_NAME = 'spec';

/** Tools every served fixture has: `echo` (text back), `slow` (waits `ms` or until cancelled), `big` (`bytes` of text). */
export function demoTools(server: McpServer, seen: { aborted: number } = { aborted: 0 }): void {
  server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.tool({ name: 'slow', inputSchema: z.object({ ms: z.number() }) }, ({ ms }, ctx) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: `waited ${ms}` }] }), ms);
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      seen.aborted++;
      reject(new Error('aborted'));
    }, { once: true });
  }));
  server.tool({ name: 'big', inputSchema: z.object({ bytes: z.number() }) }, ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }));
}

export async function natsFixture(options: NatsServerOptions = {}): Promise<NatsFixture> {
  const nats = await startNatsServer(options);
  const connections: NatsConnection[] = [];
  const servings: NatsServing[] = [];
  const servers: McpServer[] = [];
  const sessions: ClientSession[] = [];
  const connection = async (extra: Partial<ConnectionOptions> = {}): Promise<NatsConnection> => {
    const made = await connect({ servers: nats.url, ...extra });
    connections.push(made);
    return made;
  };
  const dispose = async (): Promise<void> => {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(servings.map((serving) => serving.close('end', { drainMs: 0 })));
    await Promise.allSettled(servers.map((server) => server.close()));
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  };
  return {
    nats,
    connection,
    async serve(serveOptions = {}) {
      const server = createServer({ name: 'nats-spec-server', version: '0.0.0', ...serveOptions.server });
      if (serveOptions.bare !== true) demoTools(server);
      servers.push(server);
      const serving = await serveNats(server, { connection: await connection(), name: SERVER_NAME, ...serveOptions.nats });
      servings.push(serving);
      return { server, serving };
    },
    async client(clientOptions = {}) {
      const transport = createNatsClientTransport({ connection: await connection(), name: SERVER_NAME, ...clientOptions.transport });
      const session = await createClient({ name: 'nats-spec-client', version: '0.0.0', era: 'legacy', ...clientOptions.client }).connect(transport);
      sessions.push(session);
      return { session, transport };
    },
    [Symbol.asyncDispose]: dispose,
  };
}

/**
 * A stand-in for a server process that a spec answers by hand: every request (a message with a reply subject)
 * published on `subject`, in the order it came; by default the call subjects of the fixture's server name.
 */
export async function handAnswered(connection: NatsConnection, subject = `mcp.${SERVER_NAME}.call.>`): Promise<Msg[]> {
  const seen: Msg[] = [];
  connection.subscribe(subject, { callback: (error, msg) => void (error === null && msg.reply !== undefined && msg.reply !== '' && seen.push(msg)) });
  await connection.flush();
  return seen;
}

/** Every frame a transport delivers, and the JSON-RPC messages among them. */
export function watchFrames(transport: NatsClientTransport): { readonly frames: InboundFrame[]; messages(): Array<Record<string, unknown>> } {
  const frames: InboundFrame[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));
  return { frames, messages: () => frames.flatMap((frame) => (frame.type === 'message' ? [frame.payload as Record<string, unknown>] : [])) };
}
