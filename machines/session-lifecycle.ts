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
 * the machine and not in transports or flags. Sessions keep only a snapshot and step it with XState's pure
 * `transition()`: a started actor per session would cost several KiB each, and snapshots of this
 * context-free machine are interned, so an idle session holds a pointer, not a copy.
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

const lifecycle = setup({
  types: { events: {} as LifecycleEvent, tags: {} as LifecycleTag },
});

const shuttingDown = {
  tags: ['draining', 'writable'] as LifecycleTag[],
  on: { DRAINED: 'closed', TRANSPORT_CLOSED: 'closed' },
} as const;

const closed = { type: 'final', tags: ['closed'] as LifecycleTag[] } as const;

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
      on: { INITIALIZED: 'operating', CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
    },
    operating: {
      tags: ['admit-ping', 'admit-inbound', 'admit-outbound', 'writable'],
      on: { CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
    },
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
    operating: {
      tags: ['admit-ping', 'admit-inbound', 'admit-outbound', 'writable'],
      on: { CLOSE: 'shuttingDown', TRANSPORT_CLOSED: 'closed' },
    },
    shuttingDown,
    closed,
  },
});

export type LifecycleMachine = typeof serverLifecycleMachine | typeof clientLifecycleMachine;
export type LifecycleSnapshot = SnapshotFrom<typeof serverLifecycleMachine> | SnapshotFrom<typeof clientLifecycleMachine>;

/**
 * The machines have no context, guards or actions, so a transition depends only on (state, event type).
 * XState computes each one once; the result is memoised, and equal states share one snapshot object.
 */
interface MachineMemo {
  readonly initial: LifecycleSnapshot;
  readonly steps: Map<LifecycleSnapshot, Map<LifecycleEvent['type'], LifecycleSnapshot>>;
  readonly byState: Map<string, LifecycleSnapshot>;
}

const memos = new WeakMap<LifecycleMachine, MachineMemo>();

function memoOf(machine: LifecycleMachine): MachineMemo {
  let memo = memos.get(machine);
  if (memo === undefined) {
    const [initial] = initialTransition(machine as typeof serverLifecycleMachine);
    memo = { initial, steps: new Map(), byState: new Map([[String(initial.value), initial]]) };
    memos.set(machine, memo);
  }
  return memo;
}

export function initialLifecycle(machine: LifecycleMachine): LifecycleSnapshot {
  return memoOf(machine).initial;
}

/** Steps the lifecycle; an event the state does not accept leaves it unchanged (the same object). */
export function stepLifecycle(machine: LifecycleMachine, snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleSnapshot {
  const memo = memoOf(machine);
  let fromHere = memo.steps.get(snapshot);
  if (fromHere === undefined) memo.steps.set(snapshot, (fromHere = new Map()));
  const known = fromHere.get(event.type);
  if (known !== undefined) return known;
  const [computed] = transition(machine as typeof serverLifecycleMachine, snapshot as SnapshotFrom<typeof serverLifecycleMachine>, event);
  const key = String(computed.value);
  const canonical = key === String(snapshot.value) ? snapshot : (memo.byState.get(key) ?? computed);
  memo.byState.set(key, canonical);
  fromHere.set(event.type, canonical);
  return canonical;
}

export type LifecycleState = 'awaitingInitialize' | 'awaitingInitialized' | 'initializing' | 'operating' | 'stateless' | 'shuttingDown' | 'closed';

export function lifecycleState(snapshot: LifecycleSnapshot): LifecycleState {
  return snapshot.value as LifecycleState;
}
