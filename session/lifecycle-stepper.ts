/**
 * The lifecycle part of a session: its machine snapshot, stepped the lean way (no started actor; memoised pure
 * steps, see machines/session-lifecycle.ts), and each step's declared actions and delays handed to the one
 * executor (machines/executor.ts), which performs them with the session's implementations and clock. The tags of
 * the current state are what the actors ask about on every message.
 *
 * The session holds the snapshot itself (one field) and is its own executor host: no stepper object per session.
 * The snapshot knows its machine (XState keeps it on every snapshot), so the session need not hold that either.
 */
import type { MachineHost } from '../machines/executor.ts';
import { type LifecycleAction, type LifecycleDelay, type LifecycleEvent, type LifecycleMachine, type LifecycleSnapshot, lifecycleRunner } from '../machines/session-lifecycle.ts';

/** A session as the executor sees it: the machine's snapshot, its action implementations, its delays, its clock. */
export type LifecycleHost = MachineHost<LifecycleSnapshot, LifecycleAction, LifecycleDelay>;

/** Steps the session's lifecycle with `event`; the executor performs what the step declares. */
export function runLifecycleStep(host: LifecycleHost, event: LifecycleEvent): void {
  lifecycleRunner(host.machineSnapshot().machine as LifecycleMachine).run(host, event);
}
