/**
 * The lifecycle part of a session: its machine snapshot, stepped the lean way (no started actor; memoised pure
 * steps, see machines/session-lifecycle.ts), and the declared actions of each step handed to the session to
 * perform. The tags of the current state are what the actors ask about on every message.
 */
import {
  type LifecycleAction,
  type LifecycleEvent,
  type LifecycleMachine,
  type LifecycleSnapshot,
  type LifecycleState,
  type LifecycleTag,
  initialLifecycle,
  lifecycleState,
  lifecycleStep,
} from '../machines/session-lifecycle.ts';

/** What the session does for each action its machine declares, and how it hears of a new state. */
export type LifecycleEffects = { readonly [action in LifecycleAction]: () => void } & {
  /** Runs before the step's actions, so observers see the new state before its effects. */
  stateChanged(state: LifecycleState): void;
};

export class LifecycleStepper {
  private snapshot: LifecycleSnapshot;

  constructor(
    private readonly machine: LifecycleMachine,
    private readonly effects: LifecycleEffects,
  ) {
    this.snapshot = initialLifecycle(machine);
  }

  get state(): LifecycleState {
    return lifecycleState(this.snapshot);
  }

  admits(tag: LifecycleTag): boolean {
    return this.snapshot.hasTag(tag);
  }

  /** Steps the machine; when the state changed, performs the actions the machine declares for the step. */
  step(event: LifecycleEvent): void {
    const before = this.snapshot;
    const { snapshot, actions } = lifecycleStep(this.machine, before, event);
    if (snapshot === before) return;
    this.snapshot = snapshot;
    const effects = this.effects;
    effects.stateChanged(lifecycleState(snapshot));
    for (const action of actions) effects[action]();
  }
}
