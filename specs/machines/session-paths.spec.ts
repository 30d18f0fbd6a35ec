/**
 * Every path through the lifecycle machines (enumerated by xstate/graph), checked against the invariants the
 * session relies on through state tags; then real sessions driven along the paths that matter, with their
 * state$ emissions and what they wrote compared to the machine.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getSimplePaths } from 'xstate/graph';
import { isLocalError } from '../../core/errors.ts';
import type { LifecycleTag } from '../../core/protocol/lifecycle-tags.ts';
import { delayedEventsOf } from '../../machines/executor.ts';
import { SessionCore } from '../../session/session-core.ts';
import {
  type LifecycleEvent,
  type LifecycleMachine,
  type LifecycleSnapshot,
  clientLifecycleMachine,
  initialLifecycle,
  lifecycleState,
  serverLifecycleMachine,
  stepLifecycle,
} from '../../machines/session-lifecycle.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { withSchemaOracle } from '../support/schema-oracle.ts';
import { type WireLog, createPair, isRequestFor, rawClient, rawServer, spyTransport, within } from '../support/harness.ts';

const EVENTS: readonly LifecycleEvent[] = [
  { type: 'INITIALIZE' },
  { type: 'INITIALIZED' },
  { type: 'HANDSHAKE_FAILED' },
  { type: 'CLOSE' },
  { type: 'DRAINED' },
  { type: 'FLUSHED' },
  { type: 'ENDED' },
  { type: 'TRANSPORT_CLOSED' },
];

/** The events a machine's closing deadlines raise (its `after` transitions), as the executor delivers them. */
const deadlinesOf = (machine: LifecycleMachine): LifecycleEvent[] => delayedEventsOf(machine) as LifecycleEvent[];

/** What an orderly close takes: the close, the drain and the flush over, everything in flight ended. */
const CLOSING: readonly LifecycleEvent['type'][] = ['CLOSE', 'DRAINED', 'FLUSHED', 'ENDED'];

interface PathState {
  /** The state with its phase (`shuttingDown.flushing`). */
  readonly value: string;
  /** The session's state (`shuttingDown`). */
  readonly state: string;
  readonly tags: ReadonlySet<string>;
  readonly done: boolean;
}

interface Path {
  readonly events: readonly LifecycleEvent['type'][];
  readonly states: readonly PathState[];
}

/** A state value as one name: `operating`, or `shuttingDown.flushing` for a phase of shutting down. */
const phaseOf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([top, sub]) => `${top}.${phaseOf(sub)}`)[0] ?? '');

const toPathState = (snapshot: { readonly value: unknown; readonly tags: Set<string>; readonly status: string }): PathState => ({
  value: phaseOf(snapshot.value),
  state: phaseOf(snapshot.value).split('.')[0] ?? '',
  tags: snapshot.tags,
  done: snapshot.status === 'done',
});

function pathsOf(role: 'server' | 'client'): Path[] {
  const raw = role === 'server'
    ? getSimplePaths(serverLifecycleMachine, { events: [...EVENTS, ...deadlinesOf(serverLifecycleMachine)] })
    : getSimplePaths(clientLifecycleMachine, { events: [...EVENTS, ...deadlinesOf(clientLifecycleMachine)] });
  return raw.map((path) => ({
    // The first step is XState's init event; the lifecycle events follow.
    events: path.steps.slice(1).map((step) => step.event.type),
    states: path.steps.map((step) => toPathState(step.state)),
  }));
}

const ROLES = {
  server: {
    machine: serverLifecycleMachine as LifecycleMachine,
    initial: 'awaitingInitialize',
    // No server path enters shuttingDown.stopping: only a client's failed handshake waits there for its close.
    states: ['awaitingInitialize', 'awaitingInitialized', 'operating', 'shuttingDown.draining', 'shuttingDown.flushing', 'shuttingDown.ending', 'closed'],
  },
  client: {
    machine: clientLifecycleMachine as LifecycleMachine,
    initial: 'initializing',
    states: ['initializing', 'operating', 'shuttingDown.stopping', 'shuttingDown.draining', 'shuttingDown.flushing', 'shuttingDown.ending', 'closed'],
  },
} as const;

const has = (state: PathState, tag: LifecycleTag): boolean => state.tags.has(tag);

function replay(machine: LifecycleMachine, events: readonly LifecycleEvent['type'][]): LifecycleSnapshot {
  let snapshot = initialLifecycle(machine);
  for (const type of events) snapshot = stepLifecycle(machine, snapshot, { type });
  return snapshot;
}

for (const role of ['server', 'client'] as const) {
  const { machine, initial, states: declared } = ROLES[role];
  const paths = pathsOf(role);

  describe(`${role} lifecycle paths`, () => {
    test(`${role} paths - every declared state is reached and every path starts in ${initial}`, () => {
      assert.ok(paths.length > 0);
      const reached = new Set(paths.flatMap((path) => path.states.map((state) => state.value)));
      assert.deepEqual([...reached].sort(), [...declared].sort());
      for (const path of paths) assert.equal(path.states[0]?.value, initial);
    });

    test(`${role} paths - closed is final, tagged only 'closed', and nothing else is final`, () => {
      for (const path of paths) {
        for (const state of path.states) {
          const isClosed = state.value === 'closed';
          assert.equal(state.done, isClosed, `${path.events.join('>')}: ${state.value} done`);
          assert.equal(has(state, 'closed'), isClosed, `${state.value} 'closed' tag`);
          assert.equal(has(state, 'writable'), !isClosed, `${state.value} 'writable' tag`);
          if (isClosed) assert.deepEqual([...state.tags], ['closed']);
        }
        const closedAt = path.states.findIndex((state) => state.value === 'closed');
        if (closedAt >= 0) assert.equal(closedAt, path.states.length - 1, 'nothing follows closed');
      }
    });

    test(`${role} paths - admit-handshake only before the handshake, admit-outbound only in operating`, () => {
      for (const path of paths) {
        const label = path.events.join('>') || '(initial)';
        let leftInitial = false;
        for (const state of path.states) {
          leftInitial ||= state.value !== initial;
          assert.equal(has(state, 'admit-handshake'), !leftInitial, `${label}: ${state.value} admit-handshake`);
          assert.equal(has(state, 'admit-outbound'), state.value === 'operating', `${label}: ${state.value} admit-outbound`);
          assert.equal(has(state, 'defer-outbound'), state.value === 'awaitingInitialized', `${label}: ${state.value} defer-outbound`);
          assert.equal(has(state, 'draining'), state.state === 'shuttingDown', `${label}: ${state.value} draining`);
          if (has(state, 'admit-handshake')) assert.equal(has(state, 'admit-inbound'), false, `${state.value} admits inbound before the handshake`);
          if (has(state, 'draining')) {
            for (const tag of ['admit-ping', 'admit-inbound', 'admit-handshake'] as const) assert.equal(has(state, tag), false, `${state.value} ${tag}`);
          }
        }
      }
    });

    test(`${role} paths - states only move forward`, () => {
      for (const path of paths) {
        const ranks = path.states.map((state) => declared.indexOf(state.value as never));
        assert.ok(ranks.every((rank) => rank >= 0), `unknown state in ${path.events.join('>')}`);
        for (let i = 1; i < ranks.length; i++) assert.ok((ranks[i] ?? 0) > (ranks[i - 1] ?? 0), `${path.events.join('>')} goes backwards`);
      }
    });

    test(`${role} paths - every path can still reach closed via CLOSE or TRANSPORT_CLOSED`, () => {
      for (const path of paths) {
        const end = replay(machine, path.events);
        if (lifecycleState(end) === 'closed') continue;
        assert.equal(lifecycleState(stepLifecycle(machine, end, { type: 'TRANSPORT_CLOSED' })), 'closed', `${path.events.join('>')} + TRANSPORT_CLOSED`);
        const closing = stepLifecycle(machine, end, { type: 'CLOSE' });
        assert.equal(lifecycleState(closing), 'shuttingDown', `${path.events.join('>')} + CLOSE`);
        let ended = closing;
        for (const type of CLOSING.slice(1)) ended = stepLifecycle(machine, ended, { type });
        assert.equal(lifecycleState(ended), 'closed', `${path.events.join('>')} + ${CLOSING.join(' + ')}`);
      }
    });

    test(`${role} paths - the session's memoised stepping agrees with XState on every path, and closed absorbs every event`, () => {
      for (const path of paths) {
        let snapshot = initialLifecycle(machine);
        const seen = [phaseOf(snapshot.value)];
        for (const type of path.events) {
          snapshot = stepLifecycle(machine, snapshot, { type });
          seen.push(phaseOf(snapshot.value));
          assert.deepEqual([...snapshot.tags].sort(), [...(path.states[seen.length - 1]?.tags ?? [])].sort());
        }
        assert.deepEqual(seen, path.states.map((state) => state.value));
        if (lifecycleState(snapshot) === 'closed') {
          for (const event of EVENTS) assert.equal(stepLifecycle(machine, snapshot, event), snapshot, `closed + ${event.type}`);
        }
      }
    });
  });
}

/**
 * The session states (what state$ emits: a phase of shutting down is no new state) of the simple path taking
 * exactly these events (undefined when there is none).
 */
function machinePath(role: 'server' | 'client', events: readonly LifecycleEvent['type'][]): string[] | undefined {
  const states = pathsOf(role).find((path) => path.events.join('>') === events.join('>'))?.states.map((state) => state.state);
  return states?.filter((state, index) => state !== states[index - 1]);
}

function statesOf(log: WireLog): string[] {
  return log.events.flatMap((event) => (event.type === 'state' ? [event.state] : []));
}

describe('real sessions along the lifecycle paths', () => {
  test('session paths - server: initialize, initialized, close', async () => {
    const h = rawClient();
    await h.initialize();
    assert.deepEqual((await h.peer.call('p', 'ping')).result, {});
    await h.session.close();
    await within(h.peer.closed);
    assert.deepEqual(statesOf(h.wire), machinePath('server', ['INITIALIZE', 'INITIALIZED', ...CLOSING]));
    assert.deepEqual(h.wire.sentAfterClose(), []);
    assert.equal(h.wire.sent.length, 2);
    h.oracle.assertClean();
  });

  test('session paths - server: initialize, then the transport closes', async () => {
    const h = rawClient();
    await h.initialize('2025-11-25', { sendInitialized: false });
    await h.peer.close();
    assert.equal(await within(h.session.closed), undefined);
    assert.deepEqual(statesOf(h.wire), machinePath('server', ['INITIALIZE', 'TRANSPORT_CLOSED']));
    assert.deepEqual(h.wire.sentAfterClose(), []);
    h.oracle.assertClean();
  });

  test('session paths - server: operating, then the transport closes', async () => {
    const h = rawClient();
    await h.initialize();
    assert.deepEqual((await h.peer.call('p', 'ping')).result, {});
    await h.peer.close();
    await within(h.session.closed);
    assert.deepEqual(statesOf(h.wire), machinePath('server', ['INITIALIZE', 'INITIALIZED', 'TRANSPORT_CLOSED']));
    h.oracle.assertClean();
  });

  test('session paths - server: closed before initialize', async () => {
    const h = rawClient();
    assert.deepEqual((await h.peer.call('p', 'ping')).result, {});
    await h.session.close();
    await within(h.peer.closed);
    assert.deepEqual(statesOf(h.wire), machinePath('server', CLOSING));
    assert.deepEqual(h.wire.sentAfterClose(), []);
    assert.equal(h.wire.sent.length, 1);
    h.oracle.assertClean();
  });

  test('session paths - client: operating, then close', async () => {
    const pair = await createPair();
    await pair.client.ping();
    await pair.client.close();
    await within(pair.server.closed);
    // The client's state$ is observed from the moment connectSession hands the session out.
    assert.deepEqual(statesOf(pair.clientWire), machinePath('client', ['INITIALIZED', ...CLOSING])?.slice(1));
    assert.deepEqual(statesOf(pair.serverWire), machinePath('server', ['INITIALIZE', 'INITIALIZED', 'TRANSPORT_CLOSED']));
    assert.deepEqual(pair.clientWire.sentAfterClose(), []);
    pair.assertClean();
  });

  test('session paths - client: handshake failure writes only the initialize request', async () => {
    const h = rawServer();
    await h.answerInitialize({ protocolVersion: '2000-01-01' });
    await assert.rejects(h.connecting, (error) => isLocalError(error, 'UnsupportedVersion'));
    await within(h.peer.closed);
    const kinds = h.wire.events.map((event) => event.type);
    assert.deepEqual(kinds, ['send', 'transport-close']);
    assert.ok(isRequestFor('initialize')(h.wire.sent[0]));
    h.oracle.assertClean();
  });

  test('session paths - client: the handshake-failure path on a session core', async () => {
    // connectSession never hands out a session whose handshake failed, so its state$ is observed by driving
    // the same core with the same steps connectSession takes (HANDSHAKE_FAILED, then close).
    const [sessionEnd, peerEnd] = createMemoryPair();
    const spied = spyTransport(sessionEnd);
    const { transport, oracle } = withSchemaOracle(spied.transport);
    const session = new SessionCore('client', transport, clientLifecycleMachine, {}, undefined, undefined);
    spied.log.track(session);
    session.start();
    peerEnd.incoming$.subscribe((frame) => {
      if (frame.type === 'message' && isRequestFor('ping')(frame.payload)) {
        const id = (frame.payload as { readonly id: string | number }).id;
        void peerEnd.send({ payload: { jsonrpc: '2.0', id, result: {} } });
      }
    });
    await within(session.ping());
    session.step({ type: 'HANDSHAKE_FAILED' });
    assert.equal(session.state, 'shuttingDown');
    await session.close();
    assert.deepEqual(statesOf(spied.log), machinePath('client', ['HANDSHAKE_FAILED', ...CLOSING]));
    assert.throws(() => session.notify('notifications/roots/list_changed'), (error) => isLocalError(error, 'ConnectionClosed'));
    assert.deepEqual(spied.log.sentAfterClose(), []);
    oracle.assertClean();
  });
});
