/**
 * A request handler behind a chain of interceptors. The wrapped handler is built once per method when `use` is
 * called; per request it makes the request object, runs the chain, and gives the incoming-request actor an
 * output it already knows how to run.
 *
 * At the end of the chain the raw handler runs with a context of its own: its progress reports become events of
 * the chain (so interceptors can map or drop them), its `_meta` is the one the chain passed on, and its signal
 * aborts when the chain stops listening (a cancellation, or an interceptor's timeout or short-circuit).
 * Whatever shape the handler returns (value, Promise, Observable, Effect) becomes events; the chain's events
 * become the handler output the actor runs. A chain that finishes synchronously is answered synchronously, as a
 * plain handler's value would be.
 */
import { Observable, type Subscriber, type Subscription, type TeardownLogic, isObservable } from 'rxjs';
import { isEffect, onAbort } from '../core/abort.ts';
import type { AuthInfo } from '../core/auth.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';
import { isThenable } from '../core/thenable.ts';
import { finishOutput } from './features/handler-output.ts';
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
import { type RequestRunner, finalParams, interceptedRequest, runIntercepted } from './intercepted-request.ts';
import { type Chain, type InterceptedRequest, type InterceptedSession, type InterceptorList, InterceptedSessionFacts } from './interceptors.ts';
import { RequestInputRound } from './modern/input-round.ts';
import { looksLikeProgress, normaliseProgress } from './progress.ts';

type ProgressEvent = Extract<RequestEvent, { type: 'progress' }>;

/** What a modern request's scope may add: the principal the transport authenticated. */
interface PrincipalScope {
  readonly principal?: string | undefined;
}

/**
 * The handlers of `raw` behind the interceptors that may see them (direction `incoming`): a method no
 * interceptor covers keeps its raw handler.
 */
export function interceptHandlers(raw: ReadonlyMap<string, RequestHandler>, interceptors: InterceptorList): Map<string, RequestHandler> {
  const wrapped = new Map<string, RequestHandler>();
  for (const [method, handler] of raw) {
    const chain = interceptors.chain('incoming', method, runIntercepted);
    wrapped.set(method, chain === undefined ? handler : interceptedHandler(method, handler, chain));
  }
  return wrapped;
}

function interceptedHandler(method: string, handler: RequestHandler, chain: Chain): RequestHandler {
  return (params, context) => {
    const runner = new HandlerRunner(handler, context);
    // The method is the table's: a modern client answers input requests with a context that names none.
    const request = interceptedRequest({ direction: 'incoming', method, params, id: context.id, session: sessionOf(context) }, runner);
    const events$ = chain(request);
    // Every interceptor passed the request on untouched and returned what `next` gave it: the handler's output
    // needs no adapting, and the actor runs it as it would without interceptors.
    if (events$ instanceof HandlerRun && events$.untouched(params)) return events$.runPlain();
    return settle(events$);
  };
}

function sessionOf(context: RequestContext): InterceptedSession {
  const view: SessionView & { readonly era?: 'legacy' | 'modern'; readonly principal?: string | undefined } = context.session;
  const modern = context.modern as (ModernRequest & PrincipalScope) | undefined;
  const era = modern !== undefined || view.era === 'modern' ? 'modern' : 'legacy';
  // A modern request names its own principal; a legacy session carries the one that opened it. The identity is
  // the request's own in both eras (a legacy request's token may be a refreshed one).
  return new InterceptedSessionFacts(view, era, modern !== undefined ? modern.principal : view.principal, context.auth);
}

/** Runs the raw handler when a request reaches the end of the chain. */
class HandlerRunner implements RequestRunner {
  constructor(
    private readonly handler: RequestHandler,
    private readonly context: RequestContext,
  ) {}

  signal(): AbortSignal {
    return this.context.signal;
  }

  run(request: InterceptedRequest): Observable<RequestEvent> {
    return new HandlerRun(this.handler, this.context, request);
  }
}

/**
 * One run of the raw handler, as an Observable of its events. A class rather than `new Observable(fn)`: requests
 * are hot, and this way a run makes no closures.
 */
class HandlerRun extends Observable<RequestEvent> {
  constructor(
    private readonly handler: RequestHandler,
    private readonly base: RequestContext,
    private readonly request: InterceptedRequest,
  ) {
    super();
  }

  /** Whether the request reached the handler with the params it came with. */
  untouched(params: JsonObject | undefined): boolean {
    return this.request.params === params && finalParams(this.request) === params;
  }

  /** Runs the handler with the request's own context, its output unadapted (nothing was composed over it). */
  runPlain(): HandlerOutput {
    return this.handler(this.request.params, this.base);
  }

  // Observable's own subscription hook (internal to RxJS's typings, stable since RxJS 5).
  _subscribe(subscriber: Subscriber<RequestEvent>): TeardownLogic {
    const params = finalParams(this.request);
    const context = new InterceptedContext(this.base, params, subscriber);
    // A modern round that needs input ends the request with `input_required`: that answer is this round's result.
    const inputs = this.base.modern?.inputs;
    if (inputs instanceof RequestInputRound) inputs.divert((result) => context.answerEarly(result));
    let output: HandlerOutput;
    try {
      output = this.handler(params, context);
    } catch (error) {
      context.error(error);
      return undefined;
    }
    context.feeding = feed(output, context, this.request.method);
    return context;
  }
}

/** An Effect's value is the result as it is. */
const unchanged = { finish: (value: object): object => value };

type EventSink = Pick<Subscriber<RequestEvent>, 'next' | 'error' | 'complete'>;

/** Feeds any handler output into the chain as events. */
function feed(output: HandlerOutput, subscriber: EventSink, method: string): Subscription | undefined {
  if (isObservable(output)) return feedObservable(output as Observable<unknown>, subscriber, method);
  if (isThenable(output)) {
    output.then(
      (result) => {
        subscriber.next({ type: 'result', result: result as JsonObject });
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return undefined;
  }
  if (isEffect(output)) return feedObservable(finishOutput(output, unchanged) as Observable<unknown>, subscriber, method);
  subscriber.next({ type: 'result', result: output as JsonObject });
  subscriber.complete();
  return undefined;
}

function feedObservable(output$: Observable<unknown>, subscriber: EventSink, method: string): Subscription {
  // As the actor does: a value is the result only once it is known to be the last one.
  let held: { value: unknown } | undefined;
  return output$.subscribe({
    next: (value) => {
      if (held !== undefined) emitProgress(subscriber, held.value);
      held = undefined;
      if (looksLikeProgress(value)) emitProgress(subscriber, value);
      else held = { value };
    },
    error: (error: unknown) => subscriber.error(error),
    complete: () => {
      if (held === undefined) return subscriber.error(new LocalError('ProtocolViolation', `The handler of ${method} completed without a result`));
      subscriber.next({ type: 'result', result: held.value as JsonObject });
      subscriber.complete();
    },
  });
}

function emitProgress(subscriber: EventSink, update: unknown): void {
  const report = normaliseProgress(update);
  if (report !== undefined) subscriber.next({ type: 'progress', ...report });
}

/**
 * The context the raw handler gets at the end of a chain: the request's own context, with the `_meta` the chain
 * passed on, progress that flows through the chain, and a signal that also aborts when the chain lets go.
 */
class InterceptedContext implements RequestContext, EventSink {
  /** The handler's Observable (or Effect), while the chain listens. */
  feeding: Subscription | undefined;
  private controller: AbortController | undefined;
  private removeLink: (() => void) | undefined;
  private released = false;
  /** The handler's outcome went into the chain. */
  private ended = false;

  constructor(
    private readonly base: RequestContext,
    private readonly params: JsonObject | undefined,
    private readonly sink: Subscriber<RequestEvent>,
  ) {}

  get id(): RequestId {
    return this.base.id;
  }

  get method(): string {
    return this.base.method;
  }

  get meta(): JsonObject | undefined {
    const meta = this.params?.['_meta'];
    return typeof meta === 'object' && meta !== null ? (meta as JsonObject) : undefined;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = (this.controller = new AbortController());
      if (this.released) controller.abort(released());
      else this.removeLink = onAbort(this.base.signal, (reason) => controller.abort(reason));
    }
    return this.controller.signal;
  }

  get shutdown(): AbortSignal {
    return this.base.shutdown ?? neverAborted;
  }

  get session(): SessionView {
    return this.base.session;
  }

  get auth(): AuthInfo | undefined {
    return this.base.auth;
  }

  get modern(): ModernRequest | undefined {
    return this.base.modern;
  }

  progress(update: ProgressUpdate): void {
    if (this.released) return;
    const report = normaliseProgress(update);
    if (report === undefined) {
      // Passed on as is: the actor reports the malformed value as it would without interceptors.
      this.base.progress(update);
      return;
    }
    this.sink.next({ type: 'progress', ...report } satisfies ProgressEvent);
  }

  next(event: RequestEvent): void {
    this.sink.next(event);
  }

  error(error: unknown): void {
    this.ended = true;
    this.sink.error(error);
  }

  complete(): void {
    this.ended = true;
    this.sink.complete();
  }

  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options: RequestOptions = {}): Observable<RequestEvent<R>> {
    return this.base.request$<R>(method, params, this.withSignal(options));
  }

  request<R extends object = JsonObject>(method: string, params?: JsonObject, options: PromiseRequestOptions = {}): Promise<R> {
    return this.base.request<R>(method, params, this.withSignal(options));
  }

  notify(method: string, params?: JsonObject): void {
    this.base.notify(method, params);
  }

  whenWritable(): Promise<void> {
    return this.base.whenWritable();
  }

  /** A modern round's `input_required`: the result of this run of the handler, which stops here. */
  answerEarly(result: JsonObject): void {
    if (this.released || this.ended) return;
    this.next({ type: 'result', result });
    this.complete();
    this.controller?.abort(new LocalError('RequestAborted', `${this.base.method} was answered with input_required`));
  }

  /** The chain let go of the handler (its teardown): its work is aborted unless it had finished. */
  unsubscribe(): void {
    this.feeding?.unsubscribe();
    if (this.released) return;
    this.released = true;
    this.removeLink?.();
    const controller = this.controller;
    if (controller !== undefined && !controller.signal.aborted && !this.ended) controller.abort(released());
  }

  /** Requests made for this one end with the handler's run, like the request's own ones end with the request. */
  private withSignal<O extends RequestOptions>(options: O): O {
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([options.signal, this.signal]);
    return { ...options, signal };
  }
}

/** The shutdown signal of a context whose request cannot outlive a shutdown on its own terms (task runs). */
const neverAborted = new AbortController().signal;

const released = (): LocalError => new LocalError('RequestAborted', 'The request was cancelled before its handler finished');

/**
 * The chain's events as an output the incoming-request actor runs. The chain is subscribed at once: when it
 * finishes within the call, its result (or error) is returned (or thrown) as a plain handler's would be;
 * otherwise an Observable carries what it emitted so far and the rest, and unsubscribing from it lets go of the
 * chain.
 */
function settle(events$: Observable<RequestEvent>): HandlerOutput {
  const bridge = new EventBridge();
  bridge.subscription = events$.subscribe(bridge);
  return bridge.output();
}

type Emitted = { readonly value: unknown };

class EventBridge {
  subscription: Subscription | undefined;
  private buffer: Emitted[] | undefined;
  private ended: { readonly error: unknown } | 'complete' | undefined;
  private target: Subscriber<unknown> | undefined;

  next(event: RequestEvent): void {
    // Progress goes on as `{ progress, total?, message? }`, which the actor can only take for a progress report.
    const value = event.type === 'progress' ? progressUpdate(event) : event.result;
    if (this.target !== undefined) this.target.next(value);
    else (this.buffer ??= []).push({ value });
  }

  error(error: unknown): void {
    if (this.target !== undefined) this.target.error(error);
    else this.ended = { error };
  }

  complete(): void {
    if (this.target !== undefined) this.target.complete();
    else this.ended = 'complete';
  }

  output(): HandlerOutput {
    const ended = this.ended;
    const buffer = this.buffer;
    if (ended !== undefined && (buffer === undefined || buffer.length === 0) && ended !== 'complete') throw ended.error;
    if (ended === 'complete' && buffer?.length === 1) {
      const only = (buffer[0] as Emitted).value;
      if (!looksLikeProgress(only)) return only as JsonObject;
    }
    return new Observable<unknown>((subscriber) => {
      this.buffer = undefined;
      for (const emitted of buffer ?? []) subscriber.next(emitted.value);
      if (ended === 'complete') subscriber.complete();
      else if (ended !== undefined) subscriber.error(ended.error);
      else this.target = subscriber;
      return () => {
        this.target = undefined;
        this.subscription?.unsubscribe();
      };
    }) as Observable<ProgressUpdate | JsonObject>;
  }
}

function progressUpdate(event: ProgressEvent): ProgressUpdate {
  return {
    progress: event.progress,
    ...(event.total === undefined ? {} : { total: event.total }),
    ...(event.message === undefined ? {} : { message: event.message }),
  };
}
