/**
 * The one module that bridges AbortSignal, Promise and Effect cancellation. Every listener added
 * here is added `{ once: true }` and removed on teardown, so long-lived signals do not accumulate listeners.
 *
 * `effect` is an optional peer: it is loaded on the first Effect a handler returns, never by importing rxmcp.
 */
import type * as CauseModule from 'effect/Cause';
import type * as EffectModule from 'effect/Effect';
import type * as ExitModule from 'effect/Exit';
import { type EffectLike, isEffect } from './effect-like.ts';
import { LocalError } from './errors.ts';

export { isEffect };

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

/** The outcome of running an Effect under a signal: a value, a failure, or interruption by the signal. */
export type EffectOutcome<A> =
  | { readonly type: 'success'; readonly value: A }
  | { readonly type: 'failure'; readonly error: unknown }
  | { readonly type: 'interrupted' };

interface EffectRuntime {
  readonly Effect: typeof EffectModule;
  readonly Exit: typeof ExitModule;
  readonly Cause: typeof CauseModule;
}
let effectRuntime: Promise<EffectRuntime> | undefined;

/**
 * The three modules of `effect` that run an Effect (not its whole index), imported once; a clear error naming
 * the package when it cannot be loaded (a later call tries again).
 */
function loadEffect(): Promise<EffectRuntime> {
  if (effectRuntime === undefined) {
    const loading = importEffect();
    effectRuntime = loading;
    loading.catch(() => {
      if (effectRuntime === loading) effectRuntime = undefined;
    });
  }
  return effectRuntime;
}

async function importEffect(): Promise<EffectRuntime> {
  try {
    // Each import awaited inside `try`: a bundler (esbuild) then bundles effect where it is installed and leaves
    // the import to run time where it is not, instead of failing the build of an app that never uses Effect.
    const Effect = await import('effect/Effect');
    const Exit = await import('effect/Exit');
    const Cause = await import('effect/Cause');
    return { Effect, Exit, Cause };
  } catch (cause) {
    throw new Error('A handler returned an Effect, but the "effect" package could not be loaded: install it beside rxmcp (npm install effect)', { cause });
  }
}

/**
 * Runs an Effect that needs no services; aborting `signal` interrupts its fiber (finalizers run). Loads
 * `effect` on first use.
 */
export async function runEffect<A>(effect: EffectLike<A>, signal: AbortSignal): Promise<EffectOutcome<A>> {
  const { Effect, Exit, Cause } = await loadEffect();
  const exit = await Effect.runPromiseExit(effect as unknown as EffectModule.Effect<A, unknown>, { signal });
  if (Exit.isSuccess(exit)) return { type: 'success', value: exit.value };
  if (Cause.hasInterruptsOnly(exit.cause)) return { type: 'interrupted' };
  return { type: 'failure', error: Cause.squash(exit.cause) };
}
