/**
 * The legacy-era session lifecycle as XState v5 machines, one per role.
 *
 *   server: awaitingInitialize -> awaitingInitialized -> operating -> shuttingDown -> closed   (legacy)
 *           awaitingInitialize -> stateless -> shuttingDown -> closed                         (modern)
 *   client: initializing -> operating -> shuttingDown -> closed
 *
 * The era of a server connection is chosen by its first message: `initialize` opens a legacy session, any
 * other request (one carrying a 2026-07-28 envelope) makes the connection stateless for good.
 *
 * A state's tags say what may flow in it; the session reads them on every message, so the rules live in
 * the machine and not in transports or flags. What entering or leaving a state does is declared here too, as
 * named actions (`entry`/`exit`): the machine says *when* (the revision is announced once the handshake is
 * answered, deferred requests go out and the keepalive starts on entering `operating`, ...); the session says
 * *how* (session/lifecycle-effects.ts runs each name).
 *
 * Sessions keep only a snapshot and step it with XState's pure `transition()`, which returns the next snapshot
 * and the actions to run without running them: a started actor per session would cost several KiB each, and
 * snapshots of this context-free machine are interned, so an idle session holds a pointer, not a copy.
 */
import { initialTransition, setup, transition, type SnapshotFrom } from 'xstate';
import type { LifecycleTag } from '../core/protocol/lifecycle-tags.ts';

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
  /** Draining finished. */
  | { readonly type: 'DRAINED' }
  /** The transport is gone: nothing can flow any more. */
  | { readonly type: 'TRANSPORT_CLOSED' };

/**
 * The effects of entering and leaving states. The machine only names them; XState's `transition()` hands the
 * names back with each step and the session performs them (session/lifecycle-effects.ts), so the machine stays
 * free of sessions and a step stays a pure, memoisable function of (state, event type).
 */
export type LifecycleAction =
  /** Server: the handshake was answered; the transport hears the negotiated revision. */
  | 'announceRevision'
  /** Our own requests that waited for the handshake go out now. */
  | 'releaseDeferred'
  /** Pinging the peer starts (when the session was given keepalive options). */
  | 'startKeepalive'
  | 'stopKeepalive'
  /** Running incoming requests are told the session shuts down (their `shutdown` signal). */
  | 'signalShutdown'
  /** Nothing flows any more: the writer's queue goes, observers complete, `closed` settles. */
  | 'release';

/** Performed by the session, never by XState: these bodies are placeholders that declare the names. */
const declared = (): void => undefined;

const lifecycle = setup({
  types: { events: {} as LifecycleEvent, tags: {} as LifecycleTag },
  actions: {
    announceRevision: declared,
    releaseDeferred: declared,
    startKeepalive: declared,
    stopKeepalive: declared,
    signalShutdown: declared,
    release: declared,
  } satisfies Record<LifecycleAction, () => void>,
});

const operating = {
  tags: ['admit-ping', 'admit-inbound', 'admit-outbound', 'writable'] as LifecycleTag[],
  entry: ['releaseDeferred', 'startKeepalive'],
  exit: ['stopKeepalive'],
  on: { CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
} as const;

const shuttingDown = {
  tags: ['draining', 'writable'] as LifecycleTag[],
  entry: ['signalShutdown'],
  on: { DRAINED: 'closed', TRANSPORT_CLOSED: 'closed' },
} as const;

const closed = { type: 'final', tags: ['closed'] as LifecycleTag[], entry: ['release'] } as const;

export const serverLifecycleMachine = lifecycle.createMachine({
  id: 'mcp-server-session',
  initial: 'awaitingInitialize',
  states: {
    awaitingInitialize: {
      tags: ['admit-ping', 'admit-handshake', 'writable'],
      on: { INITIALIZE: 'awaitingInitialized', MODERN: 'stateless', CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
    },
    stateless: {
      tags: ['admit-modern', 'writable'],
      on: { CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
    },
    awaitingInitialized: {
      tags: ['admit-ping', 'admit-inbound', 'defer-outbound', 'writable'],
      entry: ['announceRevision'],
      on: { INITIALIZED: 'operating', CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
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
      on: { INITIALIZED: 'operating', HANDSHAKE_FAILED: 'shuttingDown', CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
    },
    operating,
    shuttingDown,
    closed,
  },
});

export type LifecycleMachine = typeof serverLifecycleMachine | typeof clientLifecycleMachine;
export type LifecycleSnapshot = SnapshotFrom<typeof serverLifecycleMachine> | SnapshotFrom<typeof clientLifecycleMachine>;

/** One step: the state after it, and the declared actions it implies, in XState's order (exits, then entries). */
export interface LifecycleStep {
  readonly snapshot: LifecycleSnapshot;
  readonly actions: readonly LifecycleAction[];
}

const NO_ACTIONS: readonly LifecycleAction[] = Object.freeze([]);

/**
 * The machines have no context and no guards, and their actions are names, so a step depends only on
 * (state, event type). XState computes each one once; the result is memoised, and equal states share one
 * snapshot object (and one frozen action list).
 */
interface MachineMemo {
  readonly initial: LifecycleSnapshot;
  readonly steps: Map<LifecycleSnapshot, Map<LifecycleEvent['type'], LifecycleStep>>;
  readonly byState: Map<string, LifecycleSnapshot>;
}

const memos = new WeakMap<LifecycleMachine, MachineMemo>();

function memoOf(machine: LifecycleMachine): MachineMemo {
  let memo = memos.get(machine);
  if (memo === undefined) {
    // The initial states declare no entry actions: nothing to run when a session starts.
    const [initial] = initialTransition(machine as typeof serverLifecycleMachine);
    memo = { initial, steps: new Map(), byState: new Map([[String(initial.value), initial]]) };
    memos.set(machine, memo);
  }
  return memo;
}

export function initialLifecycle(machine: LifecycleMachine): LifecycleSnapshot {
  return memoOf(machine).initial;
}

/**
 * Steps the lifecycle and says which declared actions the step implies. An event the state does not accept
 * leaves it unchanged (the same object) with no actions.
 */
export function lifecycleStep(machine: LifecycleMachine, snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleStep {
  const memo = memoOf(machine);
  let fromHere = memo.steps.get(snapshot);
  if (fromHere === undefined) memo.steps.set(snapshot, (fromHere = new Map()));
  const known = fromHere.get(event.type);
  if (known !== undefined) return known;
  const [computed, executable] = transition(machine as typeof serverLifecycleMachine, snapshot as SnapshotFrom<typeof serverLifecycleMachine>, event);
  const key = String(computed.value);
  const canonical = key === String(snapshot.value) ? snapshot : (memo.byState.get(key) ?? computed);
  memo.byState.set(key, canonical);
  const actions = canonical === snapshot || executable.length === 0
    ? NO_ACTIONS
    : Object.freeze(executable.map((action) => action.type as LifecycleAction));
  const step: LifecycleStep = { snapshot: canonical, actions };
  fromHere.set(event.type, step);
  return step;
}

/** Steps the lifecycle (the state only); see {@link lifecycleStep}. */
export function stepLifecycle(machine: LifecycleMachine, snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleSnapshot {
  return lifecycleStep(machine, snapshot, event).snapshot;
}

export type LifecycleState = 'awaitingInitialize' | 'awaitingInitialized' | 'initializing' | 'operating' | 'stateless' | 'shuttingDown' | 'closed';

export function lifecycleState(snapshot: LifecycleSnapshot): LifecycleState {
  return snapshot.value as LifecycleState;
}
