/**
 * The one place that reads what a handler returned and turns it into the request's events (request-events.ts):
 *
 * - a plain value is the result, at once: no Observable is made for it (the synchronous fast path);
 * - a Promise or an Effect is one value, so its value is the result (an Effect's fiber is interrupted when the
 *   events are unsubscribed);
 * - a stream (an Observable or an async iterable) is decided by position: a number or a `progress(...)` report is
 *   progress and goes out at once; any other value is held until the next value or the end, and is progress if
 *   another value follows it, the result if it is the last. An async generator's `return` value counts as its
 *   last value. What a value holds (its keys) is never looked at;
 * - an {@link EventStream} (what rxmcp's own layers return: features, interceptors) already is events.
 *
 * A stream of events never errors: a failure is its final `error` event. Unsubscribing stops the work (the
 * Observable's subscription, the Effect's fiber, the iterator's `return`).
 */
import { Observable, type Observer, type Subscriber, type Subscription, isObservable } from 'rxjs';
import { isEffect, runEffect } from '../core/abort.ts';
import type { EffectLike } from '../core/effect-like.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { isThenable } from '../core/thenable.ts';
import type { ProgressUpdate } from './handler-types.ts';
import { type Progress, isProgressValue, normaliseProgress, progress } from './progress.ts';
import { type ErrorEvent, type FinalEvent, type HandlerEvent, type ProgressEvent, type ResultEvent, errorEvent, isFinal, resultEvent } from './request-events.ts';

/** The request an output belongs to: its method names it in errors, and it reports a held value that is no usable progress. */
export interface OutputOwner {
  readonly method: string;
  /** Receives a value that stood before the last one but is not a usable progress report (it reports or drops it). */
  progress(update: ProgressUpdate): void;
}

/**
 * An output that already is a request's events, as rxmcp's own layers return it. To anyone who subscribes to it
 * as a handler's Observable, it is one: `progress(...)` reports, then the result (or its error).
 */
export class EventStream<R = JsonObject> extends Observable<Progress | R> {
  constructor(readonly events$: Observable<HandlerEvent<R>>) {
    super((subscriber) => events$.subscribe(new AsValues<R>(subscriber)));
  }
}

/** A handler's output as events: the result itself when it is already there, else the Observable of its events. */
export function normaliseOutput<R = JsonObject>(output: unknown, owner: OutputOwner): ResultEvent<R> | Observable<HandlerEvent<R>> {
  if ((typeof output !== 'object' && typeof output !== 'function') || output === null) return resultEvent(output as R);
  if (output instanceof EventStream) return (output as EventStream<R>).events$;
  if (isObservable(output)) return fromStream<R>(output, owner);
  if (isThenable(output)) return fromPromise<R>(output);
  if (isEffect(output)) return fromEffect<R>(output);
  if (isAsyncIterable(output)) return fromAsyncIterable<R>(output, owner);
  return resultEvent(output as R);
}

/** Whether an output is still to come (anything but a plain value). */
export function isDeferred(output: unknown): boolean {
  if ((typeof output !== 'object' && typeof output !== 'function') || output === null) return false;
  return isObservable(output) || isThenable(output) || isEffect(output) || isAsyncIterable(output);
}

/** Work that outlives its request (a task) and follows a handler's output to its end. */
export interface FollowedRun extends OutputOwner {
  notify(method: string, params?: JsonObject): void;
  /** Set once the run ended: events subscribed to meanwhile are stopped at once. */
  readonly finished: boolean;
  /** The handler's events while they run, stopped when the run ends early. */
  teardown: Subscription | undefined;
}

/**
 * Follows an output to its end for a task: progress goes to `run.progress`, the final event to `done` (once; an
 * interrupted Effect ends with none).
 */
export function followOutput(output: unknown, run: FollowedRun, done: (final: FinalEvent<unknown>) => void): void {
  const events = normaliseOutput<unknown>(output, run);
  if (!isObservable(events)) return done(events);
  const subscription = events.subscribe({
    next: (event) => {
      if (event.type === 'progress') run.progress(event);
      else if (event.type === 'log') run.notify('notifications/message', event.params);
      else done(event);
    },
  });
  if (subscription.closed) return;
  // Ended (or aborted) while subscribing: stop now; otherwise an abort stops it later.
  if (run.finished) subscription.unsubscribe();
  else run.teardown = subscription;
}

/** Whoever takes a request's events: the request actor, or the context at the end of an interceptor chain. */
export interface EventTarget {
  readonly method: string;
  /** Gets each event; once it got a final one, it ignores the rest. */
  onEvent(event: HandlerEvent): void;
}

/**
 * The observer that hands a stream of events to `target`. A separate object, not the target itself: the targets
 * are handler contexts, and `next`/`error`/`complete` are not the handler's to call. A stream of events never
 * errors and ends with its final event: an error, or an end without one, still ends the request (once).
 */
export function eventsInto(target: EventTarget): Observer<HandlerEvent> {
  return new EventsInto(target);
}

class EventsInto implements Observer<HandlerEvent> {
  /** A final event went through: the end that follows it is the stream's, not a missing result. */
  private ended = false;

  constructor(private readonly target: EventTarget) {}

  next(event: HandlerEvent): void {
    if (isFinal(event)) this.ended = true;
    this.target.onEvent(event);
  }

  error(error: unknown): void {
    this.ended = true;
    this.target.onEvent(errorEvent(error));
  }

  complete(): void {
    // Only an end without a final event is a violation: its error (a stack trace to capture) is made only then,
    // not once per request that ended well.
    if (!this.ended) this.target.onEvent(withoutResult(this.target.method));
  }
}

function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

function end<R>(subscriber: Subscriber<HandlerEvent<R>>, event: FinalEvent<R>): void {
  subscriber.next(event);
  subscriber.complete();
}

function fromPromise<R>(promise: PromiseLike<unknown>): Observable<HandlerEvent<R>> {
  return new Observable<HandlerEvent<R>>((subscriber) => {
    promise.then(
      (value) => end(subscriber, resultEvent(value as R)),
      (error: unknown) => end(subscriber, errorEvent(error)),
    );
  });
}

function fromEffect<R>(effect: EffectLike<unknown>): Observable<HandlerEvent<R>> {
  return new Observable<HandlerEvent<R>>((subscriber) => {
    const controller = new AbortController();
    runEffect(effect, controller.signal).then(
      (outcome) => {
        if (outcome.type === 'success') end(subscriber, resultEvent(outcome.value as R));
        else if (outcome.type === 'failure') end(subscriber, errorEvent(outcome.error));
        // Interrupted: the events were unsubscribed (the request was cancelled), or the Effect interrupted itself.
      },
      (error: unknown) => end(subscriber, errorEvent(error)),
    );
    return () => controller.abort();
  });
}

function fromStream<R>(output$: Observable<unknown>, owner: OutputOwner): Observable<HandlerEvent<R>> {
  return new Observable<HandlerEvent<R>>((subscriber) => output$.subscribe(new Positional<R>(subscriber, owner)));
}

function fromAsyncIterable<R>(iterable: AsyncIterable<unknown>, owner: OutputOwner): Observable<HandlerEvent<R>> {
  return new Observable<HandlerEvent<R>>((subscriber) => {
    const sink = new Positional<R>(subscriber, owner);
    let iterator: AsyncIterator<unknown>;
    try {
      iterator = iterable[Symbol.asyncIterator]();
    } catch (error) {
      sink.error(error);
      return undefined;
    }
    let active = true;
    const fail = (error: unknown): void => {
      if (!active) return;
      active = false;
      sink.error(error);
    };
    const pull = (): void => {
      let step: Promise<IteratorResult<unknown>>;
      try {
        step = iterator.next();
      } catch (error) {
        return fail(error);
      }
      step.then((result) => {
        if (!active) return;
        if (result.done === true) {
          active = false;
          if (result.value !== undefined) sink.next(result.value);
          return sink.complete();
        }
        sink.next(result.value);
        pull();
      }, fail);
    };
    pull();
    return () => {
      if (!active) return;
      active = false;
      // Ends the generator (its `finally` runs); a failure of that ending concerns nobody any more.
      try {
        void Promise.resolve(iterator.return?.()).catch(noop);
      } catch {
        // Same: a `return` that throws at once is ignored.
      }
    };
  });
}

function noop(): void {}

/** The final event of a stream that ended without a value. */
export function withoutResult(method: string): ErrorEvent {
  return { type: 'error', error: new LocalError('ProtocolViolation', `The handler of ${method} completed without a result`), violation: true };
}

const NONE = Symbol('none');

/** Reads a stream of values by position (see the module comment). */
class Positional<R> {
  private held: unknown = NONE;

  constructor(
    private readonly subscriber: Subscriber<HandlerEvent<R>>,
    private readonly owner: OutputOwner,
  ) {}

  next(value: unknown): void {
    const held = this.held;
    this.held = NONE;
    if (held !== NONE) this.progress(held);
    if (isProgressValue(value)) this.progress(value);
    else this.held = value;
  }

  error(error: unknown): void {
    this.held = NONE;
    end(this.subscriber, errorEvent(error));
  }

  complete(): void {
    const held = this.held;
    this.held = NONE;
    if (held === NONE) return end(this.subscriber, withoutResult(this.owner.method));
    end(this.subscriber, resultEvent(held as R));
  }

  private progress(value: unknown): void {
    const report = normaliseProgress(value);
    if (report === undefined) this.owner.progress(value as ProgressUpdate);
    else this.subscriber.next({ type: 'progress', ...report } satisfies ProgressEvent);
  }
}

/** Events back to a handler's values, for whoever subscribes to an {@link EventStream} as an Observable. */
class AsValues<R> {
  constructor(private readonly subscriber: Subscriber<Progress | R>) {}

  next(event: HandlerEvent<R>): void {
    switch (event.type) {
      case 'progress':
        return this.subscriber.next(progress(event));
      case 'log':
        return undefined;
      case 'error':
        return this.subscriber.error(event.error);
      case 'input':
        this.subscriber.next(event.result as R);
        return this.subscriber.complete();
      case 'result':
        this.subscriber.next(event.result);
        return this.subscriber.complete();
    }
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {
    this.subscriber.complete();
  }
}
