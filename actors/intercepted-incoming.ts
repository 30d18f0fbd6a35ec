/**
 * A request handler behind a chain of interceptors. The wrapped handler is built once per method when `use` is
 * called; per request it makes the request object, runs the chain, and gives the incoming-request actor the
 * chain's outcome as the request's events.
 *
 * At the end of the chain the raw handler runs with a context of its own: its output is normalised into events
 * (normalise-output.ts) and handed to the chain in the interceptors' shape (`RequestEvent`: progress, then one
 * result, or an error), its progress reports become events of the chain (so interceptors can map or drop them),
 * its `_meta` is the one the chain passed on, and its signal aborts when the chain stops listening (a
 * cancellation, or an interceptor's timeout or short-circuit). What comes out of the chain is typed already: its
 * result stays a result, whatever its keys. A chain that finishes synchronously is answered synchronously, as a
 * plain handler's value would be.
 */
import { Observable, type Subscriber, type Subscription, type TeardownLogic, isObservable } from 'rxjs';
import { onAbort } from '../core/abort.ts';
import type { AuthInfo } from '../core/auth.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';
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
import { EventStream, eventsInto, normaliseOutput, withoutResult } from './normalise-output.ts';
import { normaliseProgress } from './progress.ts';
import { type FinalEvent, type HandlerEvent, type ProgressEvent, type ResultEvent, errorEvent, isFinal, resultEvent } from './request-events.ts';

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
    if (runner.untouched(events$, params)) return runner.runPlain();
    return settle(events$, method);
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
  /** The first run the chain asked for, and the request it was asked with (see {@link untouched}). */
  private first: Observable<RequestEvent> | undefined;
  private firstRequest: InterceptedRequest | undefined;

  constructor(
    private readonly handler: RequestHandler,
    private readonly context: RequestContext,
  ) {}

  signal(): AbortSignal {
    return this.context.signal;
  }

  /** One run of the raw handler, as the Observable of its events in the interceptors' shape. */
  run(request: InterceptedRequest): Observable<RequestEvent> {
    const run$ = new Observable<RequestEvent>((subscriber) => this.start(request, subscriber));
    if (this.first === undefined) {
      this.first = run$;
      this.firstRequest = request;
    }
    return run$;
  }

  /** Whether the chain gave back its first run as it is, asked with the params the request came with. */
  untouched(events$: Observable<RequestEvent>, params: JsonObject | undefined): boolean {
    const request = this.firstRequest;
    return events$ === this.first && request !== undefined && request.params === params && finalParams(request) === params;
  }

  /** Runs the handler with the request's own context, its output unadapted (nothing was composed over it). */
  runPlain(): HandlerOutput {
    return this.handler((this.firstRequest as InterceptedRequest).params, this.context);
  }

  private start(request: InterceptedRequest, subscriber: Subscriber<RequestEvent>): TeardownLogic {
    const params = finalParams(request);
    const context = new InterceptedContext(this.context, params, subscriber);
    // A modern round that needs input ends the request with `input_required`: that answer is this round's result.
    const inputs = this.context.modern?.inputs;
    if (inputs instanceof RequestInputRound) inputs.divert((result) => context.answerEarly(result));
    let events: ResultEvent | Observable<HandlerEvent>;
    try {
      events = normaliseOutput(this.handler(params, context), context);
    } catch (error) {
      context.onEvent(errorEvent(error));
      return undefined;
    }
    if (!isObservable(events)) context.onEvent(events);
    else {
      const feeding = events.subscribe(eventsInto(context));
      // The chain let go while the handler's events were being subscribed to: they stop now.
      if (context.isReleased) feeding.unsubscribe();
      else context.feeding = feeding;
    }
    return context;
  }
}

/**
 * The context the raw handler gets at the end of a chain: the request's own context, with the `_meta` the chain
 * passed on, progress that flows through the chain, and a signal that also aborts when the chain lets go.
 */
class InterceptedContext implements RequestContext {
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

  /**
   * One event of the handler's, into the chain in the interceptors' shape: progress as it is, the final event as
   * the result (a modern round's `input_required` answer included) or the error. A log message is not the
   * chain's: it goes out on the request.
   */
  onEvent(event: HandlerEvent): void {
    if (this.ended) return;
    switch (event.type) {
      case 'progress':
        return this.sink.next(event);
      case 'log':
        return this.base.notify('notifications/message', event.params);
      case 'error':
        this.ended = true;
        return this.sink.error(event.error);
      case 'input':
      case 'result':
        this.ended = true;
        this.sink.next({ type: 'result', result: event.result });
        return this.sink.complete();
    }
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
    this.onEvent({ type: 'input', result });
    this.controller?.abort(new LocalError('RequestAborted', `${this.base.method} was answered with input_required`));
  }

  get isReleased(): boolean {
    return this.released;
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
 * The chain's outcome as the request's events. The chain is subscribed at once: when it finishes within the call
 * with nothing but its result (or error), that is returned (or thrown) as a plain handler's would be; otherwise the
 * events it emitted so far and the rest are replayed to the actor, and unsubscribing lets go of the chain.
 */
function settle(events$: Observable<RequestEvent>, method: string): HandlerOutput {
  const bridge = new ChainBridge(method);
  const subscription = events$.subscribe(bridge);
  const only = bridge.onlyFinal();
  if (only !== undefined) {
    if (only.type === 'error') throw only.error;
    return only.result as JsonObject;
  }
  return new EventStream(new Observable<HandlerEvent>((subscriber) => bridge.attach(subscriber, subscription)));
}

/** The chain's events (the interceptors' shape) back into the request's, kept until the actor subscribes. */
class ChainBridge {
  private buffer: HandlerEvent[] = [];
  private final: FinalEvent | undefined;
  private target: Subscriber<HandlerEvent> | undefined;

  constructor(private readonly method: string) {}

  next(event: RequestEvent): void {
    // What follows the result (an interceptor that emits twice) is not the request's any more.
    if (this.final === undefined) this.push(event.type === 'progress' ? event : resultEvent(event.result));
  }

  error(error: unknown): void {
    if (this.final === undefined) this.push(errorEvent(error));
  }

  complete(): void {
    if (this.final === undefined) this.push(withoutResult(this.method));
  }

  /** The final event, when the chain finished at once with nothing before it. */
  onlyFinal(): FinalEvent | undefined {
    return this.buffer.length === 1 ? this.final : undefined;
  }

  attach(subscriber: Subscriber<HandlerEvent>, subscription: Subscription): TeardownLogic {
    const buffer = this.buffer;
    this.buffer = [];
    for (const event of buffer) subscriber.next(event);
    if (this.final !== undefined) {
      subscriber.complete();
      return undefined;
    }
    this.target = subscriber;
    return () => {
      this.target = undefined;
      subscription.unsubscribe();
    };
  }

  private push(event: HandlerEvent): void {
    if (isFinal(event)) this.final = event;
    const target = this.target;
    if (target === undefined) {
      this.buffer.push(event);
      return;
    }
    target.next(event);
    if (this.final !== undefined) target.complete();
  }
}
