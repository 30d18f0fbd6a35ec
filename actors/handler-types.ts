/**
 * The types handler code is written against: what a request handler receives and may return.
 */
import type { Observable } from 'rxjs';
import type { AuthInfo } from '../core/auth.ts';
import type { EffectLike } from '../core/effect-like.ts';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';
import type { AnyCapabilities, Implementation } from '../core/protocol/capabilities.ts';
import type { Role } from '../core/protocol/methods.ts';
import type { InputMethod, RequestEnvelope } from '../core/protocol/modern.ts';
import type { Revision } from '../core/protocol/versions.ts';

/** A progress report: a bare number, or the full shape of `notifications/progress`. */
export type ProgressUpdate = number | { readonly progress: number; readonly total?: number; readonly message?: string };

/** What an outgoing request's Observable emits: progress reports, then exactly one result. */
export type RequestEvent<R = JsonObject> =
  | { readonly type: 'progress'; readonly progress: number; readonly total?: number; readonly message?: string }
  | { readonly type: 'result'; readonly result: R };

export interface RequestOptions {
  /** Milliseconds to wait for the answer (default from the session's limits). `Infinity` disables it. */
  readonly timeoutMs?: number;
  /** Restart the timeout whenever progress arrives, up to `maxTotalTimeoutMs`. */
  readonly resetTimeoutOnProgress?: boolean;
  /** Hard ceiling on the request's total time when progress resets the timeout. */
  readonly maxTotalTimeoutMs?: number;
  /** Ask the peer for progress (attaches a progress token). */
  readonly progress?: boolean;
  /** Aborting stops waiting and sends `notifications/cancelled`; the request fails with `RequestAborted`. */
  readonly signal?: AbortSignal;
  /** Extra `_meta` entries for the request. */
  readonly meta?: JsonObject;
}

export interface PromiseRequestOptions extends RequestOptions {
  /** Receives progress reports; setting it also asks the peer for progress. */
  readonly onProgress?: (progress: Extract<RequestEvent, { type: 'progress' }>) => void;
}

/** Options of the handler context's client calls (`elicit`, `sample`, `roots`). */
export interface InputCallOptions extends PromiseRequestOptions {
  /**
   * Modern era: the key of this input request in `inputRequests`. By default calls are numbered per kind
   * in the order the handler makes them, which is stable because the handler runs again from the start.
   */
  readonly key?: string;
}

/** What a handler may learn about the session it serves. */
export interface SessionView {
  readonly role: Role;
  readonly revision: Revision | undefined;
  readonly peerInfo: Implementation | undefined;
  readonly peerCapabilities: AnyCapabilities | undefined;
}

/** The context of one incoming request. */
export interface RequestContext {
  readonly id: RequestId;
  readonly method: string;
  /** The request's `params._meta`, if any. */
  readonly meta: JsonObject | undefined;
  /** Aborted when the peer cancels, the session closes, or the request is abandoned. */
  readonly signal: AbortSignal;
  /**
   * Aborted when the session starts a graceful shutdown while this request runs: the request may still answer
   * (until the drain deadline), and open-ended work (a listen, a watch) should end now with what it has.
   * Absent where a request cannot outlive its session's shutdown on its own terms (task runs).
   */
  readonly shutdown?: AbortSignal;
  readonly session: SessionView;
  /**
   * Who is calling, as the transport verified it: a legacy-era session's request carries the identity of the
   * request that brought it (the bearer token on that HTTP POST), else the one the connection was opened with; a
   * modern-era request its own. Undefined where the medium authenticated nobody.
   */
  readonly auth?: AuthInfo | undefined;
  /** Reports progress to the requester (a no-op when it asked for none). Progress must increase. */
  progress(update: ProgressUpdate): void;
  /** Sends a request to the peer on behalf of this request; cancelled with it. */
  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Observable<RequestEvent<R>>;
  request<R extends object = JsonObject>(method: string, params?: JsonObject, options?: PromiseRequestOptions): Promise<R>;
  /** Sends a notification related to this request. */
  notify(method: string, params?: JsonObject): void;
  /**
   * Settles when more may be sent: at once, unless the session's backpressure policy is `pause` and the peer
   * is not keeping up (then once it caught up). A handler that streams a lot awaits it between sends. Rejects
   * if the session closes first.
   */
  whenWritable(): Promise<void>;
  /** Modern era (2026-07-28) only: what this request declared about its sender, and its input round. */
  readonly modern?: ModernRequest | undefined;
}

/** A modern request's own envelope: there is no session to hold the client's version or capabilities. */
export interface ModernRequest {
  readonly envelope: RequestEnvelope;
  /** For the methods that may ask the client for input (`tools/call`, `prompts/get`, `resources/read`). */
  readonly inputs: InputRound | undefined;
}

/**
 * The client input a modern request has gathered over its rounds. A handler's needs (elicitation, sampling,
 * roots) are answered from it when the client already supplied them; otherwise they are collected, the
 * request is answered with `input_required`, and the handler runs again from the start on the retry.
 */
export interface InputRound {
  /** 0 on the first call, then one more on each retry that carried sealed state. */
  readonly round: number;
  /** The answer to an input request, asking the client for it when it has not been given. */
  ask(method: InputMethod, params: JsonObject | undefined, key?: string): Promise<JsonObject>;
}

/**
 * What a handler may return: a result, a Promise of one, an Effect (interrupted on cancellation), or a stream (an
 * Observable or an async iterable, such as an async generator) of progress then the result. In a stream a number
 * or a `progress(...)` report is progress, sent at once; any other value is the result if it is the last one, and
 * progress if another value follows it.
 */
export type HandlerOutput<R extends object = object> =
  | R
  | PromiseLike<R>
  | Observable<ProgressUpdate | R>
  | AsyncIterable<ProgressUpdate | R>
  | EffectLike<R>;

export type RequestHandler<R extends object = object> = (
  params: JsonObject | undefined,
  context: RequestContext,
) => HandlerOutput<R>;

export type NotificationHandler = (params: JsonObject | undefined, session: SessionView) => void;

/** Handlers by method. Built once and shared by every session that serves them. */
export interface HandlerTable {
  readonly requests: ReadonlyMap<string, RequestHandler>;
  readonly notifications: ReadonlyMap<string, NotificationHandler>;
}
