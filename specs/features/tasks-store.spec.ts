/**
 * Tasks, the store side (2025-11-25; FEATURES rows 88, 91, 92): listing with pagination, ownership (a task is
 * visible only to the session that created it), ttl capping and expiry on the simulated clock with timers
 * cleaned up, limits, and what a closing session takes with it. Real server and client, oracle-checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Observable, take } from 'rxjs';
import { resolveTaskTtl } from '../../core/catalog/task-store.ts';
import { InMemoryTaskStore } from '../../server/in-memory-task-store.ts';
import type { Task } from '../../core/protocol/tasks.ts';
import type { McpServer } from '../../server/create-server.ts';
import { deferred, sentWith, settle, specClock, taskPair, wireError } from './tasks-harness.ts';

const quickTool = (server: McpServer): void => {
  server.tool({ name: 'quick', execution: { taskSupport: 'optional' } }, () => 'ok');
};

function collect<T>(items$: Observable<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    items$.subscribe({ next: (item) => items.push(item), error: reject, complete: () => resolve(items) });
  });
}

describe('tasks - behaviour: listing and ownership', () => {
  test('tasks - tasks/list pages through a session own tasks, oldest first, lazily', async () => {
    const pair = await taskPair({ server: { pageSize: 2 }, setup: quickTool });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await pair.session.callToolAsTask('quick')).task.taskId);
    await settle();
    const listed = await collect(pair.session.listTasks$());
    assert.deepEqual(listed.map((task) => task.taskId), ids);
    assert.ok(listed.every((task) => task.status === 'completed'));
    assert.equal(sentWith(pair.clientSent, 'tasks/list').length, 3, 'five tasks in pages of two');
    const before = sentWith(pair.clientSent, 'tasks/list').length;
    const first = await collect(pair.session.listTasks$().pipe(take(1)));
    assert.equal(first.length, 1);
    assert.equal(sentWith(pair.clientSent, 'tasks/list').length, before + 1, 'a consumer that stops stops the paging');
    await wireError(pair.session.session.request('tasks/list', { cursor: 'forged' }), -32602);
    await pair.finish();
  });

  test('tasks - another session cannot get, fetch, cancel or list a task: -32602 as for an unknown id', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({
      server: { pageSize: 1 },
      setup: (server) => server.tool({ name: 'slow', execution: { taskSupport: 'optional' } }, () => gate.promise),
    });
    const other = await pair.link();
    const mine = (await pair.session.callToolAsTask('slow')).task;
    await pair.session.callToolAsTask('slow');
    const theirs = (await other.session.callToolAsTask('slow')).task;
    for (const call of [other.session.getTask(mine.taskId), other.session.taskResult(mine.taskId), other.session.cancelTask(mine.taskId)]) {
      const error = await wireError(call, -32602);
      assert.match(error.message, /unknown, expired, or not yours/);
    }
    assert.deepEqual((await collect(other.session.listTasks$())).map((task) => task.taskId), [theirs.taskId]);
    assert.equal((await collect(pair.session.listTasks$())).length, 2);
    const page = await pair.session.session.request<{ tasks: Task[]; nextCursor?: string }>('tasks/list', {});
    assert.ok(page.nextCursor !== undefined);
    await wireError(other.session.session.request('tasks/list', { cursor: page.nextCursor }), -32602);
    assert.equal((await pair.session.getTask(mine.taskId)).status, 'working', 'the owner still sees it, untouched');
    gate.resolve('done');
    await settle();
    await pair.finish();
  });
});

describe('tasks - behaviour: ttl and expiry', () => {
  test('tasks - the requested ttl is capped, a terminal task is deleted when its ttl has elapsed, and its timer goes', async () => {
    const pair = await taskPair({ server: { tasks: { maxTtlMs: 10_000 } }, setup: quickTool });
    await settle();
    const baseline = pair.clock.pending;
    const short = (await pair.session.callToolAsTask('quick', {}, { ttl: 5_000 })).task;
    const long = (await pair.session.callToolAsTask('quick', {}, { ttl: 50_000_000 })).task;
    assert.equal(short.ttl, 5_000);
    assert.equal(long.ttl, 10_000, 'capped at maxTtlMs');
    await settle();
    assert.equal(pair.clock.pending, baseline + 2, 'one expiry timer per terminal task');
    await pair.clock.advanceAsync(4_999);
    assert.equal((await pair.session.getTask(short.taskId)).status, 'completed');
    await pair.clock.advanceAsync(1);
    const expired = await wireError(pair.session.getTask(short.taskId), -32602);
    assert.match(expired.message, /expired/);
    await wireError(pair.session.taskResult(short.taskId), -32602);
    assert.deepEqual((await collect(pair.session.listTasks$())).map((task) => task.taskId), [long.taskId]);
    assert.equal(pair.clock.pending, baseline + 1);
    await pair.clock.advanceAsync(5_000);
    await wireError(pair.session.getTask(long.taskId), -32602);
    assert.equal(pair.clock.pending, baseline, 'timers back to the baseline');
    await pair.finish();
  });

  test('tasks - a running task outlives its ttl and is deleted as soon as it ends; defaultTtlMs null keeps tasks with no timer', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({
      server: { tasks: { defaultTtlMs: 1_000 } },
      setup: (server) => server.tool({ name: 'slow', execution: { taskSupport: 'optional' } }, () => gate.promise),
    });
    const { task } = await pair.session.callToolAsTask('slow');
    assert.equal(task.ttl, 1_000, 'the configured default');
    const waiting = pair.session.taskResult(task.taskId);
    await pair.clock.advanceAsync(5_000);
    assert.equal((await pair.session.getTask(task.taskId)).status, 'working', 'still running past its ttl');
    gate.resolve('late');
    assert.deepEqual((await waiting).content, [{ type: 'text', text: 'late' }], 'a blocked tasks/result still gets the outcome');
    await pair.clock.advanceAsync(0);
    await wireError(pair.session.getTask(task.taskId), -32602);
    await pair.finish();

    const unlimited = await taskPair({ server: { tasks: { defaultTtlMs: null } }, setup: quickTool });
    await settle();
    const baseline = unlimited.clock.pending;
    const kept = (await unlimited.session.callToolAsTask('quick')).task;
    assert.equal(kept.ttl, null, 'unlimited only because the server was configured so');
    await settle();
    assert.equal(unlimited.clock.pending, baseline, 'no expiry timer for an unlimited task');
    await unlimited.clock.advanceAsync(365 * 24 * 3_600_000);
    assert.equal((await unlimited.session.getTask(kept.taskId)).status, 'completed');
    await unlimited.finish();
  });

  test('tasks - resolveTaskTtl: default, cap, and null only when configured', () => {
    assert.equal(resolveTaskTtl(undefined), 3_600_000);
    assert.equal(resolveTaskTtl(undefined, { defaultTtlMs: null }), null);
    assert.equal(resolveTaskTtl(undefined, { defaultTtlMs: 90_000, maxTtlMs: 60_000 }), 60_000);
    assert.equal(resolveTaskTtl(10 ** 12), 24 * 3_600_000);
    assert.equal(resolveTaskTtl(2_500, { maxTtlMs: 10_000 }), 2_500);
  });
});

describe('tasks - behaviour: limits and session close', () => {
  test('tasks - a full store refuses new tasks with a clear -32603, per requestor and overall', async () => {
    const clock = specClock();
    const store = new InMemoryTaskStore({ clock, maxTasksPerOwner: 2, maxTasks: 3 });
    const pair = await taskPair({ clock, server: { tasks: { store } }, setup: quickTool });
    const other = await pair.link();
    await pair.session.callToolAsTask('quick');
    await pair.session.callToolAsTask('quick');
    const perOwner = await wireError(pair.session.callToolAsTask('quick'), -32603);
    assert.match(perOwner.message, /Too many tasks: a requestor may hold at most 2/);
    await other.session.callToolAsTask('quick');
    const overall = await wireError(other.session.callToolAsTask('quick'), -32603);
    assert.match(overall.message, /holds its maximum of 3/);
    assert.equal(store.size, 3);
    await pair.finish();
    assert.equal(store.size, 0, 'closing the sessions deleted their tasks');
  });

  test('tasks - closing a session aborts its running tasks, deletes its tasks and cancels their timers', async () => {
    const clock = specClock();
    const store = new InMemoryTaskStore({ clock });
    let aborted = 0;
    const pair = await taskPair({
      clock,
      server: { tasks: { store } },
      setup: (server) => {
        quickTool(server);
        server.tool({ name: 'forever', execution: { taskSupport: 'optional' } }, (_args, context) =>
          new Promise<string>((_resolve, reject) => context.signal.addEventListener('abort', () => (aborted++, reject(context.signal.reason)))),
        );
      },
    });
    const other = await pair.link();
    await pair.session.callToolAsTask('forever');
    await pair.session.callToolAsTask('quick');
    const survivor = (await other.session.callToolAsTask('quick')).task;
    await settle();
    assert.equal(store.size, 3);
    await pair.session.close();
    await settle();
    assert.equal(aborted, 1, 'the running tool was aborted');
    assert.equal(store.size, 1, 'only the other session task is left');
    assert.equal((await other.session.getTask(survivor.taskId)).status, 'completed');
    await pair.finish();
    assert.equal(store.size, 0);
  });
});
