/**
 * The task lifecycle machine (machines/task-lifecycle.ts) with @xstate/graph: every simple path keeps the
 * invariants (a terminal status never changes), the lean answers agree with XState, and the default task
 * store, driven along every path and then through every (status, event) pair, does exactly what the
 * machine says, including its refusals.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestModel, getAdjacencyMap, getShortestPaths, getSimplePaths } from '@xstate/graph';
import { TASK_STATUSES, type TaskStatus, isTerminalTaskStatus } from '../../core/protocol/tasks.ts';
import type { TaskChange } from '../../core/catalog/task-store.ts';
import { type TaskEvent, isFinalTaskStatus, taskEventFor, taskLifecycleMachine, taskStatusAfter } from '../../machines/task-lifecycle.ts';
import { InMemoryTaskStore } from '../../server/in-memory-task-store.ts';

const EVENTS: readonly TaskEvent[] = [{ type: 'WORK' }, { type: 'NEED_INPUT' }, { type: 'COMPLETE' }, { type: 'FAIL' }, { type: 'CANCEL' }];
const statusOf = (snapshot: { readonly value: unknown }): TaskStatus => snapshot.value as TaskStatus;
const OWNER = 'owner';
const outcome = { type: 'result', result: { content: [] } } as const;

/** Applies an event to a stored task the way the features do, through the store's own calls. */
function apply(store: InMemoryTaskStore, taskId: string, event: TaskEvent, message?: string): Promise<TaskChange | undefined> {
  switch (event.type) {
    case 'WORK':
      return store.updateStatus(OWNER, taskId, 'working', message);
    case 'NEED_INPUT':
      return store.updateStatus(OWNER, taskId, 'input_required', message);
    case 'COMPLETE':
      return store.setResult(OWNER, taskId, 'completed', outcome, message);
    case 'FAIL':
      return store.setResult(OWNER, taskId, 'failed', { type: 'error', error: { code: -32603, message: 'broke' } }, message);
    case 'CANCEL':
      return store.cancel(OWNER, taskId, message);
  }
}

describe('task lifecycle machine: every path', () => {
  const paths = getSimplePaths(taskLifecycleMachine, { events: [...EVENTS] });

  test('its states are the wire statuses, and final is terminal', () => {
    const reached = new Set(paths.map((path) => statusOf(path.state)));
    assert.deepEqual([...reached].sort(), [...TASK_STATUSES].sort());
    for (const status of TASK_STATUSES) assert.equal(isFinalTaskStatus(status), isTerminalTaskStatus(status), status);
  });

  test('along every path the lean answers agree with XState, and a terminal status never changes', () => {
    for (const path of paths) {
      let status: TaskStatus = 'working';
      for (const step of path.steps.slice(1)) {
        const next = taskStatusAfter(status, step.event);
        assert.equal(next, statusOf(step.state), `${status} --${step.event.type}-->`);
        status = next ?? status;
      }
      if (!isFinalTaskStatus(status)) continue;
      for (const event of EVENTS) assert.equal(taskStatusAfter(status, event), undefined, `${status} refuses ${event.type}`);
    }
  });

  test('a live task can reach each terminal status, and report each live one', () => {
    for (const status of TASK_STATUSES.filter((s) => !isTerminalTaskStatus(s))) {
      for (const target of TASK_STATUSES) assert.equal(taskStatusAfter(status, taskEventFor(target)), target, `${status} -> ${target}`);
    }
  });
});

describe('the in-memory store follows the machine', () => {
  const model = createTestModel(taskLifecycleMachine, { events: [...EVENTS] });
  for (const path of model.getSimplePaths()) {
    const events = path.steps.slice(1).map((step) => step.event.type);
    test(`along ${events.join(' -> ')}`, async () => {
      const store = new InMemoryTaskStore();
      const { taskId } = await store.create(OWNER, { ttl: null });
      const check = async (expected: TaskStatus): Promise<void> => {
        assert.equal((await store.get(OWNER, taskId))?.status, expected);
      };
      let moves = 0;
      const move = async (event: TaskEvent): Promise<void> => {
        // Each move says something new: the same status with the same message is no change, by the store's contract.
        const change = await apply(store, taskId, event, `move ${++moves}: ${event.type}`);
        assert.equal(change?.changed, true, `${event.type} moved the task`);
      };
      await path.test({
        events: Object.fromEntries(EVENTS.map((event) => [event.type, () => move(event)])),
        states: Object.fromEntries(TASK_STATUSES.map((status) => [status, () => check(status)])),
      });
      const final = statusOf(path.state);
      if (!isFinalTaskStatus(final)) return;
      // Terminal: every further call is refused and nothing changes, and the result is there to fetch.
      const before = await store.get(OWNER, taskId);
      for (const event of EVENTS) {
        const change = await apply(store, taskId, event, 'too late');
        assert.deepEqual(change, { task: before, changed: false }, `${final} refuses ${event.type}`);
      }
      const finished = await store.result(OWNER, taskId);
      assert.equal(finished?.task.status, final);
      assert.equal(finished?.outcome === undefined, final === 'cancelled', 'only a cancelled task has no outcome');
      store.close();
    });
  }

  test('every (status, event) pair: the store moves exactly when the machine does', async () => {
    const adjacency = getAdjacencyMap(taskLifecycleMachine, { events: [...EVENTS] });
    const shortest = new Map(getShortestPaths(taskLifecycleMachine, { events: [...EVENTS] }).map((path) => [statusOf(path.state), path]));
    for (const { state } of Object.values(adjacency)) {
      const from = statusOf(state);
      for (const event of EVENTS) {
        const store = new InMemoryTaskStore();
        const { taskId } = await store.create(OWNER, { ttl: null });
        for (const step of shortest.get(from)?.steps.slice(1) ?? []) await apply(store, taskId, step.event);
        assert.equal((await store.get(OWNER, taskId))?.status, from);
        const expected = taskStatusAfter(from, event);
        const change = await apply(store, taskId, event, `${from} + ${event.type}`);
        assert.equal(change?.task.status, expected ?? from, `${from} + ${event.type}`);
        // A new status message in the same live status is a change too; a terminal task takes nothing.
        assert.equal(change?.changed, expected !== undefined, `${from} + ${event.type} changed`);
        store.close();
      }
    }
  });
});
