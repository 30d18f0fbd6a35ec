/**
 * Finishes the outcome of a feature handler (a tool, a prompt, a resource read, a client's sampling handler)
 * whatever shape it returns: its output becomes the request's events (actors/normalise-output.ts, the one place
 * that decides what is progress and what the result), and the final `result` event is finished (validate
 * structured output, wrap a string into content) or a failure turned into a result (a failed tool is an `isError`
 * result). Progress passes untouched, and the result keeps its tag all the way to the writer.
 */
import { Observable, type Subscriber, type Subscription, isObservable } from 'rxjs';
import type { EffectLike } from '../../core/effect-like.ts';
import { isThenable } from '../../core/thenable.ts';
import type { ProgressUpdate } from '../handler-types.ts';
import { EventStream, type OutputOwner, isDeferred, normaliseOutput } from '../normalise-output.ts';
import { type ErrorEvent, type FinalEvent, type HandlerEvent, errorEvent, resultEvent } from '../request-events.ts';

/**
 * What a feature handler may return: a value, a Promise, an Effect, or a stream (an Observable or an async
 * iterable: progress, then the value; see `progress()`).
 */
export type Output<R> = R | PromiseLike<R> | Observable<ProgressUpdate | R> | AsyncIterable<ProgressUpdate | R> | EffectLike<R>;

/** The outcome finished into a JSON-RPC result: at once, later, or as the request's events. */
export type FinishedOutput<O extends object> = O | PromiseLike<O> | EventStream<O>;

export interface Finishers<I, O extends object> {
  /** Turns the handler's final value into the result; may throw (the request then fails). */
  readonly finish: (value: I) => O | PromiseLike<O>;
  /** Turns a handler failure into a result; without it, failures fail the request. Not called on cancellation. */
  readonly recover?: (error: unknown) => O;
}

/** Whether a handler's outcome is still to come (a stream, a thenable or an Effect), not a plain value. */
export function isDeferredOutput<I>(output: Output<I>): output is Exclude<Output<I>, I> {
  return isDeferred(output);
}

/** Runs `handler` and finishes its outcome; synchronous handlers stay synchronous. */
export function runFinished<I, O extends object>(handler: () => Output<I>, finishers: Finishers<I, O>, owner: OutputOwner): FinishedOutput<O> {
  let output: Output<I>;
  try {
    output = handler();
  } catch (error) {
    if (finishers.recover === undefined) throw error;
    return finishers.recover(error);
  }
  return finishOutput(output, finishers, owner);
}

/**
 * Applies the finishers to a handler's outcome: a plain value is finished at once; otherwise the final `result`
 * event of its events is finished (an `error` event of the handler's recovered, where the finishers recover).
 * Unsubscribing stops the handler's work (its Observable, its Effect's fiber, its iterator).
 */
export function finishOutput<I, O extends object>(output: Output<I>, finishers: Finishers<I, O>, owner: OutputOwner): FinishedOutput<O> {
  const events = normaliseOutput<I>(output, owner);
  if (!isObservable(events)) return finishers.finish(events.result);
  return new EventStream<O>(new Observable<HandlerEvent<O>>((subscriber) => events.subscribe(new Finishing<I, O>(subscriber, finishers))));
}

/** Passes progress and log messages on, and finishes (or recovers) the final event. */
class Finishing<I, O extends object> {
  constructor(
    private readonly subscriber: Subscriber<HandlerEvent<O>>,
    private readonly finishers: Finishers<I, O>,
  ) {}

  next(event: HandlerEvent<I>): void {
    switch (event.type) {
      case 'progress':
      case 'log':
        return this.subscriber.next(event);
      case 'input':
        return this.end(event);
      case 'error':
        return this.recover(event);
      case 'result':
        return this.finish(event.result);
    }
  }

  error(error: unknown): void {
    this.end(errorEvent(error));
  }

  complete(): void {
    this.subscriber.complete();
  }

  private finish(value: I): void {
    let finished: O | PromiseLike<O>;
    try {
      finished = this.finishers.finish(value);
    } catch (error) {
      // A finisher failure fails the request: it is not recovered into a result.
      return this.end(errorEvent(error));
    }
    if (!isThenable(finished)) return this.end(resultEvent(finished));
    finished.then(
      (result) => this.end(resultEvent(result)),
      (error: unknown) => this.end(errorEvent(error)),
    );
  }

  private recover(event: ErrorEvent): void {
    const recover = this.finishers.recover;
    // An output that broke the handler contract (it ended without a result) is no failure of the handler's.
    if (recover === undefined || event.violation === true) return this.end(event);
    let recovered: O;
    try {
      recovered = recover(event.error);
    } catch (unrecoverable) {
      return this.end(errorEvent(unrecoverable));
    }
    this.end(resultEvent(recovered));
  }

  private end(event: FinalEvent<O>): void {
    this.subscriber.next(event);
    this.subscriber.complete();
  }
}

/**
 * Continues after an asynchronous step (an async validation) with a handler whose output may have any shape.
 * The combined outcome is the request's events, so progress and cancellation keep working: unsubscribing before
 * the step ends skips the continuation; afterwards it stops what the continuation returned.
 */
export function continueAfter<T, O extends object>(step: PromiseLike<T>, continuation: (value: T) => FinishedOutput<O>, owner: OutputOwner): EventStream<O> {
  return new EventStream<O>(
    new Observable<HandlerEvent<O>>((subscriber) => {
      let active = true;
      let inner: Subscription | undefined;
      const end = (event: FinalEvent<O>): void => {
        subscriber.next(event);
        subscriber.complete();
      };
      Promise.resolve(step).then(
        (value) => {
          if (!active) return;
          let next: FinishedOutput<O>;
          try {
            next = continuation(value);
          } catch (error) {
            return end(errorEvent(error));
          }
          const events = normaliseOutput<O>(next, owner);
          if (isObservable(events)) inner = events.subscribe(subscriber);
          else end(events);
        },
        (error: unknown) => end(errorEvent(error)),
      );
      return () => {
        active = false;
        inner?.unsubscribe();
      };
    }),
  );
}
