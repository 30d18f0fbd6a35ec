/**
 * The echo tool of bench/echo-tool.ts (input `{ text, count, upper }`, one text block) on the two further
 * servers the side-by-side benchmarks measure: the official SDK 2.x `McpServer` (`@modelcontextprotocol/server`)
 * and tmcp's `McpServer` (`tmcp`, with `@tmcp/adapter-zod`). Both get the same zod 4 object schema the SDK 1.x
 * contender gets. Also the in-process link to a tmcp server, which ships no in-memory transport.
 */
import { McpServer as Sdk2McpServer } from '@modelcontextprotocol/server';
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod';
import { McpServer as TmcpServer } from 'tmcp';
import { z } from 'zod';
import type { Transport } from '../core/transport.ts';
import { echo, serverInfo } from './echo-tool.ts';
import { echoZodShape } from './echo-zod.ts';

/** One zod 4 schema object per process, shared by every server instance made here (as a real server module would). */
let sharedSchema: ReturnType<typeof makeSchema> | undefined;
const makeSchema = () => z.object(echoZodShape());
const schema = (): ReturnType<typeof makeSchema> => (sharedSchema ??= makeSchema());

/** An SDK 2.x `McpServer` with the echo tool (legacy and modern era alike: the transport decides). */
export function newSdk2Server(): Sdk2McpServer {
  const server = new Sdk2McpServer(serverInfo, { capabilities: { tools: {} } });
  server.registerTool('echo', { inputSchema: schema() }, echo);
  return server;
}

/** A tmcp `McpServer` with the echo tool; tmcp keeps no per-connection state in it, its transports do. */
export function newTmcpServer(): TmcpServer {
  const server = new TmcpServer({ ...serverInfo, description: 'bench' }, { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } });
  server.tool({ name: 'echo', description: 'echo', schema: schema() }, echo);
  return server;
}

type Json = Record<string, unknown>;
type SessionInfo = { clientCapabilities?: Json | undefined; clientInfo?: { name: string; version: string } | undefined };

/**
 * Serves a tmcp server on the far end of an rxmcp transport (the server end of `createMemoryPair()`): each
 * inbound message goes to `server.receive(message, { sessionInfo })`, as tmcp's own stdio transport calls it,
 * and the answer (if any) goes back as one frame. The session info is taken from the `initialize` request, as
 * tmcp's transports do. Unlike tmcp's stdio transport, messages are not queued one after another: each is
 * handed to `receive` as it arrives. Returns a function that stops it.
 */
export function serveTmcpOn(server: TmcpServer, end: Transport): () => void {
  const sessionInfo: SessionInfo = {};
  const answer = (response: unknown): void => {
    if (response !== null && response !== undefined) void end.send({ payload: response as never });
  };
  const subscription = end.incoming$.subscribe((frame) => {
    if (frame.type !== 'message') return;
    const message = frame.payload as { method?: string; params?: Json };
    if (message.method === 'initialize') {
      sessionInfo.clientCapabilities = message.params?.['capabilities'] as Json;
      sessionInfo.clientInfo = message.params?.['clientInfo'] as SessionInfo['clientInfo'];
    }
    const received = server.receive(message as never, { sessionInfo: sessionInfo as never }) as unknown;
    if (received instanceof Promise) received.then(answer, (error: unknown) => console.error(`[tmcp link] ${String(error)}`));
    else answer(received);
  });
  return () => subscription.unsubscribe();
}
