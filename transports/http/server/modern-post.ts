/**
 * The modern era (2026-07-28) on the MCP endpoint. There are no sessions: each POST carries one request and is
 * served by a connection of its own, which ends with the answer.
 * - The standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) must agree with the body, or the
 *   answer is 400 with -32020 before anything runs; tool parameters mirrored in `Mcp-Param-*` headers go to the
 *   server with the message, since only it knows which arguments the tool marks.
 * - The answer is one JSON body when nothing precedes the result; the first related notification (progress, a
 *   log line, a listen acknowledgement) turns it into an SSE stream. A JSON-RPC error that ends a request
 *   before any stream started is sent with its HTTP status (400, or 404 for an unknown method, or 429 with
 *   `Retry-After` for a rate-limit refusal, -32029, whose `data.retryAfterMs` gives the wait).
 * - The client closing the connection before the answer is the cancellation.
 */
import { type Observable, Subject } from 'rxjs';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError } from '../../../core/errors.ts';
import { type JsonObject, type WirePayload, isJsonObject, isRequestId } from '../../../core/jsonrpc.ts';
import { PARAM_HEADER_PREFIX, checkStandardHeaders } from '../../../core/protocol/header-mirror.ts';
import { claimedRevision } from '../../../core/protocol/modern.ts';
import { MODERN_REVISIONS, isLegacyRevision, isRevision } from '../../../core/protocol/versions.ts';
import type { FrameOrigin, InboundFrame, OutboundFrame, Transport } from '../../../core/transport.ts';
import { HEADER } from '../shared/headers.ts';
import { ACCEPTS_EVENT_STREAM, acceptanceOf } from '../shared/media-types.ts';
import { kindOf } from './exchanges.ts';
import type { HeaderMap, HttpRequest, HttpResponder } from './http-exchange.ts';
import { JSON_HEADERS, SSE_HEADERS, accepted, refuse } from './replies.ts';
import type { Endpoint } from './session-lookup.ts';
import { answerMode, refuseUnacceptable } from './session-lookup.ts';
import type { TransportSettings } from './settings.ts';
import { SseConnection } from './sse-connection.ts';
import { stepUpHeaders } from './protected-resource.ts';

const EXCHANGE = 'm';
const LISTEN_METHOD = 'subscriptions/listen';
const LISTEN_REFUSAL_HEADERS: HeaderMap = Object.freeze({ ...JSON_HEADERS, [HEADER.retryAfter]: '30' });

/**
 * Whether a POST belongs to the modern era: it names a modern revision in `MCP-Protocol-Version`, or names no
 * known legacy revision and carries a 2026 envelope in its body (so a wrong or missing header is reported in
 * the modern way). Session traffic and `initialize` stay legacy.
 */
export function isModernPost(req: HttpRequest, body: unknown): boolean {
  if (req.header(HEADER.sessionId) !== undefined) return false;
  const header = req.header(HEADER.protocolVersion)?.trim();
  if (header !== undefined && header.length > 0) {
    if (isLegacyRevision(header)) return false;
    if (isRevision(header)) return true;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as JsonObject;
  if (message['method'] === 'initialize') return false;
  return claimedRevision(message['params']) !== undefined;
}

/** `Retry-After` (whole seconds, rounded up) for a -32029 error's `data.retryAfterMs`, if it has one. */
function retryAfterHeader(error: { readonly data?: unknown }): HeaderMap {
  const retryAfterMs = (error.data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs) || retryAfterMs < 0) return JSON_HEADERS;
  return { ...JSON_HEADERS, [HEADER.retryAfter]: String(Math.ceil(retryAfterMs / 1000)) };
}

/** The HTTP status of a JSON-RPC error that ends a modern request before any stream started. */
function statusOf(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    case ErrorCode.RateLimited:
      return 429;
    case ErrorCode.InsufficientScope:
      return 403;
    default:
      return 200;
  }
}

export function handleModernPost(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, body: unknown, origin: FrameOrigin | undefined, live: Set<Transport>): void {
  const { options } = endpoint;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refuse(res, 400, 'Invalid request: a 2026-07-28 POST carries exactly one JSON-RPC message');
  }
  const message = body as JsonObject;
  const kind = typeof message['method'] !== 'string' ? 'response' : 'id' in message ? 'request' : 'notification';
  // The era defines no client notifications over HTTP (a cancel is a closed stream) and no client responses.
  if (kind === 'notification') return accepted(res);
  if (kind === 'response') return refuse(res, 400, 'Invalid request: a 2026-07-28 client does not send responses');
  const id = message['id'];
  if (message['method'] === 'initialize') {
    // A legacy client reaching a modern-only endpoint (or an initialize sent the modern way): it learns which
    // versions this endpoint speaks, so it can tell what went wrong.
    const error = { code: ErrorCode.MethodNotFound, message: 'Method not found: initialize (this endpoint speaks revision 2026-07-28, which has no initialize)', data: { supported: [...MODERN_REVISIONS] } };
    return res.respond(404, JSON_HEADERS, JSON.stringify({ jsonrpc: '2.0', ...(isRequestId(id) ? { id } : {}), error }));
  }
  const headerProblem = checkStandardHeaders((name) => req.header(name), { method: message['method'] as string, ...(isJsonObject(message['params']) ? { params: message['params'] } : {}) });
  if (headerProblem !== undefined) {
    const error = { code: ErrorCode.HeaderMismatch, message: `Header mismatch: ${headerProblem.message}` };
    return res.respond(400, JSON_HEADERS, JSON.stringify({ jsonrpc: '2.0', ...(isRequestId(id) ? { id } : {}), error }));
  }
  const accept = req.header(HEADER.accept);
  if (answerMode(accept, options.responseMode) === undefined) return refuseUnacceptable(res);
  // The answer is JSON unless something must precede it; then it streams, whatever the preferred mode, when the
  // client takes a stream (a listen has nothing to give in a single body).
  const mode = (acceptanceOf(accept) & ACCEPTS_EVENT_STREAM) !== 0 ? 'sse' : 'json';
  const refusal = options.server.refusal?.();
  if (refusal !== undefined) return refuse(res, 503, `Service Unavailable: ${refusal.message}`, { [HEADER.retryAfter]: '30' });
  const listen = message['method'] === LISTEN_METHOD;
  if (listen && endpoint.listens.open >= options.maxListenStreams) {
    // A listen holds its connection and state until the client leaves: past the limit, it is refused up front.
    const error = { code: ErrorCode.InternalError, message: `Service Unavailable: this endpoint holds its maximum of ${options.maxListenStreams} listen streams; retry later`, data: { maxListenStreams: options.maxListenStreams } };
    return res.respond(503, LISTEN_REFUSAL_HEADERS, JSON.stringify({ jsonrpc: '2.0', ...(isRequestId(id) ? { id } : {}), error }));
  }
  const transport = new ModernPostTransport(res, mode, options.transport, live, listen ? endpoint.listens : undefined);
  options.server.accept(transport, { knownEra: 'modern' });
  transport.start(message, origin, (name) => req.header(name), paramHeadersOf(req));
}

const PARAM_PREFIX = PARAM_HEADER_PREFIX.toLowerCase();

/** The request's `Mcp-Param-*` headers, for a server that relays the request on (the NATS gateway). */
function paramHeadersOf(req: HttpRequest): Readonly<Record<string, string>> | undefined {
  let found: Record<string, string> | undefined;
  for (const name of req.headerNames()) {
    if (!name.startsWith(PARAM_PREFIX)) continue;
    const value = req.header(name);
    if (value !== undefined) (found ??= {})[name] = value;
  }
  return found;
}

/** The connection of one modern POST: one request in, its notifications and its answer out. */
export class ModernPostTransport implements Transport {
  readonly kind = 'http';
  readonly incoming$: Observable<InboundFrame>;
  private readonly inbound = new Subject<InboundFrame>();
  private stream: SseConnection | undefined;
  private answered = false;
  private closed = false;
  private closedListener: (() => void) | undefined;

  constructor(
    private readonly res: HttpResponder,
    private readonly mode: 'sse' | 'json',
    private readonly settings: TransportSettings,
    private readonly live: Set<Transport>,
    /** The endpoint's count of open listen streams, when this POST is one. */
    private readonly listens?: { open: number },
  ) {
    this.incoming$ = this.inbound.asObservable();
    live.add(this);
    if (listens !== undefined) listens.open++;
    res.onFinished((gone) => {
      // The client left before its answer: in this era that cancels the request.
      if (gone && !this.answered) this.inbound.next({ type: 'exchange-closed', exchange: EXCHANGE, cancels: true });
      void this.close();
    });
  }

  start(payload: JsonObject, origin: FrameOrigin | undefined, mirror: (lowercaseName: string) => string | undefined, paramHeaders?: Readonly<Record<string, string>>): void {
    this.inbound.next({
      type: 'message',
      payload,
      exchange: EXCHANGE,
      mirror,
      ...(paramHeaders === undefined ? {} : { paramHeaders }),
      ...(origin === undefined ? {} : { origin }),
    });
  }

  send(frame: OutboundFrame): void | Promise<void> {
    if (this.closed) return Promise.reject(new LocalError('ConnectionClosed', 'The request is over'));
    const payload = frame.payload;
    const data = JSON.stringify(payload);
    switch (kindOf(payload)) {
      case 'response':
        return this.answer(payload, data);
      case 'notification':
        return this.notify(data);
      case 'request':
        // A modern server never sends requests; should one be attempted, it fails at once.
        queueMicrotask(() => this.inbound.next({ type: 'undeliverable', payload, error: new LocalError('TransportFailed', 'A 2026-07-28 server cannot send requests to the client') }));
        return undefined;
    }
  }

  /** Calls `listener` once this transport has closed (at once if it has): the endpoint's count of live connections. */
  whenClosed(listener: () => void): void {
    if (this.closed) listener();
    else this.closedListener = listener;
  }

  close(_reason?: LocalError): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.live.delete(this);
    if (this.listens !== undefined) this.listens.open--;
    if (this.stream !== undefined) this.stream.end();
    else if (!this.answered) {
      this.answered = true;
      refuse(this.res, 503, 'Service Unavailable: the server closed before answering');
    }
    this.inbound.complete();
    this.closedListener?.();
    this.closedListener = undefined;
    return Promise.resolve();
  }

  private answer(payload: WirePayload, data: string): void | Promise<void> {
    if (this.answered) return undefined;
    this.answered = true;
    const stream = this.stream;
    if (stream === undefined) {
      const error = (payload as { error?: { code?: unknown; data?: unknown } }).error;
      const status = typeof error?.code === 'number' ? statusOf(error.code) : 200;
      this.res.respond(status, error === undefined ? JSON_HEADERS : status === 429 ? retryAfterHeader(error) : status === 403 ? stepUpHeaders(error, this.settings) : JSON_HEADERS, data);
      queueMicrotask(() => void this.close());
      return undefined;
    }
    const written = stream.event(data);
    queueMicrotask(() => void this.close());
    return written;
  }

  private notify(data: string): void | Promise<void> {
    // In JSON mode there is nowhere for a notification to go: the answer is the body.
    if (this.mode === 'json' || this.answered) return undefined;
    this.stream ??= this.openStream();
    return this.stream.event(data);
  }

  private openStream(): SseConnection {
    return new SseConnection(this.res.openStream(200, SSE_HEADERS), this.settings.sseConnection);
  }
}
