/**
 * `rxmcp serve --verbose`: one line per request, written when its answer leaves (method, the tool, prompt or
 * resource it names, duration, outcome). It watches the frames of every transport the server accepts, so the
 * server and its handlers need no hook of their own.
 */
import { tap } from 'rxjs';
import type { JsonObject, JsonRpcMessage } from '../core/jsonrpc.ts';
import type { OutboundFrame, Transport } from '../core/transport.ts';
import type { McpServer } from '../server/create-server.ts';

/** Requests awaiting their answer per transport; past this the oldest is forgotten (never logged). */
const MAX_WATCHED = 1024;

interface Watched {
  readonly line: string;
  readonly startedAt: number;
}

/** The same server, but every transport it accepts is watched and each answered request logged. */
export function withRequestLog(server: McpServer, log: (line: string) => void, now: () => number = () => performance.now()): McpServer {
  const logged: McpServer = Object.create(server, {
    accept: { value: (transport: Transport, runtime?: Parameters<McpServer['accept']>[1]) => server.accept(watchedTransport(transport, log, now), runtime) },
  }) as McpServer;
  return logged;
}

function watchedTransport(transport: Transport, log: (line: string) => void, now: () => number): Transport {
  const watched = new Map<string, Watched>();
  const inbound = (message: JsonRpcMessage): void => {
    const record = message as { id?: unknown; method?: unknown; params?: JsonObject };
    if (typeof record.method !== 'string') return;
    if (record.id !== undefined && record.id !== null) {
      if (watched.size >= MAX_WATCHED) watched.delete(watched.keys().next().value as string);
      watched.set(keyOf(record.id), { line: describe(record.method, record.params), startedAt: now() });
    } else if (record.method === 'notifications/cancelled') {
      const id = record.params?.['requestId'];
      const request = id === undefined ? undefined : watched.get(keyOf(id));
      if (request === undefined || id === undefined) return;
      watched.delete(keyOf(id));
      log(`${request.line}: cancelled by the client after ${elapsed(request, now)}`);
    }
  };
  const outbound = (message: JsonRpcMessage): void => {
    const record = message as { id?: unknown; method?: unknown; result?: JsonObject; error?: { code?: unknown; message?: unknown } };
    if (record.method !== undefined || record.id === undefined) return;
    const request = watched.get(keyOf(record.id));
    if (request === undefined) return;
    watched.delete(keyOf(record.id));
    log(`${request.line}: ${outcomeOf(record)} in ${elapsed(request, now)}`);
  };
  const incoming$ = transport.incoming$.pipe(
    tap((frame) => {
      if (frame.type === 'message') each(frame.payload, inbound);
    }),
  );
  const send = (frame: OutboundFrame): void | Promise<void> => {
    each(frame.payload, outbound);
    return transport.send(frame);
  };
  // A proxy, not a copy: a transport may carry more than the port (the HTTP exchanges, a child's pid).
  return new Proxy(transport, {
    get(target, property) {
      if (property === 'incoming$') return incoming$;
      if (property === 'send') return send;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function each(payload: unknown, visit: (message: JsonRpcMessage) => void): void {
  if (Array.isArray(payload)) for (const message of payload) visit(message as JsonRpcMessage);
  else if (typeof payload === 'object' && payload !== null) visit(payload as JsonRpcMessage);
}

function keyOf(id: unknown): string {
  return typeof id === 'string' ? `s:${id}` : `n:${String(id)}`;
}

/** The method and what it names: `tools/call "count"`, `resources/read demo://clock`. */
function describe(method: string, params: JsonObject | undefined): string {
  const name = params?.['name'];
  const uri = params?.['uri'];
  if ((method === 'tools/call' || method === 'prompts/get') && typeof name === 'string') return `${method} ${JSON.stringify(name)}`;
  if (typeof uri === 'string') return `${method} ${uri}`;
  return method;
}

function outcomeOf(response: { result?: JsonObject; error?: { code?: unknown; message?: unknown } }): string {
  if (response.error !== undefined) return `error ${String(response.error.code)} (${String(response.error.message)})`;
  if (response.result?.['isError'] === true) return 'tool error (isError)';
  if (response.result?.['resultType'] === 'input_required') return 'input required';
  return 'ok';
}

function elapsed(request: Watched, now: () => number): string {
  return `${Math.round(now() - request.startedAt)} ms`;
}
