/**
 * The session lifecycle as XState v5 machines, one per role.
 *
 *   server: awaitingInitialize -> awaitingInitialized -> operating -> shuttingDown -> closed   (legacy)
 *           awaitingInitialize -> stateless -> shuttingDown -> closed                         (modern)
 *   client: initializing -> operating -> shuttingDown -> closed
 *
 *   shuttingDown (both roles):
 *     stopping  (the client's handshake failed: new work is refused until the session is closed)
 *        --CLOSE-->
 *     draining  --DRAINED (no request runs any more) | after drainDeadline-->
 *     flushing  --FLUSHED (the writer's queue is empty) | after flushDeadline-->
 *     ending    --ENDED (everything in flight was ended)--> closed
 *   TRANSPORT_CLOSED ends any state but `closed` at once.
 *
 * The era of a server connection is chosen by its first message: `initialize` opens a legacy session, any
 * other request (one carrying a 2026-07-28 envelope) makes the connection stateless for good.
 *
 * A state's tags say what may flow in it; the session reads them on every message, so the rules live in
 * the machine and not in transports or flags. What entering or leaving a state does is declared here too, as
 * named actions (`entry`/`exit`), and so is how long closing may wait, as named `after` delays: the machine says
 * *when* (the revision is announced once the handshake is answered, deferred requests go out and the keepalive
 * starts on entering `operating`, the drain ends at its deadline or when the last request ends, ...); the session
 * says *how*: it supplies the implementation of every action and the length of every delay (from its close
 * options), and the one executor (machines/executor.ts) performs each step's actions and schedules and cancels the
 * delays on the session's injected clock. Where each action is implemented: see `lifecycle` below.
 *
 * Sessions keep only a snapshot and step it with XState's pure `transition()`, which returns the next snapshot
 * and the actions to run without running them: a started actor per session would cost several KiB each, and
 * snapshots of this context-free machine are interned, so an idle session holds a pointer, not a copy.
 */
import { setup, type SnapshotFrom } from 'xstate';
import type { LifecycleTag } from '../core/protocol/lifecycle-tags.ts';
import { type DeclaredActions, type DeclaredDelays, type MachineRunner, executed, machineRunner } from './executor.ts';

export type { LifecycleTag };

export type LifecycleEvent =
  /** Server: `initialize` accepted and answered. Client: unused. */
  | { readonly type: 'INITIALIZE' }
  /** Server: `notifications/initialized` arrived. Client: result accepted and `initialized` sent. */
  | { readonly type: 'INITIALIZED' }
  /** Server: the first message was a modern (2026-07-28) request: no handshake, no session state. */
  | { readonly type: 'MODERN' }
  /** The handshake failed (client: no usable version, error result). */
  | { readonly type: 'HANDSHAKE_FAILED' }
  /** Someone asked the session to end; in-flight work may drain. */
  | { readonly type: 'CLOSE' }
  /** No incoming request runs any more (or there is no time to wait for them): the drain is over. */
  | { readonly type: 'DRAINED' }
  /** The writer handed every queued frame to the transport (or there is no time to wait for it). */
  | { readonly type: 'FLUSHED' }
  /** Everything still in flight was ended: nothing is left to wait for. */
  | { readonly type: 'ENDED' }
  /** The transport is gone: nothing can flow any more. */
  | { readonly type: 'TRANSPORT_CLOSED' };

/** The named delays of closing. The session gives their lengths (its close options); these are the defaults. */
export const lifecycleDelayDefaults = {
  /** How long running requests may go on once the session is closed (`CloseOptions.drainMs`). */
  drainDeadline: 0,
  /** How long queued frames may take to reach the transport (`CloseOptions.flushMs`). */
  flushDeadline: 1_000,
} as const;

const performed = executed<undefined>('the session lifecycle');

/**
 * The effects of entering and leaving states, declared here and performed by the executor (machines/executor.ts)
 * with the session's implementations: every one is a method of the same name of SessionCore
 * (session/session-core.ts, "lifecycle actions"); the closing ones hand over to session/session-closing.ts
 * (`awaitDrain`, `answerUnfinished`, `awaitFlush`, `endInFlight`). The session's map is checked against these
 * declarations by type (`ActionImplementations<LifecycleAction>`).
 */
const lifecycle = setup({
  types: { events: {} as LifecycleEvent, tags: {} as LifecycleTag },
  actions: {
    /** Server: the handshake was answered; the transport hears the negotiated revision. */
    announceRevision: performed,
    /** Our own requests that waited for the handshake go out now. */
    releaseDeferred: performed,
    /** Pinging the peer starts (when the session was given keepalive options). */
    startKeepalive: performed,
    stopKeepalive: performed,
    /** Running incoming requests are told the session shuts down (their `shutdown` signal). */
    signalShutdown: performed,
    /** DRAINED at once when no request runs or no drain time was given, else when the last one ends. */
    awaitDrain: performed,
    /** Requests still running when the drain is over get their one answer: an error naming the deadline. */
    answerUnfinished: performed,
    /** FLUSHED at once when the writer holds nothing (or may not wait), else when its queue empties. */
    awaitFlush: performed,
    /** Running handlers are aborted and awaited answers fail; then ENDED. */
    endInFlight: performed,
    /** Nothing flows any more: the writer's queue goes, observers complete, `closed` settles. */
    release: performed,
  },
  delays: lifecycleDelayDefaults,
});

const toClose = { CLOSE: 'shuttingDown.draining', TRANSPORT_CLOSED: 'closed' } as const;

const operating = {
  tags: ['admit-ping', 'admit-inbound', 'admit-outbound', 'writable'] as LifecycleTag[],
  entry: ['releaseDeferred', 'startKeepalive'],
  exit: ['stopKeepalive'],
  on: toClose,
} as const;

const shuttingDown = {
  tags: ['draining', 'writable'] as LifecycleTag[],
  entry: ['signalShutdown'],
  initial: 'stopping',
  states: {
    stopping: { on: { CLOSE: 'draining' } },
    draining: {
      entry: ['awaitDrain'],
      after: { drainDeadline: 'flushing' },
      on: { DRAINED: 'flushing' },
    },
    flushing: {
      entry: ['answerUnfinished', 'awaitFlush'],
      after: { flushDeadline: 'ending' },
      on: { FLUSHED: 'ending' },
    },
    ending: {
      entry: ['endInFlight'],
      on: { ENDED: 'ended' },
    },
    ended: { type: 'final' },
  },
  onDone: 'closed',
  on: { TRANSPORT_CLOSED: 'closed' },
} as const;

const closed = { type: 'final', tags: ['closed'] as LifecycleTag[], entry: ['release'] } as const;

export const serverLifecycleMachine = lifecycle.createMachine({
  id: 'mcp-server-session',
  initial: 'awaitingInitialize',
  states: {
    awaitingInitialize: {
      tags: ['admit-ping', 'admit-handshake', 'writable'],
      on: { INITIALIZE: 'awaitingInitialized', MODERN: 'stateless', ...toClose },
    },
    stateless: {
      tags: ['admit-modern', 'writable'],
      on: toClose,
    },
    awaitingInitialized: {
      tags: ['admit-ping', 'admit-inbound', 'defer-outbound', 'writable'],
      entry: ['announceRevision'],
      on: { INITIALIZED: 'operating', ...toClose },
    },
    operating,
    shuttingDown,
    closed,
  },
});

export const clientLifecycleMachine = lifecycle.createMachine({
  id: 'mcp-client-session',
  initial: 'initializing',
  states: {
    initializing: {
      tags: ['admit-ping', 'admit-handshake', 'writable'],
      on: { INITIALIZED: 'operating', HANDSHAKE_FAILED: 'shuttingDown', ...toClose },
    },
    operating,
    shuttingDown,
    closed,
  },
});

export type LifecycleMachine = typeof serverLifecycleMachine | typeof clientLifecycleMachine;
/** The declared actions (`{ type, params }`), read from the machine itself. */
export type LifecycleAction = DeclaredActions<typeof serverLifecycleMachine>;
export type LifecycleActionName = LifecycleAction['type'];
/** The declared delays, read from the machine itself. */
export type LifecycleDelay = DeclaredDelays<typeof serverLifecycleMachine>;
export type LifecycleSnapshot = SnapshotFrom<typeof serverLifecycleMachine> | SnapshotFrom<typeof clientLifecycleMachine>;
export type LifecycleRunner = MachineRunner<LifecycleSnapshot, LifecycleAction, LifecycleDelay, LifecycleEvent>;

const runners = new WeakMap<LifecycleMachine, LifecycleRunner>();

/** The machine's runner (memoised steps, the executor), made once per machine. */
export function lifecycleRunner(machine: LifecycleMachine): LifecycleRunner {
  let runner = runners.get(machine);
  if (runner === undefined) {
    runner = machineRunner<LifecycleSnapshot, LifecycleAction, LifecycleDelay, LifecycleEvent>(machine);
    runners.set(machine, runner);
  }
  return runner;
}

/** One step: the state after it, and the declared actions it implies, in XState's order (exits, then entries). */
export interface LifecycleStep {
  readonly snapshot: LifecycleSnapshot;
  readonly actions: readonly LifecycleActionName[];
}

const NO_ACTIONS: readonly LifecycleActionName[] = Object.freeze([]);
const described = new WeakMap<object, LifecycleStep>();

export function initialLifecycle(machine: LifecycleMachine): LifecycleSnapshot {
  return lifecycleRunner(machine).initial;
}

/**
 * Steps the lifecycle purely and says which declared actions the step implies (the delays it schedules and
 * cancels are left out). An event the state does not accept leaves it unchanged (the same object) with no actions.
 */
export function lifecycleStep(machine: LifecycleMachine, snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleStep {
  const step = lifecycleRunner(machine).step(snapshot, event);
  let known = described.get(step);
  if (known === undefined) {
    const names = step.ops.flatMap((op) => (op.kind === 'perform' ? [op.name as LifecycleActionName] : []));
    known = { snapshot: step.snapshot, actions: names.length === 0 ? NO_ACTIONS : Object.freeze(names) };
    described.set(step, known);
  }
  return known;
}

/** Steps the lifecycle (the state only); see {@link lifecycleStep}. */
export function stepLifecycle(machine: LifecycleMachine, snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleSnapshot {
  return lifecycleRunner(machine).step(snapshot, event).snapshot;
}

export type LifecycleState = 'awaitingInitialize' | 'awaitingInitialized' | 'initializing' | 'operating' | 'stateless' | 'shuttingDown' | 'closed';

/** The top-level state (what `session.state` says): the phase of shutting down is the machine's own. */
export function lifecycleState(snapshot: LifecycleSnapshot): LifecycleState {
  const value = snapshot.value;
  return (typeof value === 'string' ? value : Object.keys(value)[0]) as LifecycleState;
}
