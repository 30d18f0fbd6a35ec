/**
 * One actor per incoming request: it runs the handler and sends exactly one response, unless the request is
 * cancelled (then it sends nothing more, as the protocol requires).
 *
 * A handler may return a value, a Promise, an Observable (values before the last are progress) or an Effect
 * (cancellation interrupts its fiber). The AbortController is created only when a handler reads
 * `context.signal`, so handlers that never look cost nothing for it.
 */
import { type Observable, type Subscription, isObservable } from 'rxjs';
import { type EffectOutcome, isEffect, runEffect } from '../core/abort.ts';
import type { AuthInfo } from '../core/auth.ts';
import { ErrorCode } from '../core/error-codes.ts';
import type { TimerHandle } from '../core/clock.ts';
import { LocalError, toWireError } from '../core/errors.ts';
import { type JsonObject, type JsonRpcResponse, type RequestId, errorResponse, notification, resultResponse } from '../core/jsonrpc.ts';
import { isThenable } from '../core/thenable.ts';
import type { ExchangeKey } from '../core/transport.ts';
import type {
  HandlerOutput,
  ModernRequest,
  PromiseRequestOptions,
  ProgressUpdate,
  RequestContext,
  RequestEvent,
  RequestHandler,
  RequestOptions,
  SessionView,
} from './handler-types.ts';
import { outgoingRequest, outgoingRequest$ } from './outgoing-request.ts';
import { looksLikeProgress, normaliseProgress } from './progress.ts';
import type { RunningRequest, SessionContext } from './session-context.ts';

/**
 * A modern (2026-07-28) request's own scope: the session view its envelope describes, and how its results are
 * completed for the wire.
 */
export interface ModernScope extends ModernRequest {
  readonly view: SessionView;
  decorate(method: string, result: JsonObject): JsonObject;
  /** Overrides the handler time limit (listen streams run until cancelled). */
  readonly timeoutMs: number | undefined;
  /** Who the transport authenticated the caller as, if it did. */
  readonly principal?: string | undefined;
}

/** Where a response goes: straight to the writer, or into the batch it belongs to. */
export interface ResponseRoute {
  readonly exchange: ExchangeKey | undefined;
  readonly batch: { deliver(response: JsonRpcResponse | undefined): void } | undefined;
}

export function sendResponse(session: SessionContext, route: ResponseRoute, response: JsonRpcResponse): void {
  if (route.batch !== undefined) route.batch.deliver(response);
  else session.writer.write(route.exchange === undefined ? { payload: response } : { payload: response, exchange: route.exchange });
}

export class IncomingRequest implements RequestContext, RunningRequest {
  private controller: AbortController | undefined;
  /** Created only when a handler reads `shutdown`; `true` once the shutdown began before anyone read it. */
  private shutdownController: AbortController | true | undefined;
  private cancelReason: LocalError | undefined;
  private done = false;
  private lastProgress = -Infinity;
  private subscription: Subscription | undefined;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly sessionContext: SessionContext,
    readonly id: RequestId,
    readonly method: string,
    private readonly params: JsonObject | undefined,
    readonly progressToken: string | number | undefined,
    private readonly route: ResponseRoute,
    private readonly scope?: ModernScope,
    /** Who is calling (see {@link RequestContext.auth}). */
    readonly auth?: AuthInfo | undefined,
  ) {}

  get modern(): ModernRequest | undefined {
    return this.scope;
  }

  /** The exchange the request came on (a closed exchange cancels modern requests). */
  get exchange(): ExchangeKey | undefined {
    return this.route.exchange;
  }

  /**
   * Answers the request now with `result`, whatever the handler does later: a modern request that needs
   * client input is answered with `input_required` while its handler waits. The handler's signal aborts.
   */
  answerEarly(result: JsonObject): void {
    if (this.done) return;
    this.subscription?.unsubscribe();
    this.controller?.abort(new LocalError('RequestAborted', `${this.method} was answered with input_required`));
    this.respond(result);
  }

  get meta(): JsonObject | undefined {
    const meta = this.params?.['_meta'];
    return typeof meta === 'object' && meta !== null ? (meta as JsonObject) : undefined;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      // Read for the first time after a cancellation: the signal must already say so.
      if (this.cancelReason !== undefined) this.controller.abort(this.cancelReason);
    }
    return this.controller.signal;
  }

  get shutdown(): AbortSignal {
    if (this.shutdownController === true) return AbortSignal.abort(shutdownReason);
    this.shutdownController ??= new AbortController();
    return this.shutdownController.signal;
  }

  shutdownStarted(): void {
    if (this.shutdownController === undefined) this.shutdownController = true;
    else if (this.shutdownController !== true) this.shutdownController.abort(shutdownReason);
  }

  get session(): SessionView {
    return this.scope?.view ?? this.sessionContext.view;
  }

  /** Runs the handler. Synchronous results are answered at once without registering the request. */
  run(handler: RequestHandler): void {
    let output: HandlerOutput;
    try {
      output = handler(this.params, this);
    } catch (error) {
      return this.respondError(error);
    }
    if (isObservable(output)) return this.track(() => this.runObservable(output as Observable<unknown>));
    if (isThenable(output)) return this.track(() => this.runPromise(output as PromiseLike<JsonObject>));
    if (isEffect(output)) return this.track(() => this.runEffect(output as Parameters<typeof runEffect>[0]));
    this.respond(output as JsonObject);
  }

  cancel(reason: LocalError): void {
    if (this.done) return;
    this.done = true;
    this.cancelReason = reason;
    this.untrack();
    this.subscription?.unsubscribe();
    this.controller?.abort(reason);
    // A cancelled request is never answered; a batch it belongs to stops waiting for it.
    this.route.batch?.deliver(undefined);
  }

  abandon(reason: LocalError, answer: { readonly code: number; readonly message: string; readonly data?: unknown }): void {
    if (this.done) return;
    this.cancelReason = reason;
    // Answered first: whatever the handler does when its signal aborts comes after the one answer and is dropped.
    this.finish(errorResponse(this.id, answer));
    this.subscription?.unsubscribe();
    this.controller?.abort(reason);
  }

  progress(update: ProgressUpdate): void {
    if (this.done || this.progressToken === undefined) return;
    const report = normaliseProgress(update);
    if (report === undefined || report.progress <= this.lastProgress) {
      this.sessionContext.diagnose({ type: 'dropped-progress', detail: `handler of ${this.method} reported progress that is malformed or does not increase` });
      return;
    }
    this.lastProgress = report.progress;
    this.notify('notifications/progress', { progressToken: this.progressToken, ...report });
  }

  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options: RequestOptions = {}): Observable<RequestEvent<R>> {
    return outgoingRequest$<R>(this.sessionContext, this.relatedSpec(method, params, options));
  }

  request<R extends object = JsonObject>(method: string, params?: JsonObject, options: PromiseRequestOptions = {}): Promise<R> {
    return outgoingRequest<R>(this.sessionContext, this.relatedSpec(method, params, options));
  }

  notify(method: string, params?: JsonObject): void {
    if (this.done) return;
    const message = notification(method, params);
    const exchange = this.route.exchange;
    this.sessionContext.writer.write(exchange === undefined ? { payload: message } : { payload: message, exchange });
  }

  whenWritable(): Promise<void> {
    // Its own exchange: where the medium holds back each exchange alone, only a stream that is not read waits.
    return this.sessionContext.writer.whenWritable(this.route.exchange);
  }

  /** Requests made for this one end with it: they share its signal unless given their own. */
  private relatedSpec<O extends RequestOptions>(method: string, params: JsonObject | undefined, options: O) {
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([options.signal, this.signal]);
    const spec = { method, params, options: { ...options, signal } };
    return this.route.exchange === undefined ? spec : { ...spec, exchange: this.route.exchange };
  }

  private track(start: () => void): void {
    const session = this.sessionContext;
    session.incoming.set(this.id, this);
    const limit = this.scope?.timeoutMs ?? session.limits.handlerTimeoutMs;
    if (Number.isFinite(limit)) this.timer = session.clock.setTimeout(() => this.onHandlerTimeout(), limit);
    start();
  }

  private untrack(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.sessionContext.incoming.get(this.id) === this) this.sessionContext.incoming.delete(this.id);
  }

  /**
   * The handler ran past its time: tell the requester, then abort its work. Answered first (as `abandon` does), so
   * what the handler does when its signal aborts is dropped; the signal is aborted before the interceptor chain is
   * let go, so what watches the request (a span, a metric) reads a timeout in it, not a cancellation.
   */
  private onHandlerTimeout(): void {
    this.timer = undefined;
    if (this.done) return;
    const limit = this.scope?.timeoutMs ?? this.sessionContext.limits.handlerTimeoutMs;
    const error = new LocalError('RequestTimeout', `The handler of ${this.method} ran longer than ${limit} ms`);
    this.cancelReason = error;
    this.respondError(error);
    this.controller?.abort(error);
    this.subscription?.unsubscribe();
  }

  private runPromise(promise: PromiseLike<JsonObject>): void {
    promise.then(
      (result) => this.respond(result),
      (error: unknown) => this.respondError(error),
    );
  }

  private runObservable(output$: Observable<unknown>): void {
    // Hold each value until the next one arrives: only then is it known not to be the last (the result). A value
    // that can only be a progress report goes out at once.
    let held: { value: unknown } | undefined;
    this.subscription = output$.subscribe({
      next: (value) => {
        if (held !== undefined) this.progress(held.value as ProgressUpdate);
        held = undefined;
        if (looksLikeProgress(value)) this.progress(value as ProgressUpdate);
        else held = { value };
      },
      error: (error: unknown) => this.respondError(error),
      complete: () => {
        if (held === undefined) this.respondError(new LocalError('ProtocolViolation', `The handler of ${this.method} completed without a result`));
        else this.respond(held.value as JsonObject);
      },
    });
  }

  private runEffect(effect: Parameters<typeof runEffect>[0]): void {
    runEffect(effect, this.signal).then(
      (outcome: EffectOutcome<unknown>) => {
        if (outcome.type === 'success') this.respond(outcome.value as JsonObject);
        else if (outcome.type === 'failure') this.respondError(outcome.error);
        // Interrupted: the request was cancelled and is not answered.
      },
      (error: unknown) => this.respondError(error),
    );
  }

  private respond(result: JsonObject): void {
    if (this.done) return;
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      return this.respondError(new LocalError('ProtocolViolation', `The handler of ${this.method} returned a non-object result`));
    }
    this.finish(resultResponse(this.id, this.scope === undefined ? result : this.scope.decorate(this.method, result)));
  }

  private respondError(error: unknown): void {
    if (this.done) return;
    if (!(error instanceof Error && 'code' in error && typeof error.code === 'number')) {
      this.sessionContext.diagnose({ type: 'handler-error', detail: `${this.method}: ${error instanceof Error ? error.message : String(error)}` });
    }
    this.finish(errorResponse(this.id, toWireError(error)));
  }

  private finish(response: JsonRpcResponse): void {
    this.done = true;
    this.untrack();
    sendResponse(this.sessionContext, this.route, response);
  }
}

const shutdownReason = new LocalError('ConnectionClosed', 'The session is shutting down');

/** The error answered when a request names a method the receiver does not serve. */
export function methodNotFound(method: string, why?: string): { code: number; message: string } {
  return { code: ErrorCode.MethodNotFound, message: why === undefined ? `Method not found: ${method}` : `Method not found: ${method} (${why})` };
}

/**
 * The refusal of a request past the session's in-flight cap. It names the bound and its value (also as data, for
 * programs), and is temporary: the same request succeeds once earlier ones finished.
 */
export function tooManyInFlight(limit: number): { code: number; message: string; data: { bound: string; value: number } } {
  return {
    code: ErrorCode.InternalError,
    message: `Too many requests in flight: this session runs at most ${limit} at once (maxIncomingInFlight); retry once earlier requests finished`,
    data: { bound: 'maxIncomingInFlight', value: limit },
  };
}
