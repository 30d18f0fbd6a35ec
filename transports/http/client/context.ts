/**
 * What the parts of the HTTP client (POST handling, stream resumption, session renewal, legacy fallback) share:
 * the transport's state and its delivery functions. The transport implements it; the parts depend only on this
 * interface, so none of them imports another's caller.
 */
import type { TimerHandle } from '../../../core/clock.ts';
import type { LocalError } from '../../../core/errors.ts';
import type { JsonRpcRequest, RequestId, WirePayload } from '../../../core/jsonrpc.ts';
import type { HttpEngine, HttpHeaders, HttpRequest } from './http-exchange.ts';
import type { HttpClientEvent, ResolvedOptions } from './options.ts';

/**
 * One SSE stream as the client follows it across reconnections: the stream a POST opened (it owes the
 * responses to the requests in that POST) or the standalone GET stream (it owes nothing and lives as long as
 * the session).
 */
export interface StreamCursor {
  readonly kind: 'post' | 'standalone';
  /** Requests whose responses this stream still owes, by id. */
  readonly owed: Map<RequestId, JsonRpcRequest>;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  /** Reconnections in a row that brought no event. */
  attempts: number;
  /** The HTTP request (or, for a POST's own stream, its response) carrying the stream now, if any. */
  request: HttpRequest | undefined;
  /** The pending reconnection, if any. */
  timer: TimerHandle | undefined;
  /**
   * A GET of this cursor was answered with a stream: the standalone stream opened (a later refusal is then a
   * loss, not a refusal), or a POST's stream was resumed.
   */
  opened: boolean;
  done: boolean;
}

/** One modern (2026-07-28) request on its way: from `send` until its POST's answer is over (modern.ts). */
export interface ModernFlight {
  readonly request: JsonRpcRequest;
  /** The HTTP request carrying it, once started. */
  http: HttpRequest | undefined;
  /** Cancelled by the session, or the transport closed: how the exchange ends is nobody's news any more. */
  aborted: boolean;
}

/** How the transport talks to the server right now (legacy traffic; modern requests need no mode). */
export type WireMode = 'probing' | 'streamable' | 'legacy-pending' | 'legacy';

export interface ClientContext {
  readonly url: URL;
  readonly options: ResolvedOptions;
  /** Makes the HTTP requests (node:http, or fetch). */
  readonly engine: HttpEngine;
  readonly cursors: Set<StreamCursor>;
  /** Which stream owes the response to a request. */
  readonly owed: Map<RequestId, StreamCursor>;
  /** Modern requests whose POST is still running, by id (so that a cancellation can close it). */
  readonly flights: Map<RequestId, ModernFlight>;
  /**
   * Requests cancelled before any stream owed their answers (their POST's answer had not arrived), the last few:
   * a stream that comes for them owes them nothing.
   */
  readonly cancelledEarly: Set<RequestId>;
  readonly closed: boolean;
  mode: WireMode;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** The `initialize` request the session sent (replayed to renew an expired session). */
  initialize: JsonRpcRequest | undefined;
  standalone: StreamCursor | undefined;
  /** A session renewal in progress: settles with its error, or undefined when it worked. */
  renewal: Promise<LocalError | undefined> | undefined;
  legacyEndpoint: URL | undefined;
  /** One decoded JSON value from the server (a message or an array of them) for the session. */
  deliver(value: unknown): void;
  malformed(error: LocalError): void;
  /** Fails the requests in `payload` at once (the session turns it into a rejected request). */
  undeliverable(payload: WirePayload, error: LocalError): void;
  emit(event: HttpClientEvent): void;
  /** The connection is gone for good (the legacy SSE stream ended): close the transport. */
  lost(error: LocalError): void;
}

/** A session id must be visible ASCII (0x21-0x7E), as the specification says. */
export function isValidSessionId(value: string): boolean {
  return /^[\x21-\x7e]+$/.test(value);
}

/**
 * Headers of one request: the caller's own first, then ours (which win). After the handshake every request
 * carries the session id and the negotiated protocol version; `initialize` carries neither, and the legacy
 * transport knows neither.
 */
export function requestHeaders(
  context: ClientContext,
  kind: 'post' | 'get' | 'delete',
  options: { readonly handshake?: boolean; readonly lastEventId?: string | undefined } = {},
): HttpHeaders {
  const headers: HttpHeaders = { ...context.options.headers() };
  if (kind === 'post') {
    headers['content-type'] = 'application/json';
    headers['accept'] = 'application/json, text/event-stream';
  } else if (kind === 'get') {
    headers['accept'] = 'text/event-stream';
  }
  if (options.handshake !== true && context.mode !== 'legacy' && context.mode !== 'legacy-pending') {
    if (context.sessionId !== undefined) headers['mcp-session-id'] = context.sessionId;
    if (context.protocolVersion !== undefined) headers['mcp-protocol-version'] = context.protocolVersion;
  }
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  return headers;
}

/** The requests (messages with a method and an id) in a payload. */
export function requestsIn(payload: WirePayload): JsonRpcRequest[] {
  const requests: JsonRpcRequest[] = [];
  for (const message of Array.isArray(payload) ? payload : [payload]) {
    if ('method' in message && 'id' in message) requests.push(message);
  }
  return requests;
}

/** "request 3 (tools/call)", "notification notifications/initialized", "a response to 7", "a batch of 3". */
export function describePayload(payload: WirePayload): string {
  if (Array.isArray(payload)) return `a batch of ${payload.length} messages`;
  const message = payload as WirePayload & { readonly method?: string; readonly id?: RequestId };
  if (message.method !== undefined) {
    return message.id === undefined ? `notification ${message.method}` : `request ${JSON.stringify(message.id)} (${message.method})`;
  }
  return `a response to ${JSON.stringify(message.id)}`;
}

export function isInitializeRequest(payload: WirePayload): payload is JsonRpcRequest {
  return !Array.isArray(payload) && 'method' in payload && payload.method === 'initialize' && 'id' in payload;
}

export function isInitializedNotification(payload: WirePayload): boolean {
  return !Array.isArray(payload) && 'method' in payload && payload.method === 'notifications/initialized';
}
