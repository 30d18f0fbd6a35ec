/**
 * Helpers of the modern-era (2026-07-28) HTTP client specs: modern request bodies, a loopback node:http server
 * that records every request (headers, body, and whether the client left before the answer was complete), and
 * an HTTP client transport whose inbound frames are collected.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonObject, RequestId, WirePayload } from '../../../../core/jsonrpc.ts';
import type { InboundFrame, OutboundFrame } from '../../../../core/transport.ts';
import {
  type HttpClientEvent,
  type StreamableHttpClientOptions,
  type StreamableHttpClientTransport,
  createStreamableHttpClientTransport,
} from '../../../../transports/http/client/index.ts';

export const MODERN = '2026-07-28';
export const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The `_meta` every modern request carries. */
export function envelope(version: string = MODERN, extra: JsonObject = {}): JsonObject {
  return {
    [VERSION_KEY]: version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'modern-http-client-spec', version: '0.0.0' },
    ...extra,
  };
}

/** A modern request: `params` with the envelope merged into its `_meta`. */
export function modernRequest(id: RequestId, method: string, params: JsonObject = {}, meta: JsonObject = {}): WirePayload {
  const own = (params['_meta'] ?? {}) as JsonObject;
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...envelope(), ...meta, ...own } } };
}

export function cancelled(requestId: RequestId): WirePayload {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'spec' } };
}

export interface Recorded {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
  /** Set when the connection closed before the answer was complete: the client left. */
  clientLeft: boolean;
  /** Set once the exchange is over (answered, or left). */
  over: boolean;
}

export type Handle = (request: Recorded, res: ServerResponse, req: IncomingMessage) => void;

export interface RecordingServer {
  readonly url: string;
  readonly requests: Recorded[];
  /** Requests of one JSON-RPC method (POSTs) or one HTTP method ("GET", "DELETE"). */
  of(method: string): Recorded[];
  close(): Promise<void>;
}

/** A loopback server that records every request and lets `handle` answer it (or forwards to `handle`). */
export async function startRecordingServer(handle: Handle): Promise<RecordingServer> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        body = text;
      }
      const method = req.method === 'POST' && typeof body === 'object' && body !== null && 'method' in body ? String(body.method) : (req.method ?? '');
      const recorded: Recorded = { method, headers: req.headers, body, clientLeft: false, over: false };
      requests.push(recorded);
      res.once('close', () => {
        recorded.clientLeft = !res.writableFinished;
        recorded.over = true;
      });
      handle(recorded, res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    of: (method) => requests.filter((request) => request.method === method),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers one JSON value. */
export function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** Opens an SSE answer and returns a writer of `data:` events. */
export function sse(res: ServerResponse): (value: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  return (value) => res.write(`data: ${JSON.stringify(value)}\n\n`);
}

export function idOf(request: Recorded): RequestId {
  return (request.body as { id: RequestId }).id;
}

export interface Driven {
  readonly transport: StreamableHttpClientTransport;
  readonly frames: InboundFrame[];
  readonly events: HttpClientEvent[];
  /** Whether `incoming$` completed. */
  completed(): boolean;
  send(frame: OutboundFrame): void;
  /** The inbound messages (payloads). */
  messages(): unknown[];
  /** The response delivered for `id`, if any. */
  responseTo(id: RequestId): { readonly result?: JsonObject; readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown } } | undefined;
  /** The undeliverable frame reported for request `id`, if any. */
  failureOf(id: RequestId): Extract<InboundFrame, { type: 'undeliverable' }> | undefined;
}

/** A transport driven directly: its frames are collected as they come. */
export function drive(url: string, options: StreamableHttpClientOptions = {}): Driven {
  const transport = createStreamableHttpClientTransport(url, options);
  const frames: InboundFrame[] = [];
  const events: HttpClientEvent[] = [];
  let completed = false;
  transport.incoming$.subscribe({ next: (frame) => frames.push(frame), complete: () => (completed = true) });
  transport.events$.subscribe((event) => events.push(event));
  const messages = (): unknown[] => frames.flatMap((frame) => (frame.type === 'message' ? [frame.payload] : []));
  return {
    transport,
    frames,
    events,
    completed: () => completed,
    send(frame) {
      void transport.send(frame);
    },
    messages,
    responseTo: (id) =>
      messages().find((message) => typeof message === 'object' && message !== null && !('method' in message) && 'id' in message && message.id === id) as ReturnType<
        Driven['responseTo']
      >,
    failureOf: (id) =>
      frames.find((frame): frame is Extract<InboundFrame, { type: 'undeliverable' }> => frame.type === 'undeliverable' && !Array.isArray(frame.payload) && 'id' in frame.payload && frame.payload.id === id),
  };
}

/** Waits (real time, bounded) until `predicate` holds. */
export async function until(predicate: () => boolean, what: string, maxMs = 2000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${maxMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
