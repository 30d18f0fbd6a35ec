/**
 * One actor per incoming request, with an Observable life: its handler's output, normalised into the request's
 * events (normalise-output.ts), is subscribed to run it, and every way it can end early (the requester's
 * `notifications/cancelled`, a closed exchange, the handler deadline, the session ending, a modern round answered
 * with `input_required`) goes through one path, {@link IncomingRequest.stop}: the one final answer (or none), then
 * the handler let go of once (its signal aborted, its events unsubscribed). It sends exactly one response, unless
 * it is cancelled (then nothing more, as the protocol requires).
 *
 * A handler that answers with a plain value is answered at once: no Observable, no registration. The
 * AbortController is created only when a handler reads `context.signal`, so handlers that never look cost nothing
 * for it.
 */
import { type Observable, type Subscription, isObservable } from 'rxjs';
import type { AuthInfo } from '../core/auth.ts';
import { ErrorCode } from '../core/error-codes.ts';
import type { TimerHandle } from '../core/clock.ts';
import { LocalError, WireError, toWireError } from '../core/errors.ts';
import { type JsonObject, type JsonRpcResponse, type RequestId, errorResponse, notification, resultResponse } from '../core/jsonrpc.ts';
import type { ExchangeKey } from '../core/transport.ts';
import type {
  ModernRequest,
  PromiseRequestOptions,
  ProgressUpdate,
  RequestContext,
  RequestEvent,
  RequestHandler,
  RequestOptions,
  SessionView,
} from './handler-types.ts';
import { type EventTarget, type OutputOwner, eventsInto, normaliseOutput } from './normalise-output.ts';
import { outgoingRequest, outgoingRequest$ } from './outgoing-request.ts';
import { normaliseProgress } from './progress.ts';
import { type FinalEvent, type HandlerEvent, type ResultEvent, errorEvent } from './request-events.ts';
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

export class IncomingRequest implements RequestContext, RunningRequest, OutputOwner, EventTarget {
  private controller: AbortController | undefined;
  /** Created only when a handler reads `shutdown`; `true` once the shutdown began before anyone read it. */
  private shutdownController: AbortController | true | undefined;
  private cancelReason: LocalError | undefined;
  private done = false;
  /** Set once the handler was let go of: a subscription made meanwhile is dropped at once. */
  private released = false;
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

  /**
   * Runs the handler: a plain value is answered at once without registering the request; anything else becomes
   * the request's events, subscribed to until their final event or until the request is stopped.
   */
  run(handler: RequestHandler): void {
    let events: ResultEvent | Observable<HandlerEvent>;
    try {
      events = normaliseOutput(handler(this.params, this), this);
    } catch (error) {
      return this.respondError(error);
    }
    if (!isObservable(events)) return this.settle(events);
    this.track();
    const subscription = events.subscribe(eventsInto(this));
    // Stopped while subscribing (or finished then): nothing is left to run.
    if (this.released || this.done) subscription.unsubscribe();
    else this.subscription = subscription;
  }

  /** One event of the handler's: progress and log messages go out as notifications, a final event answers. */
  onEvent(event: HandlerEvent): void {
    switch (event.type) {
      case 'progress':
        return this.progress(event);
      case 'log':
        return this.notify('notifications/message', event.params);
      case 'input':
        return this.answerEarly(event.result);
      case 'result':
      case 'error':
        return this.settle(event);
    }
  }

  /**
   * Answers the request now with `result`, whatever the handler does later: a modern request that needs
   * client input is answered with `input_required` while its handler waits. The handler's signal aborts.
   */
  answerEarly(result: JsonObject): void {
    this.stop(new LocalError('RequestAborted', `${this.method} was answered with input_required`), { type: 'input', result });
  }

  cancel(reason: LocalError): void {
    // A cancelled request is never answered.
    this.stop(reason, undefined);
  }

  abandon(reason: LocalError, answer: { readonly code: number; readonly message: string; readonly data?: unknown }): void {
    this.stop(reason, errorEvent(new WireError(answer.code, answer.message, { data: answer.data })));
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

  /**
   * The one way a request ends before its handler did. `answer` is what the requester is told (none for a
   * cancellation); it goes first, so whatever the handler does once its signal aborts comes after the one answer
   * and is dropped. Then the handler is let go of: its signal aborts with `reason` before its events are
   * unsubscribed, so what watches the request (a span, a metric) reads in it why it ended.
   */
  private stop(reason: LocalError, answer: FinalEvent | undefined): void {
    if (this.done) return;
    this.cancelReason = reason;
    if (answer === undefined) {
      this.done = true;
      this.untrack();
    } else if (answer.type === 'input') {
      this.respond(answer.result);
    } else {
      this.settle(answer);
    }
    this.released = true;
    this.controller?.abort(reason);
    const subscription = this.subscription;
    this.subscription = undefined;
    subscription?.unsubscribe();
    // A batch the request belongs to stops waiting for it.
    if (answer === undefined) this.route.batch?.deliver(undefined);
  }

  /** Requests made for this one end with it: they share its signal unless given their own. */
  private relatedSpec<O extends RequestOptions>(method: string, params: JsonObject | undefined, options: O) {
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([options.signal, this.signal]);
    const spec = { method, params, options: { ...options, signal } };
    return this.route.exchange === undefined ? spec : { ...spec, exchange: this.route.exchange };
  }

  private track(): void {
    const session = this.sessionContext;
    session.incoming.set(this.id, this);
    const limit = this.scope?.timeoutMs ?? session.limits.handlerTimeoutMs;
    if (Number.isFinite(limit)) this.timer = session.clock.setTimeout(() => this.onHandlerTimeout(), limit);
  }

  private untrack(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.sessionContext.incoming.get(this.id) === this) this.sessionContext.incoming.delete(this.id);
  }

  /** The handler ran past its time: the requester is told, and the handler stopped. */
  private onHandlerTimeout(): void {
    this.timer = undefined;
    if (this.done) return;
    const limit = this.scope?.timeoutMs ?? this.sessionContext.limits.handlerTimeoutMs;
    const error = new LocalError('RequestTimeout', `The handler of ${this.method} ran longer than ${limit} ms`);
    this.stop(error, errorEvent(error));
  }

  private settle(event: FinalEvent): void {
    if (event.type === 'error') this.respondError(event.error);
    else this.respond(event.result);
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
