/**
 * The HTTP side of one modern-era (2026-07-28) POST served on a pooled connection (modern-pool.ts): what the
 * session sends on the POST's exchange becomes its answer.
 * - The answer is one JSON body when nothing precedes the result; the first related notification (progress, a
 *   log line, a listen acknowledgement) turns it into an SSE stream, when the client takes one.
 * - A JSON-RPC error that ends a request before any stream started is sent with its HTTP status (400, 404 for
 *   an unknown method, 403 with a step-up challenge for a missing scope, 429 with `Retry-After` for a
 *   rate-limit refusal, -32029, whose `data.retryAfterMs` gives the wait).
 * - The client closing the connection before the answer is the cancellation (reported by the owner).
 */
import { ErrorCode } from '../../../core/error-codes.ts';
import type { LocalError } from '../../../core/errors.ts';
import type { WirePayload } from '../../../core/jsonrpc.ts';
import { HEADER } from '../shared/headers.ts';
import type { HeaderMap, HttpResponder } from './http-exchange.ts';
import { stepUpHeaders } from './protected-resource.ts';
import { JSON_HEADERS, SSE_HEADERS, answerError } from './replies.ts';
import type { TransportSettings } from './settings.ts';
import { SseConnection } from './sse-connection.ts';

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

export class ModernResponder {
  private stream: SseConnection | undefined;
  /** The session sent the answer (or the POST ended without one): nothing more goes out. */
  answered = false;

  constructor(
    private readonly res: HttpResponder,
    private readonly mode: 'sse' | 'json',
    private readonly settings: TransportSettings,
    /** The endpoint's count of open listen streams, when this POST is one (counted until it ends). */
    private readonly listens: { open: number } | undefined,
  ) {
    if (listens !== undefined) listens.open++;
  }

  /**
   * The answer. It is not waited for: a pooled connection carries many clients' requests, and one slow reader
   * must not hold the others' answers (a stream whose buffer stays full is cut off after `drainTimeoutMs`).
   */
  answer(payload: WirePayload, data: string): void {
    if (this.answered) return;
    this.answered = true;
    const stream = this.stream;
    if (stream === undefined) {
      const error = (payload as { error?: { code?: unknown; data?: unknown } }).error;
      const status = typeof error?.code === 'number' ? statusOf(error.code) : 200;
      this.res.respond(status, error === undefined ? JSON_HEADERS : status === 429 ? retryAfterHeader(error) : status === 403 ? stepUpHeaders(error, this.settings) : JSON_HEADERS, data);
    } else {
      void stream.event(data);
      stream.end();
    }
    this.ended();
  }

  /** A related notification: it opens the stream (in JSON mode there is nowhere for it to go). */
  notify(data: string): void {
    if (this.mode === 'json' || this.answered) return;
    this.stream ??= new SseConnection(this.res.openStream(200, SSE_HEADERS), this.settings.boundedSseConnection);
    void this.stream.event(data);
  }

  /** The connection closed before the answer: a started stream ends, otherwise the POST is refused. */
  abandon(): void {
    if (this.answered) return;
    this.answered = true;
    if (this.stream !== undefined) this.stream.end();
    // The request was taken (by a pooled connection that is closing): an answer, not a refusal to count.
    else answerError(this.res, 503, 'Service Unavailable: the server closed before answering');
    this.ended();
  }

  /** Why its stream was cut off (its client stopped reading), if it was. */
  get cutReason(): LocalError | undefined {
    return this.stream?.cutReason;
  }

  /** The client left before the answer. */
  gone(): void {
    if (this.answered) return;
    this.answered = true;
    this.stream?.end();
    this.ended();
  }

  private ended(): void {
    if (this.listens !== undefined) this.listens.open--;
  }
}
