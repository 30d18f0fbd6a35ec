/**
 * The one module that bridges AbortSignal, Observable, Promise and Effect cancellation. Every listener added
 * here is added `{ once: true }` and removed on teardown, so long-lived signals do not accumulate listeners.
 */
import { Effect, Exit, Cause } from 'effect';
import { Observable } from 'rxjs';
import { LocalError } from './errors.ts';

/**
 * Calls `onAbort` when `signal` aborts (at once if it already has). Returns the function that removes the
 * listener; call it when the work ends either way.
 */
export function onAbort(signal: AbortSignal, onAbort: (reason: unknown) => void): () => void {
  if (signal.aborted) {
    onAbort(signal.reason);
    return noop;
  }
  const listener = (): void => onAbort(signal.reason);
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

function noop(): void {}

/** The error a caller sees when it aborted a request itself: never a timeout. */
export function abortedError(reason: unknown): LocalError {
  // An abort caused by the connection closing says so; every other abort is the caller's, whatever the
  // reason object says (a caller aborting with a timeout-looking reason still aborted).
  if (reason instanceof LocalError && (reason.code === 'RequestAborted' || reason.code === 'ConnectionClosed')) return reason;
  return new LocalError('RequestAborted', 'The request was aborted by the caller', { cause: reason });
}

/**
 * Subscribes to `source$` until `signal` aborts; the result Observable errors with `RequestAborted` then.
 * Unsubscribing from the result removes the abort listener.
 */
export function takeUntilAborted<T>(source$: Observable<T>, signal: AbortSignal): Observable<T> {
  return new Observable<T>((subscriber) => {
    const subscription = source$.subscribe(subscriber);
    const remove = onAbort(signal, (reason) => {
      subscription.unsubscribe();
      subscriber.error(abortedError(reason));
    });
    return () => {
      remove();
      subscription.unsubscribe();
    };
  });
}

export function isEffect(value: unknown): value is Effect.Effect<unknown, unknown> {
  return Effect.isEffect(value);
}

/** The outcome of running an Effect under a signal: a value, a failure, or interruption by the signal. */
export type EffectOutcome<A> =
  | { readonly type: 'success'; readonly value: A }
  | { readonly type: 'failure'; readonly error: unknown }
  | { readonly type: 'interrupted' };

/**
 * Runs an Effect that needs no services; aborting `signal` interrupts its fiber (finalizers run).
 */
export async function runEffect<A>(effect: Effect.Effect<A, unknown>, signal: AbortSignal): Promise<EffectOutcome<A>> {
  const exit = await Effect.runPromiseExit(effect, { signal });
  if (Exit.isSuccess(exit)) return { type: 'success', value: exit.value };
  if (Cause.hasInterruptsOnly(exit.cause)) return { type: 'interrupted' };
  return { type: 'failure', error: Cause.squash(exit.cause) };
}
