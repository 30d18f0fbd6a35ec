/**
 * Stepping a context-free machine the lean way: no actor, no copy per user. A started XState actor costs
 * several KiB; a request or a task only needs to know which state it is in. For a machine without context,
 * guards or actions a transition depends only on (state, event type), so XState computes each one once, the
 * result is memoised, and every user in the same state holds the same snapshot object. A step is then two
 * map lookups.
 *
 * Only flat machines (a state value is a string) are stepped here; that is all the request round and the task
 * lifecycle need.
 */
import { type AnyMachineSnapshot, type AnyStateMachine, type EventFromLogic, type EventObject, type SnapshotFrom, initialTransition, transition } from 'xstate';

interface Step<S> {
  readonly next: S;
  readonly accepted: boolean;
}

export interface LeanStepper<M extends AnyStateMachine> {
  /** The machine's initial snapshot (one object for everyone). */
  readonly initial: SnapshotFrom<M>;
  /** The snapshot after `event`; an event the state does not accept leaves it unchanged (the same object). */
  step(snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): SnapshotFrom<M>;
  /** Whether the state has a transition for the event (a transition back to itself counts). */
  accepts(snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): boolean;
  /** The one snapshot of a state, by name: for callers that store the state's name instead of the snapshot. */
  at(state: string): SnapshotFrom<M>;
}

export function leanStepper<M extends AnyStateMachine>(machine: M): LeanStepper<M> {
  // Inside, snapshots are seen through XState's machine-snapshot type; the typed view is restored at the edge.
  type S = AnyMachineSnapshot;
  const logic = machine as AnyStateMachine;
  const [initial] = initialTransition(logic) as [S, unknown];
  const byState = new Map<string, S>([[String(initial.value), initial]]);
  const steps = new Map<S, Map<string, Step<S>>>();

  const canonical = (snapshot: S): S => {
    const key = String(snapshot.value);
    const known = byState.get(key);
    if (known !== undefined) return known;
    byState.set(key, snapshot);
    return snapshot;
  };

  const stepOf = (snapshot: S, event: EventObject): Step<S> => {
    let fromHere = steps.get(snapshot);
    if (fromHere === undefined) steps.set(snapshot, (fromHere = new Map()));
    let known = fromHere.get(event.type);
    if (known === undefined) {
      const accepted = snapshot.can(event);
      const computed = accepted ? (transition(logic, snapshot, event)[0] as S) : snapshot;
      known = { next: canonical(computed), accepted };
      fromHere.set(event.type, known);
    }
    return known;
  };

  return {
    initial: initial as SnapshotFrom<M>,
    step: (snapshot, event) => stepOf(snapshot as S, event).next as SnapshotFrom<M>,
    accepts: (snapshot, event) => stepOf(snapshot as S, event).accepted,
    at: (state) => (byState.get(state) ?? canonical(logic.resolveState({ value: state, context: undefined }) as S)) as SnapshotFrom<M>,
  };
}
