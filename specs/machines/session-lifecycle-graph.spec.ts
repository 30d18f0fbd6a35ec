/**
 * The session lifecycle machines (machines/session-lifecycle.ts) with @xstate/graph, every event included
 * (the modern era's MODERN too): every path chooses its era once, keeps what may flow consistent with it, and
 * ends in (or can still reach) `closed`, which absorbs everything. The memoised stepping the sessions use
 * agrees with XState along every path. (session-paths.spec.ts drives real sessions along the legacy paths.)
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestModel, getShortestPaths, getSimplePaths } from '@xstate/graph';
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
  { type: 'TRANSPORT_CLOSED' },
];

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
    ? getSimplePaths(serverLifecycleMachine, { events: [...EVENTS] })
    : getSimplePaths(clientLifecycleMachine, { events: [...EVENTS] });
  return paths.map((path) => ({
    events: path.steps.slice(1).map((step) => step.event.type),
    states: path.steps.map((step) => String(step.state.value)),
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
        const draining = stepLifecycle(machine, end, { type: 'CLOSE' });
        assert.equal(lifecycleState(stepLifecycle(machine, draining, { type: 'DRAINED' })), 'closed');
      }
    });

    test('closed absorbs every event, and the same state is always the same snapshot', () => {
      for (const walk of all) {
        const end = replay(machine, walk.events);
        assert.equal(replay(machine, walk.events), end);
        let snapshot = initialLifecycle(machine);
        const seen: string[] = [lifecycleState(snapshot)];
        for (const type of walk.events) seen.push(lifecycleState((snapshot = stepLifecycle(machine, snapshot, { type }))));
        assert.deepEqual(seen, walk.states, 'the session stepper agrees with XState');
        if (!walk.done) continue;
        for (const event of EVENTS) assert.equal(stepLifecycle(machine, end, event), end, `closed + ${event.type}`);
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
  test('server: the shortest way into each state, replayed by the session stepper, shows that state\'s tags', async () => {
    const model = createTestModel(serverLifecycleMachine, { events: [...EVENTS] });
    const reached = new Set<string>();
    for (const path of model.getShortestPaths()) {
      let snapshot = initialLifecycle(serverLifecycleMachine);
      await path.test({
        events: Object.fromEntries(EVENTS.map((event) => [event.type, () => void (snapshot = stepLifecycle(serverLifecycleMachine, snapshot, event))])),
        states: Object.fromEntries(
          ['awaitingInitialize', 'awaitingInitialized', 'stateless', 'operating', 'shuttingDown', 'closed'].map((state) => [
            state,
            (expected: { readonly tags: Set<string> }) => {
              reached.add(state);
              assert.equal(lifecycleState(snapshot), state);
              assert.deepEqual([...snapshot.tags].sort(), [...expected.tags].sort());
            },
          ]),
        ),
      });
    }
    assert.deepEqual([...reached].sort(), ['awaitingInitialize', 'awaitingInitialized', 'closed', 'operating', 'shuttingDown', 'stateless']);
  });

  test('client: MODERN means nothing to a client in any state', () => {
    for (const path of getShortestPaths(clientLifecycleMachine, { events: [...EVENTS] })) {
      const snapshot = replay(clientLifecycleMachine, path.steps.slice(1).map((step) => step.event.type));
      assert.equal(stepLifecycle(clientLifecycleMachine, snapshot, { type: 'MODERN' }), snapshot);
    }
  });
});
