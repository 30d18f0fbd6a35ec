/**
 * Follows a handler's outcome, whatever its shape (a value, a Promise, an Observable whose values before the
 * last are progress, an Effect), to one settlement. For work that outlives its request (a task), where the
 * request actor cannot do it: both task features drive their background runs through it.
 */
import { isObservable, type Observable } from 'rxjs';
import { type EffectOutcome, isEffect, runEffect } from '../../core/abort.ts';
import { LocalError } from '../../core/errors.ts';
import { isThenable } from '../../core/thenable.ts';
import type { ProgressUpdate } from '../handler-types.ts';

export type Settled = { readonly type: 'value'; readonly value: unknown } | { readonly type: 'error'; readonly error: unknown };

/** The run a handler's output belongs to. */
export interface FollowedRun {
  readonly signal: AbortSignal;
  /** Set once the run ended: a subscription made meanwhile is dropped at once. */
  readonly finished: boolean;
  /** Stops the output (an Observable subscription) when the run ends early. */
  teardown: (() => void) | undefined;
  progress(update: ProgressUpdate): void;
}

/** Calls `done` once with how `output` ended; an interrupted Effect (the run was cancelled) settles nothing. */
export function followOutput(output: unknown, run: FollowedRun, done: (settled: Settled) => void): void {
  if (isObservable(output)) {
    let held: { value: unknown } | undefined;
    const subscription = (output as Observable<unknown>).subscribe({
      next: (value) => {
        // A value is progress once the next one shows it was not the last.
        if (held !== undefined) run.progress(held.value as ProgressUpdate);
        held = { value };
      },
      error: (error: unknown) => done({ type: 'error', error }),
      complete: () =>
        done(held === undefined ? { type: 'error', error: new LocalError('ProtocolViolation', 'The tool completed without a result') } : { type: 'value', value: held.value }),
    });
    // Ended (or aborted) while subscribing: stop now; otherwise an abort stops it later.
    if (run.finished) subscription.unsubscribe();
    else run.teardown = () => subscription.unsubscribe();
  } else if (isThenable(output)) {
    Promise.resolve(output).then((value) => done({ type: 'value', value }), (error: unknown) => done({ type: 'error', error }));
  } else if (isEffect(output)) {
    runEffect(output as Parameters<typeof runEffect>[0], run.signal).then((outcome: EffectOutcome<unknown>) => {
      if (outcome.type === 'success') done({ type: 'value', value: outcome.value });
      else if (outcome.type === 'failure') done({ type: 'error', error: outcome.error });
    }, (error: unknown) => done({ type: 'error', error }));
  } else {
    done({ type: 'value', value: output });
  }
}
