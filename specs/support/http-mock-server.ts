/**
 * A programmable MCP server on node:http (127.0.0.1, port 0) for the HTTP client specs. It speaks enough MCP
 * for a `createClient` session (initialize, tools/list, tools/call, ping) and can misbehave on demand:
 *
 * - answer requests in JSON or SSE; issue session ids or not; expire them (404 afterwards);
 * - answer the standalone GET with a stream or a refusal status; answer a notification with `200 {result:{}}`;
 * - from a tool: send server requests on the POST stream (`ctx.request`), or drop the stream after a priming
 *   event with `retry:` (`ctx.disconnect`), the rest of the answer going out on the GET that resumes it;
 * - speak the 2024-11-05 HTTP+SSE transport instead (`legacy: true`);
 * - take over any request with `intercept` (500s, odd bodies).
 *
 * Every message the client POSTs is checked with the schema oracle's `validateMessage` (`violations`).
 */
import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { validateMessage } from './schema-oracle.ts';

export type Json = Readonly<Record<string, unknown>>;

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body of a POST. */
  readonly body: unknown;
  /** performance.now() when the request arrived. */
  readonly at: number;
}

export interface SseWriter {
  /** One event; objects are sent as JSON. Returns its id. */
  send(data: unknown, options?: { readonly event?: string; readonly id?: string }): string;
  /** A priming event: an id, a `retry:`, empty data. Returns its id. */
  priming(retryMs?: number): string;
  end(): void;
}

export interface ToolContext {
  readonly sse: SseWriter | undefined;
  /** Sends a request to the client on this request's stream; resolves with the client's answer. */
  request(method: string, params: Json): Promise<Json>;
  /** Sends a priming event (with `retry:` when given) and closes the POST stream; the rest follows on the resuming GET. */
  disconnect(retryMs?: number): void;
}

export type ToolHandler = (args: Json, ctx: ToolContext) => Json | Promise<Json>;

export interface MockServerOptions {
  readonly answer?: 'json' | 'sse';
  readonly sessions?: boolean;
  /** The version the server answers (default: the one the client asks for). */
  readonly protocolVersion?: string;
  /** 'open': a GET gets an SSE stream; a number: that refusal status (default 405). */
  readonly getStream?: 'open' | number;
  /** Answer notifications with `200 {"jsonrpc":"2.0","result":{}}` (as the conformance mocks do). */
  readonly notificationBody?: boolean;
  readonly legacy?: boolean;
  readonly tools?: Readonly<Record<string, ToolHandler>>;
  /** Return true when the request was answered here. */
  readonly intercept?: (request: ReceivedRequest, response: ServerResponse, mock: MockServer) => boolean;
}

export interface MockServer {
  readonly url: string;
  readonly received: ReceivedRequest[];
  readonly violations: string[];
  /** Named instants (performance.now()), e.g. 'stream-dropped'. */
  readonly marks: Map<string, number>;
  readonly sessionIds: Set<string>;
  /** Forgets every session: their ids get 404 from now on. */
  expireSessions(): void;
  posts(method?: string): ReceivedRequest[];
  /** Live server connections (sockets). */
  connections(): number;
  close(): Promise<void>;
}

interface Owed {
  readonly messages: Json[];
  flush: (() => void) | undefined;
}

/** Servers not closed yet: a failed test leaves its server open, and `closeAllMockServers` (an `after` hook) ends it. */
const live = new Set<MockServer>();

export async function closeAllMockServers(): Promise<void> {
  await Promise.all([...live].map((mock) => mock.close()));
}

const sseHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const received: ReceivedRequest[] = [];
  const violations: string[] = [];
  const marks = new Map<string, number>();
  const sessionIds = new Set<string>();
  const pendingServerRequests = new Map<string | number, { method: string; params: Json; resolve: (answer: Json) => void }>();
  const resumable = new Map<string, Owed>(); // priming event id -> messages owed to whoever resumes it
  let revision: string | undefined;
  let nextEventId = 0;
  let nextSession = 0;
  let nextServerRequest = 0;
  let legacyStream: SseWriter | undefined;
  const sockets = new Set<Socket>();

  const writer = (response: ServerResponse): SseWriter => ({
    send(data, eventOptions = {}) {
      const id = eventOptions.id ?? `e${++nextEventId}`;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      response.write(`${eventOptions.event === undefined ? '' : `event: ${eventOptions.event}\n`}id: ${id}\ndata: ${text}\n\n`);
      return id;
    },
    priming(retryMs) {
      const id = `e${++nextEventId}`;
      response.write(`id: ${id}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}data:\n\n`);
      return id;
    },
    end: () => response.end(),
  });

  const validate = (body: unknown): void => {
    const hint = typeof body === 'object' && body !== null && 'method' in body && body.method === 'initialize' ? paramsOf(body)['protocolVersion'] : undefined;
    const errors = validateMessage(revision ?? (typeof hint === 'string' ? hint : '2025-11-25'), body, {
      role: 'client',
      requestFor: (id) => pendingServerRequests.get(id) ?? (answered.get(id) as { method: string } | undefined),
    });
    if (errors.length > 0) violations.push(`${JSON.stringify(body)}: ${errors.join('; ')}`);
  };
  const answered = new Map<string | number, { method: string; params: Json }>();

  /** Handles one client message; `reply` carries what the server sends for it (undefined: nothing). */
  const handle = async (message: Json, sse: SseWriter | undefined, reply: (answer: Json) => void, onDisconnect: (retryMs?: number) => void): Promise<boolean> => {
    const id = message['id'];
    const method = message['method'];
    if (typeof method !== 'string') {
      if (typeof id !== 'string' && typeof id !== 'number') return false;
      const pending = pendingServerRequests.get(id);
      if (pending !== undefined) {
        pendingServerRequests.delete(id);
        answered.set(id, pending);
        pending.resolve(message);
      }
      return false;
    }
    if (id === undefined) return false;
    const result = (value: Json): void => reply({ jsonrpc: '2.0', id, result: value });
    if (method === 'initialize') {
      revision = options.protocolVersion ?? String(paramsOf(message)['protocolVersion']);
      result({ protocolVersion: revision, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'http-mock', version: '1.0.0' } });
    } else if (method === 'ping') {
      result({});
    } else if (method === 'tools/list') {
      result({ tools: Object.keys(options.tools ?? {}).map((name) => ({ name, inputSchema: { type: 'object' } })) });
    } else if (method === 'tools/call') {
      const params = paramsOf(message);
      const tool = options.tools?.[String(params['name'])];
      if (tool === undefined) {
        reply({ jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool ${String(params['name'])}` } });
        return true;
      }
      const ctx: ToolContext = {
        sse,
        request: (serverMethod, serverParams) =>
          new Promise((resolve) => {
            const requestId = `s${++nextServerRequest}`;
            pendingServerRequests.set(requestId, { method: serverMethod, params: serverParams, resolve });
            reply({ jsonrpc: '2.0', id: requestId, method: serverMethod, params: serverParams });
          }),
        disconnect: onDisconnect,
      };
      result(await tool((params['arguments'] ?? {}) as Json, ctx));
    } else {
      reply({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
    }
    return true;
  };

  const onPost = async (request: ReceivedRequest, response: ServerResponse): Promise<void> => {
    const message = request.body as Json;
    const initializing = message['method'] === 'initialize';
    const sessionId = request.headers['mcp-session-id'];
    if (options.sessions !== false && !initializing) {
      if (typeof sessionId !== 'string') return void response.writeHead(400).end('Bad Request: no session id');
      if (!sessionIds.has(sessionId)) return void response.writeHead(404).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } }));
    }
    const headers: Record<string, string> = {};
    if (initializing && options.sessions !== false) {
      const id = `session-${++nextSession}`;
      sessionIds.add(id);
      headers['mcp-session-id'] = id;
    }
    if (typeof message['method'] !== 'string' || message['id'] === undefined) {
      await handle(message, undefined, () => undefined, () => undefined);
      if (options.notificationBody === true) return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","result":{}}');
      return void response.writeHead(202).end();
    }
    if (options.answer !== 'sse') {
      await handle(message, undefined, (answer) => response.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(answer)), () => undefined);
      return;
    }
    response.writeHead(200, { ...headers, ...sseHeaders });
    const sse = writer(response);
    let owedTo: Owed | undefined;
    const reply = (answer: Json): void => {
      if (owedTo === undefined) return void sse.send(answer);
      owedTo.messages.push(answer);
      owedTo.flush?.();
    };
    const disconnect = (retryMs?: number): void => {
      owedTo = { messages: [], flush: undefined };
      resumable.set(sse.priming(retryMs), owedTo);
      response.end();
      marks.set('stream-dropped', performance.now());
    };
    await handle(message, sse, reply, disconnect);
    if (owedTo === undefined) response.end();
  };

  const onGet = (request: ReceivedRequest, response: ServerResponse): void => {
    if (options.legacy === true) {
      response.writeHead(200, sseHeaders);
      legacyStream = writer(response);
      legacyStream.send('/messages?session=legacy-1', { event: 'endpoint' });
      return;
    }
    const lastEventId = request.headers['last-event-id'];
    const owed = typeof lastEventId === 'string' ? resumable.get(lastEventId) : undefined;
    if (owed === undefined && options.getStream !== 'open') return void response.writeHead(options.getStream ?? 405).end();
    response.writeHead(200, sseHeaders).flushHeaders();
    const sse = writer(response);
    if (owed === undefined) return;
    marks.set('resumed', performance.now());
    // The tool may still be running: what is owed goes out as it comes; the stream ends with the response.
    owed.flush = () => {
      for (let message = owed.messages.shift(); message !== undefined; message = owed.messages.shift()) {
        sse.send(message);
        if (!('method' in message)) response.end();
      }
    };
    owed.flush();
  };

  const server: Server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      const url = new URL(incoming.url ?? '/', 'http://localhost');
      const request: ReceivedRequest = { method: incoming.method ?? '', path: url.pathname + url.search, headers: incoming.headers, body, at: performance.now() };
      received.push(request);
      if (incoming.method === 'POST' && body !== undefined) validate(body);
      if (options.intercept?.(request, response, mock) === true) return;
      if (incoming.method === 'DELETE') return void response.writeHead(options.sessions === false ? 405 : 200).end();
      if (incoming.method === 'GET') return onGet(request, response);
      if (options.legacy === true) {
        if (url.pathname !== '/messages') return void response.writeHead(405).end('Method Not Allowed');
        response.writeHead(202).end('Accepted');
        void handle(body as Json, undefined, (answer) => legacyStream?.send(answer, { event: 'message' }), () => undefined);
        return;
      }
      void onPost(request, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const mock: MockServer = {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    violations,
    marks,
    sessionIds,
    expireSessions: () => sessionIds.clear(),
    posts: (method) => received.filter((request) => request.method === 'POST' && (method === undefined || (request.body as Json | undefined)?.['method'] === method)),
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        live.delete(mock);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  live.add(mock);
  return mock;
}

function paramsOf(message: unknown): Json {
  const params = typeof message === 'object' && message !== null && 'params' in message ? message.params : undefined;
  return typeof params === 'object' && params !== null ? (params as Json) : {};
}
