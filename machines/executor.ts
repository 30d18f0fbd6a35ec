/**
 * The one executor of every machine's actions. The machines are stepped with XState's pure `transition()`, which
 * computes the next snapshot and returns the actions of the step without running them (a started actor per
 * session or per request would cost several KiB each). What those actions do is performed here, for every machine,
 * the same way:
 * - a named action (declared in the machine's `setup({ actions })`, with its params) is dispatched to the host's
 *   implementation of that name (a typed map the host supplies; the machine file says which host implements it);
 * - a delayed raise (an `after` transition: XState enters the state with `xstate.raise` carrying a delay and leaves
 *   it with `xstate.cancel`) is scheduled on the host's injected clock, under its id, and cancelled when the state
 *   is left; the delay's length is the host's value for the delay's declared name (as `machine.provide({ delays })`
 *   would give it, without a copy of the machine per host);
 * - one inspection hook shaped like XState's `inspect` sees every step: `@xstate.event` (every event, taken or
 *   not), `@xstate.snapshot` (a new state), `@xstate.action` (each action, before it runs), with the machine's id
 *   and the host's session id. A host nobody inspects pays one boolean read per step.
 *
 * A machine without context or guards steps as a pure function of (state, event type), so each step is computed
 * once per machine and memoised: equal states share one snapshot object, and the step's actions are kept as a
 * frozen list. A host in a state holds a pointer, not a copy, and a step is two map lookups.
 *
 * Events a host sends itself while its step's actions run (an action that finds there is nothing to wait for) are
 * taken after the step, in order: run to completion, as an XState actor does, so a delay scheduled on entry is
 * always scheduled before an early event can leave the state and cancel it.
 */
import type { AnyMachineSnapshot, AnyStateMachine, EventObject, StateMachine } from 'xstate';
import { initialTransition, transition } from 'xstate';
import type { Clock, TimerHandle } from '../core/clock.ts';

/** One action of a step as the executor performs it. */
export type MachineOp =
  | { readonly kind: 'perform'; readonly name: string; readonly params: unknown }
  | { readonly kind: 'schedule'; readonly id: string; readonly event: EventObject; readonly delay: string }
  | { readonly kind: 'cancel'; readonly id: string };

/** A step, as the memo keeps it: shared by every host taking it. */
export interface MachineStep<S> {
  readonly snapshot: S;
  /** Whether the state accepted the event (a transition back to itself counts). */
  readonly accepted: boolean;
  readonly ops: readonly MachineOp[];
}

/** What the inspection hook is told, shaped like XState's inspection events. */
export type MachineInspection =
  | { readonly type: '@xstate.event'; readonly machineId: string; readonly sessionId: string | undefined; readonly event: EventObject; readonly value: unknown }
  | { readonly type: '@xstate.snapshot'; readonly machineId: string; readonly sessionId: string | undefined; readonly event: EventObject; readonly value: unknown; readonly snapshot: AnyMachineSnapshot }
  | { readonly type: '@xstate.action'; readonly machineId: string; readonly sessionId: string | undefined; readonly event: EventObject; readonly value: unknown; readonly action: { readonly type: string; readonly params: unknown } };

export type MachineInspector = (inspection: MachineInspection) => void;

/**
 * The actions a machine declares (its `setup({ actions })`), as XState types them: a union of `{ type, params }`.
 * Implementation maps are checked against this, so a declared action nobody implements (or an implementation of
 * an action the machine does not declare, or with other params) does not compile.
 */
export type DeclaredActions<M> = M extends StateMachine<any, any, any, any, infer A, any, any, any, any, any, any, any, any, any, any> ? A : never; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The declared delays of a machine (its `setup({ delays })` names). */
export type DeclaredDelays<M> = M extends StateMachine<any, any, any, any, any, any, infer D, any, any, any, any, any, any, any, any> ? D : never; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Declares an action in `setup({ actions })` with its params' type. The body is what a started actor would run;
 * these machines are stepped, never started, so their executor performs the action with the host's implementation,
 * and a started actor that tried is told so instead of doing nothing.
 */
export function executed<P = undefined>(machine: string): (args: unknown, params: P) => void {
  return () => {
    throw new Error(`The actions of ${machine} are performed by machines/executor.ts with its host's implementations; the machine is stepped, not started`);
  };
}

/** The implementation of each declared action: `A` is the machine's union of `{ type, params }`. */
export type ActionImplementations<A extends { readonly type: string; readonly params?: unknown }> = {
  readonly [K in A['type']]: (params: Extract<A, { readonly type: K }>['params']) => void;
};

/** Where a machine runs: the snapshot it is in, what its actions and delays mean there, and who inspects it. */
export interface MachineHost<S, A extends { readonly type: string; readonly params?: unknown }, D extends string = never> {
  /** Where delays are scheduled; a machine without delays needs none. */
  readonly clock: [D] extends [never] ? Clock | undefined : Clock;
  /** The host's snapshot now. */
  machineSnapshot(): S;
  /** Takes the step's snapshot; runs before the step's actions, so they see the new state. */
  enterSnapshot(snapshot: S): void;
  readonly actions: ActionImplementations<A>;
  /** The length of a declared delay, in ms (the host's own value, e.g. from its close options). */
  delayOf(name: D): number;
  /** Delayed events waiting, by id; kept by the executor, undefined while none waits. */
  scheduled: Map<string, TimerHandle> | undefined;
  /** Whether anyone inspects the host now (read once per step: nothing is built for inspection otherwise). */
  readonly inspected: boolean;
  /** The inspection hook: told every step while `inspected`. */
  inspect(inspection: MachineInspection): void;
  /** Names the host's session in inspection events. */
  readonly inspectionId: string | undefined;
}

/** A machine made ready to be stepped purely and executed; made once per machine. */
export interface MachineRunner<S, A extends { readonly type: string; readonly params?: unknown }, D extends string, E extends EventObject> {
  readonly machineId: string;
  readonly initial: S;
  /** The memoised pure step: no action runs. */
  step(snapshot: S, event: E): MachineStep<S>;
  /** The one snapshot of a state, by its value (a stored state name back to its snapshot). */
  at(value: string): S;
  /** Steps the host's machine with `event` and performs what the step declares. */
  run(host: MachineHost<S, A, D>, event: E): void;
}

const NO_OPS: readonly MachineOp[] = Object.freeze([]);

/** A state's key: its value (`"operating"`, `{"shuttingDown":"draining"}`) as one string. */
const keyOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The declared delay name of every `after` event of a machine (XState names the event, not the delay). */
function delayNames(machine: AnyStateMachine): Map<string, string> {
  const names = new Map<string, string>();
  const visit = (node: AnyStateMachine['root']): void => {
    for (const delayed of node.after) if (typeof delayed.delay === 'string') names.set(delayed.eventType, delayed.delay);
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return names;
}

function toOp(action: { readonly type: string; readonly params?: unknown }, delays: ReadonlyMap<string, string>): MachineOp {
  if (action.type === 'xstate.raise') {
    const params = action.params as { readonly event: EventObject; readonly id?: string; readonly delay?: unknown };
    const delay = delays.get(params.event.type);
    if (delay === undefined || params.id === undefined) throw new Error(`Only named 'after' delays are executed: ${params.event.type}`);
    return { kind: 'schedule', id: params.id, event: params.event, delay };
  }
  if (action.type === 'xstate.cancel') return { kind: 'cancel', id: (action.params as { readonly sendId: string }).sendId };
  return { kind: 'perform', name: action.type, params: action.params };
}

// Run to completion per host: the host whose step runs now, and the events it sent itself meanwhile.
let activeHost: object | undefined;
let selfSent: EventObject[] | undefined;

function takeSelfSent(): EventObject | undefined {
  return selfSent?.shift();
}

export function machineRunner<
  S extends AnyMachineSnapshot,
  A extends { readonly type: string; readonly params?: unknown },
  D extends string,
  E extends EventObject,
>(machine: AnyStateMachine): MachineRunner<S, A, D, E> {
  const delays = delayNames(machine);
  const [initialSnapshot] = initialTransition(machine) as [S, unknown];
  const byState = new Map<string, S>([[keyOf(initialSnapshot.value), initialSnapshot]]);
  const steps = new Map<S, Map<string, MachineStep<S>>>();
  const machineId = machine.id;

  const canonical = (snapshot: S): S => {
    const key = keyOf(snapshot.value);
    const known = byState.get(key);
    if (known !== undefined) return known;
    byState.set(key, snapshot);
    return snapshot;
  };

  const step = (snapshot: S, event: E): MachineStep<S> => {
    let fromHere = steps.get(snapshot);
    if (fromHere === undefined) steps.set(snapshot, (fromHere = new Map()));
    let known = fromHere.get(event.type);
    if (known === undefined) {
      const accepted = snapshot.can(event);
      if (!accepted) known = { snapshot, accepted, ops: NO_OPS };
      else {
        const [next, actions] = transition(machine, snapshot, event) as unknown as [S, ReadonlyArray<{ readonly type: string; readonly params?: unknown }>];
        const ops = actions.length === 0 ? NO_OPS : Object.freeze(actions.map((action) => toOp(action, delays)));
        known = { snapshot: canonical(next), accepted, ops };
      }
      fromHere.set(event.type, known);
    }
    return known;
  };

  const perform = (host: MachineHost<S, A, D>, event: E): void => {
    const before = host.machineSnapshot();
    const { snapshot, accepted, ops } = step(before, event);
    const inspected = host.inspected;
    if (inspected) host.inspect({ type: '@xstate.event', machineId, sessionId: host.inspectionId, event, value: before.value });
    if (!accepted) return;
    if (snapshot !== before) {
      host.enterSnapshot(snapshot);
      // Before the step's actions (XState tells it after them): observers see a state before its effects, so a
      // closing session's state$ says `closed` before `release` completes it.
      if (inspected) host.inspect({ type: '@xstate.snapshot', machineId, sessionId: host.inspectionId, event, value: snapshot.value, snapshot });
    }
    for (const op of ops) {
      switch (op.kind) {
        case 'perform': {
          if (inspected) host.inspect({ type: '@xstate.action', machineId, sessionId: host.inspectionId, event, value: snapshot.value, action: { type: op.name, params: op.params } });
          const implementation = (host.actions as Record<string, (params: unknown) => void>)[op.name];
          if (implementation === undefined) throw new Error(`${machineId}: no implementation of the declared action ${op.name}`);
          implementation.call(host.actions, op.params);
          break;
        }
        case 'schedule': {
          const scheduled = (host.scheduled ??= new Map());
          scheduled.get(op.id)?.cancel();
          const fire = op.event as E;
          scheduled.set(op.id, (host.clock as Clock).setTimeout(() => {
            if (host.scheduled?.delete(op.id) === true && host.scheduled.size === 0) host.scheduled = undefined;
            run(host, fire);
          }, host.delayOf(op.delay as D)));
          break;
        }
        case 'cancel': {
          const scheduled = host.scheduled;
          const timer = scheduled?.get(op.id);
          if (scheduled === undefined || timer === undefined) break;
          timer.cancel();
          scheduled.delete(op.id);
          if (scheduled.size === 0) host.scheduled = undefined;
          break;
        }
      }
    }
  };

  const run = (host: MachineHost<S, A, D>, event: E): void => {
    if (activeHost === host) {
      (selfSent ??= []).push(event);
      return;
    }
    const outerHost = activeHost;
    const outerSent = selfSent;
    activeHost = host;
    selfSent = undefined;
    try {
      perform(host, event);
      // The actions may have sent events meanwhile (TypeScript cannot see the assignment made in them).
      for (let next = takeSelfSent(); next !== undefined; next = takeSelfSent()) perform(host, next as E);
    } finally {
      activeHost = outerHost;
      selfSent = outerSent;
    }
  };

  return {
    machineId,
    initial: initialSnapshot,
    step,
    at: (value) => byState.get(value) ?? canonical(machine.resolveState({ value, context: undefined }) as S),
    run,
  };
}

/** The events of a machine's `after` transitions (what its delays raise when they fire), for path tests. */
export function delayedEventsOf(machine: AnyStateMachine): EventObject[] {
  return [...delayNames(machine).keys()].map((type) => ({ type }));
}
