/**
 * The lifecycle part of a session: its machine snapshot, stepped the lean way (no started actor; memoised pure
 * steps, see machines/session-lifecycle.ts), and the declared actions of each step handed to the session to
 * perform. The tags of the current state are what the actors ask about on every message.
 *
 * The session holds the snapshot itself (one field) and steps it here: no stepper object per session. The
 * snapshot knows its machine (XState keeps it on every snapshot), so the session need not hold that either.
 */
import {
  type LifecycleAction,
  type LifecycleEvent,
  type LifecycleMachine,
  type LifecycleSnapshot,
  type LifecycleState,
  lifecycleState,
  lifecycleStep,
} from '../machines/session-lifecycle.ts';

/** What the session does for each action its machine declares, and how it takes a new state. */
export type LifecycleEffects = { readonly [action in LifecycleAction]: () => void } & {
  /**
   * The step moved to `snapshot`: the session stores it and tells observers. Runs before the step's actions, so
   * they see the new state, and observers see it before its effects.
   */
  entered(snapshot: LifecycleSnapshot, state: LifecycleState): void;
};

/** Steps the machine of `before` with `event`; when the state changed, `effects` take it and perform its actions. */
export function runLifecycleStep(before: LifecycleSnapshot, event: LifecycleEvent, effects: LifecycleEffects): void {
  const { snapshot, actions } = lifecycleStep(before.machine as LifecycleMachine, before, event);
  if (snapshot === before) return;
  effects.entered(snapshot, lifecycleState(snapshot));
  for (const action of actions) effects[action]();
}
