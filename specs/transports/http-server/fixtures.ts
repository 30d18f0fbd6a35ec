/**
 * Shared setup of the HTTP server specs: an rxmcp server with tools that stream progress, log, elicit and wait
 * for the test (gates, so no spec depends on timing), served by `createStreamableHttpServer` on 127.0.0.1 port 0.
 */
import { AssertionError } from 'node:assert';
import { from, tap } from 'rxjs';
import type { InboundFrame, SessionAcceptorPort } from '../../../core/transport.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type StreamableHttpServer, type StreamableHttpServerOptions, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { deferred } from '../../support/harness.ts';
import type { SseReply } from '../../support/http-raw-client.ts';

export interface Gates {
  /** Lets the `wait` tool called with this key finish. */
  open(key: string): void;
  /** Resolves once a `wait` tool with this key started. */
  started(key: string): Promise<void>;
}

export interface Served extends AsyncDisposable {
  readonly url: string;
  readonly http: StreamableHttpServer;
  readonly server: McpServer;
  readonly gates: Gates;
}

function createGates(): Gates & { wait(key: string): Promise<void> } {
  const opened = new Map<string, ReturnType<typeof deferred<void>>>();
  const begun = new Map<string, ReturnType<typeof deferred<void>>>();
  const of = (map: Map<string, ReturnType<typeof deferred<void>>>, key: string): ReturnType<typeof deferred<void>> => {
    let found = map.get(key);
    if (found === undefined) map.set(key, (found = deferred()));
    return found;
  };
  return {
    open: (key) => of(opened, key).resolve(),
    started: (key) => of(begun, key).promise,
    wait: (key) => {
      of(begun, key).resolve();
      return of(opened, key).promise;
    },
  };
}

const keyOf = (args: Record<string, unknown>): string => (typeof args['key'] === 'string' ? args['key'] : 'default');

/** The demo server every spec drives. */
export function demoServer(gates = createGates()): { server: McpServer; gates: Gates } {
  const server = createServer({ name: 'http-spec', version: '1.0.0' });
  server.tool({ name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => `echo: ${String(args['text'])}`);
  server.tool({ name: 'progress', description: 'Streams three progress steps' }, () =>
    from([{ progress: 1, total: 3 }, { progress: 2, total: 3 }, { progress: 3, total: 3 }, 'counted']),
  );
  server.tool({ name: 'log', description: 'Logs three messages' }, (_args, ctx) => {
    for (const step of ['started', 'working', 'finished']) ctx.log('info', { step });
    return 'logged';
  });
  server.tool({ name: 'ask', description: 'Elicits a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `answered ${answer.action} ${JSON.stringify(answer.content ?? {})}`;
  });
  server.tool({ name: 'wait', description: 'Logs, then waits until the test opens its gate', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }, async (args: Record<string, unknown>, ctx) => {
    ctx.log('info', { waiting: keyOf(args) });
    await (gates as ReturnType<typeof createGates>).wait(keyOf(args));
    ctx.log('info', { released: keyOf(args) });
    return `done ${keyOf(args)}`;
  });
  server.tool(
    { name: 'flood', description: 'Logs `count` messages of `size` characters at once', inputSchema: { type: 'object', properties: { count: { type: 'integer' }, size: { type: 'integer' } } } },
    (args: Record<string, unknown>, ctx) => {
      const chunk = 'x'.repeat(Number(args['size']));
      for (let index = 0; index < Number(args['count']); index++) ctx.log('info', { index, chunk });
      return 'flooded';
    },
  );
  server.resource({ uri: 'memo://a', name: 'a', mimeType: 'text/plain' }, () => 'a');
  return { server, gates };
}

/** Serves the demo server (or `server`) over HTTP; dispose to close everything. */
export async function serve(options: Partial<StreamableHttpServerOptions> = {}, demo = demoServer()): Promise<Served> {
  const http = createStreamableHttpServer({ server: demo.server, ...options });
  const listening = await http.listen();
  return {
    url: listening.url,
    http,
    server: demo.server,
    gates: demo.gates,
    async [Symbol.asyncDispose]() {
      await http.close();
      await demo.server.close();
    },
  };
}

/** A SessionAcceptorPort in front of `server` that records what crosses each session's transport. */
export function observingAcceptor(server: McpServer): { acceptor: SessionAcceptorPort; inbound: InboundFrame[]; sends: Array<'taken' | 'wait'> } {
  const inbound: InboundFrame[] = [];
  const sends: Array<'taken' | 'wait'> = [];
  const acceptor: SessionAcceptorPort = {
    accept: (transport, options) =>
      server.accept(
        {
          kind: transport.kind,
          incoming$: transport.incoming$.pipe(tap((frame) => inbound.push(frame))),
          send: (frame) => {
            const result = transport.send(frame);
            sends.push(result === undefined ? 'taken' : 'wait');
            return result;
          },
          close: (reason) => transport.close(reason),
          negotiated: (revision) => transport.negotiated?.(revision),
        },
        options,
      ),
  };
  return { acceptor, inbound, sends };
}

/** The parsed `message` events of a stream that satisfy `match`. */
export function messagesOf(stream: SseReply, match: (message: Record<string, unknown>) => boolean = () => true): Record<string, unknown>[] {
  const isObject = (message: unknown): message is Record<string, unknown> => typeof message === 'object' && message !== null && !Array.isArray(message);
  return stream.messages().filter(isObject).filter(match);
}

/** The next message event of a stream whose parsed data satisfies `match`. */
export async function nextMessage(stream: SseReply, match: (message: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>> {
  const event = await stream.next((candidate) => {
    if (candidate.event !== 'message' || candidate.data.length === 0) return false;
    const parsed = JSON.parse(candidate.data) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && match(parsed as Record<string, unknown>);
  }, ms);
  return JSON.parse(event.data) as Record<string, unknown>;
}

/** The text of a tools/call result. */
export function resultText(response: Record<string, unknown>): string {
  const result = response['result'] as { content?: Array<{ type: string; text?: string }> } | undefined;
  if (result?.content === undefined) throw new AssertionError({ message: `not a tool result: ${JSON.stringify(response)}` });
  return result.content.map((block) => block.text ?? '').join('');
}

export const isMethod = (method: string) => (message: Record<string, unknown>): boolean => message['method'] === method;
export const answers = (id: unknown) => (message: Record<string, unknown>): boolean => message['id'] === id && !('method' in message);
