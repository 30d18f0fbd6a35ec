/**
 * The session lifecycle machines (machines/session-lifecycle.ts) with @xstate/graph, every event included
 * (the modern era's MODERN too): every path chooses its era once, keeps what may flow consistent with it, and
 * ends in (or can still reach) `closed`, which absorbs everything. The memoised stepping the sessions use
 * agrees with XState along every path. (session-paths.spec.ts drives real sessions along the legacy paths.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { getShortestPaths, getSimplePaths } from '@xstate/graph';
import { delayedEventsOf } from '../../machines/executor.ts';
import type { LifecycleTag } from '../../core/protocol/lifecycle-tags.ts';
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

const EVENTS: readonly LifecycleEvent[] = [
  { type: 'INITIALIZE' },
  { type: 'INITIALIZED' },
  { type: 'MODERN' },
  { type: 'HANDSHAKE_FAILED' },
  { type: 'CLOSE' },
  { type: 'DRAINED' },
  { type: 'FLUSHED' },
  { type: 'ENDED' },
  { type: 'TRANSPORT_CLOSED' },
];

/** Every event a machine takes: the session's, and what its closing deadlines raise when they fire. */
const allEvents = (machine: LifecycleMachine): LifecycleEvent[] => [...EVENTS, ...(delayedEventsOf(machine) as LifecycleEvent[])];

/** A state value as one name: `operating`, or `shuttingDown.flushing` for a phase of shutting down. */
const phaseOf = (value: unknown): string => (typeof value === 'string' ? value : Object.entries(value as Record<string, unknown>).map(([top, sub]) => `${top}.${phaseOf(sub)}`)[0] ?? '');

/** States only a legacy (handshaken) session is ever in. */
const HANDSHAKEN = new Set(['awaitingInitialized', 'operating']);

interface Walk {
  readonly events: readonly LifecycleEvent['type'][];
  readonly states: readonly string[];
  readonly tags: readonly ReadonlySet<string>[];
  readonly done: boolean;
}

function walks(machine: LifecycleMachine): Walk[] {
  const paths = machine === serverLifecycleMachine
    ? getSimplePaths(serverLifecycleMachine, { events: allEvents(machine) })
    : getSimplePaths(clientLifecycleMachine, { events: allEvents(machine) });
  return paths.map((path) => ({
    events: path.steps.slice(1).map((step) => step.event.type),
    states: path.steps.map((step) => phaseOf(step.state.value)),
    tags: path.steps.map((step) => step.state.tags as ReadonlySet<string>),
    done: path.state.status === 'done',
  }));
}

function replay(machine: LifecycleMachine, events: readonly LifecycleEvent['type'][]): LifecycleSnapshot {
  let snapshot = initialLifecycle(machine);
  for (const type of events) snapshot = stepLifecycle(machine, snapshot, { type });
  return snapshot;
}

const ROLES = { server: serverLifecycleMachine as LifecycleMachine, client: clientLifecycleMachine as LifecycleMachine };

for (const [role, machine] of Object.entries(ROLES)) {
  describe(`${role} lifecycle, every event: every path`, () => {
    const all = walks(machine);

    test('every path ends in closed, or can still get there by a transport close or a drained close', () => {
      for (const walk of all) {
        const end = replay(machine, walk.events);
        assert.equal(lifecycleState(end) === 'closed', walk.done, walk.events.join('>'));
        if (walk.done) continue;
        assert.equal(lifecycleState(stepLifecycle(machine, end, { type: 'TRANSPORT_CLOSED' })), 'closed');
        let closing = stepLifecycle(machine, end, { type: 'CLOSE' });
        for (const type of ['DRAINED', 'FLUSHED', 'ENDED'] as const) closing = stepLifecycle(machine, closing, { type });
        assert.equal(lifecycleState(closing), 'closed');
      }
    });

    test('closed absorbs every event, and the same state is always the same snapshot', () => {
      for (const walk of all) {
        const end = replay(machine, walk.events);
        assert.equal(replay(machine, walk.events), end);
        let snapshot = initialLifecycle(machine);
        const seen: string[] = [lifecycleState(snapshot)];
        for (const type of walk.events) seen.push(phaseOf((snapshot = stepLifecycle(machine, snapshot, { type })).value));
        assert.deepEqual(seen, walk.states, 'the session stepper agrees with XState');
        if (!walk.done) continue;
        for (const event of allEvents(machine)) assert.equal(stepLifecycle(machine, end, event), end, `closed + ${event.type}`);
      }
    });

    test('an era is chosen once: a stateless connection never handshakes, a legacy one never turns stateless', () => {
      for (const walk of all) {
        const stateless = walk.states.includes('stateless');
        const legacy = walk.states.some((state) => HANDSHAKEN.has(state));
        assert.ok(!(stateless && legacy), walk.events.join('>'));
        walk.states.forEach((state, index) => {
          const tags = walk.tags[index] ?? new Set();
          const has = (tag: LifecycleTag): boolean => tags.has(tag);
          assert.equal(has('admit-modern'), state === 'stateless', `${state} admit-modern`);
          if (state === 'stateless') {
            for (const tag of ['admit-ping', 'admit-handshake', 'admit-inbound', 'admit-outbound', 'defer-outbound'] as const) assert.ok(!has(tag), `stateless ${tag}`);
          }
        });
      }
    });
  });
}

describe('lifecycle test models', () => {
  test('server: the shortest way into each state, replayed by the session stepper, shows that state\'s tags', () => {
    // (@xstate/graph's test models refuse machines with `after` transitions: the shortest paths are replayed by hand.)
    const reached = new Set<string>();
    for (const path of getShortestPaths(serverLifecycleMachine, { events: allEvents(serverLifecycleMachine) })) {
      let snapshot = initialLifecycle(serverLifecycleMachine);
      for (const step of path.steps.slice(1)) snapshot = stepLifecycle(serverLifecycleMachine, snapshot, step.event as LifecycleEvent);
      reached.add(phaseOf(snapshot.value));
      assert.equal(phaseOf(snapshot.value), phaseOf(path.state.value));
      assert.deepEqual([...snapshot.tags].sort(), [...path.state.tags].sort());
    }
    assert.deepEqual([...reached].sort(), [
      'awaitingInitialize', 'awaitingInitialized', 'closed', 'operating', 'shuttingDown.draining', 'shuttingDown.ending', 'shuttingDown.flushing', 'stateless',
    ]);
  });

  test('client: MODERN means nothing to a client in any state', () => {
    for (const path of getShortestPaths(clientLifecycleMachine, { events: [...EVENTS] })) {
      const snapshot = replay(clientLifecycleMachine, path.steps.slice(1).map((step) => step.event.type));
      assert.equal(stepLifecycle(clientLifecycleMachine, snapshot, { type: 'MODERN' }), snapshot);
    }
  });
});
