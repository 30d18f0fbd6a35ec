/**
 * Transforms the outcome of a handler whatever shape it returns (value, Promise, Observable, Effect) while
 * leaving progress untouched: feature layers use it to finish a result (validate structured output, wrap a
 * string into content) and to turn failures into results (a failed tool is an `isError` result), without
 * forcing user handlers into one shape.
 */
import { Observable, type Subscriber, isObservable } from 'rxjs';
import { isEffect, runEffect } from '../../core/abort.ts';
import type { EffectLike } from '../../core/effect-like.ts';
import { isThenable } from '../../core/thenable.ts';
import type { ProgressUpdate } from '../handler-types.ts';
import { looksLikeProgress } from '../progress.ts';

/** What a feature handler may return: a value, a Promise, an Observable (progress, then the value) or an Effect. */
export type Output<R> = R | PromiseLike<R> | Observable<ProgressUpdate | R> | EffectLike<R>;

/** The same shapes, finished into a JSON-RPC result; a finished Effect is an Observable of its finished value. */
export type FinishedOutput<O extends object> = O | PromiseLike<O> | Observable<ProgressUpdate | O>;

export interface Finishers<I, O extends object> {
  /** Turns the handler's final value into the result; may throw (the request then fails). */
  readonly finish: (value: I) => O | PromiseLike<O>;
  /** Turns a handler failure into a result; without it, failures fail the request. Not called on cancellation. */
  readonly recover?: (error: unknown) => O;
}

/** Whether a handler's outcome is still to come (an Observable, a thenable or an Effect), not a plain value. */
export function isDeferredOutput<I>(output: Output<I>): output is Exclude<Output<I>, I> {
  return isObservable(output) || isThenable(output) || isEffect(output);
}

/** Runs `handler` and finishes its outcome; synchronous handlers stay synchronous. */
export function runFinished<I, O extends object>(handler: () => Output<I>, finishers: Finishers<I, O>): FinishedOutput<O> {
  let output: Output<I>;
  try {
    output = handler();
  } catch (error) {
    if (finishers.recover === undefined) throw error;
    return finishers.recover(error);
  }
  return finishOutput(output, finishers);
}

/**
 * Applies the finishers to a handler's outcome. For an Observable, the values before the last stay progress
 * reports and only the last is finished. An Effect becomes an Observable that runs it (loading `effect` then)
 * and finishes its value; unsubscribing interrupts the handler's fiber.
 */
export function finishOutput<I, O extends object>(output: Output<I>, finishers: Finishers<I, O>): FinishedOutput<O> {
  const { finish, recover } = finishers;
  if (isObservable(output)) return finishObservable(output, finishers);
  if (isThenable(output)) return Promise.resolve(output).then(finish, recover);
  if (isEffect(output)) return finishEffect(output as EffectLike<I>, finishers);
  return finish(output as I);
}

/** Ends `subscriber` on a handler failure: with the finishers' recovered result where they recover, else the error. */
function failOrRecover<I, O extends object>(subscriber: Pick<Subscriber<O>, 'next' | 'error' | 'complete'>, finishers: Finishers<I, O>, error: unknown): void {
  if (finishers.recover === undefined) return subscriber.error(error);
  let recovered: O;
  try {
    recovered = finishers.recover(error);
  } catch (unrecoverable) {
    return subscriber.error(unrecoverable);
  }
  subscriber.next(recovered);
  subscriber.complete();
}

function finishEffect<I, O extends object>(effect: EffectLike<I>, finishers: Finishers<I, O>): Observable<O> {
  return new Observable<O>((subscriber) => {
    const controller = new AbortController();
    const fail = (error: unknown): void => failOrRecover<I, O>(subscriber, finishers, error);
    runEffect(effect, controller.signal)
      .then((outcome) => {
        if (outcome.type === 'failure') return fail(outcome.error);
        if (outcome.type === 'interrupted') return undefined;
        // A finisher failure fails the request (as for the other shapes), it is not recovered into a result.
        return Promise.resolve()
          .then(() => finishers.finish(outcome.value))
          .then(
            (result) => {
              subscriber.next(result);
              subscriber.complete();
            },
            (error: unknown) => subscriber.error(error),
          );
      })
      .catch(fail);
    return () => controller.abort();
  });
}

function finishObservable<I, O extends object>(output$: Observable<ProgressUpdate | I>, finishers: Finishers<I, O>): Observable<ProgressUpdate | O> {
  return new Observable<ProgressUpdate | O>((subscriber) => {
    let held: { value: unknown } | undefined;
    const fail = (error: unknown): void => failOrRecover<I, O>(subscriber, finishers, error);
    const subscription = output$.subscribe({
      next: (value) => {
        if (held !== undefined) subscriber.next(held.value as ProgressUpdate);
        held = undefined;
        // A progress report (a number, or { progress, total?, message? }) is never the value to finish: pass it on at once. Holding it here too would
        // delay it twice, since the incoming-request actor holds each value until the next one arrives.
        if (looksLikeProgress(value)) subscriber.next(value as ProgressUpdate);
        else held = { value };
      },
      error: fail,
      complete: () => {
        if (held === undefined) return subscriber.complete();
        const last = held.value as I;
        Promise.resolve()
          .then(() => finishers.finish(last))
          .then(
            (result) => {
              subscriber.next(result);
              subscriber.complete();
            },
            (error: unknown) => subscriber.error(error),
          );
      },
    });
    return () => subscription.unsubscribe();
  });
}

/**
 * Continues after an asynchronous step (an async validation) with a handler whose output may have any shape.
 * The combined outcome is an Observable, so progress and cancellation keep working: unsubscribing before
 * the step ends skips the continuation; afterwards it cancels what the continuation returned.
 */
export function continueAfter<T, O extends object>(step: PromiseLike<T>, continuation: (value: T) => FinishedOutput<O>): Observable<ProgressUpdate | O> {
  return new Observable<ProgressUpdate | O>((subscriber) => {
    let active = true;
    let teardown: (() => void) | undefined;
    Promise.resolve(step).then(
      (value) => {
        if (!active) return;
        let next: FinishedOutput<O>;
        try {
          next = continuation(value);
        } catch (error) {
          return subscriber.error(error);
        }
        teardown = forward(next, subscriber);
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => {
      active = false;
      teardown?.();
    };
  });
}

/** Feeds any output shape into a subscriber; returns how to cancel it. */
function forward<O extends object>(output: FinishedOutput<O>, subscriber: Subscriber<ProgressUpdate | O>): () => void {
  if (isObservable(output)) {
    const subscription = output.subscribe(subscriber);
    return () => subscription.unsubscribe();
  }
  if (isThenable(output)) {
    Promise.resolve(output).then(
      (value) => {
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => undefined;
  }
  subscriber.next(output as O);
  subscriber.complete();
  return () => undefined;
}
