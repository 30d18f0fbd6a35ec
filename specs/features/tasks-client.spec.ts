/**
 * Tasks, the client as requestor (2025-11-25; FEATURES rows 53, 87-93): the session helpers, `taskUpdates$`
 * polling at the server's `pollInterval` on the simulated clock and merging status pushes, and the local
 * refusal when the server did not declare task support. Real server and client, oracle-checked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Observable, Subscription } from 'rxjs';
import { isLocalError } from '../../core/errors.ts';
import type { CallToolResult } from '../../core/protocol/tools.ts';
import type { Task } from '../../core/protocol/tasks.ts';
import type { McpServer } from '../../server/create-server.ts';
import { deferred, paramsOf, sentWith, settle, taskPair } from './tasks-harness.ts';

function watch(pair: { session: { taskUpdates$(taskId: string): Observable<Task> } }, taskId: string) {
  const seen: Task[] = [];
  const state = { completed: false, error: undefined as unknown, subscription: undefined as Subscription | undefined };
  state.subscription = pair.session.taskUpdates$(taskId).subscribe({
    next: (task) => seen.push(task),
    error: (error: unknown) => (state.error = error),
    complete: () => (state.completed = true),
  });
  return { seen, state, statuses: () => seen.map((task) => task.status) };
}

const gatedTool = (gate: Promise<string>) => (server: McpServer): void => {
  server.tool({ name: 'gated', execution: { taskSupport: 'optional' } }, () => gate);
};

describe('tasks - behaviour: client helpers', () => {
  test('tasks - callToolAsTask, getTask, taskResult, listTasks$ and cancelTask speak the task methods', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({
      setup: (server) => {
        gatedTool(gate.promise)(server);
        server.tool({ name: 'shape', execution: { taskSupport: 'required' }, inputSchema: { type: 'object', properties: { any: { type: 'number' } } }, outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }, () => ({
          structuredContent: { n: 42 },
        }));
      },
    });
    const created = await pair.session.callToolAsTask('shape', { any: 1 }, { ttl: 120_000 });
    const call = paramsOf(sentWith(pair.clientSent, 'tools/call')[0]);
    assert.deepEqual(call['task'], { ttl: 120_000 });
    assert.deepEqual(call['arguments'], { any: 1 });
    const result: CallToolResult = await pair.session.taskResult(created.task.taskId);
    assert.deepEqual(result.structuredContent, { n: 42 });
    const got = await pair.session.getTask(created.task.taskId);
    assert.equal(got.status, 'completed');
    assert.equal(got.ttl, 120_000);
    const running = (await pair.session.callToolAsTask('gated')).task;
    const listed: Task[] = [];
    await new Promise<void>((resolve, reject) => pair.session.listTasks$().subscribe({ next: (task) => listed.push(task), error: reject, complete: resolve }));
    assert.deepEqual(listed.map((task) => [task.taskId, task.status]), [
      [created.task.taskId, 'completed'],
      [running.taskId, 'working'],
    ]);
    const cancelled = await pair.session.cancelTask(running.taskId);
    assert.equal(cancelled.status, 'cancelled');
    gate.resolve('late');
    await settle();
    await pair.finish();
  });

  test('tasks - without tasks.requests.tools.call the client refuses locally and sends nothing', async () => {
    const pair = await taskPair({ withoutTasks: true, setup: gatedTool(Promise.resolve('x')) });
    const sent = pair.clientSent.length;
    await assert.rejects(pair.session.callToolAsTask('gated'), (error) => isLocalError(error, 'CapabilityNotNegotiated') && /tasks\.requests\.tools\.call/.test(error.message));
    await assert.rejects(pair.session.getTask('t'), (error) => isLocalError(error, 'CapabilityNotNegotiated'));
    await assert.rejects(pair.session.cancelTask('t'), (error) => isLocalError(error, 'CapabilityNotNegotiated') && /tasks\.cancel/.test(error.message));
    const listing = new Promise((resolve, reject) => pair.session.listTasks$().subscribe({ complete: () => resolve(undefined), error: reject }));
    await assert.rejects(listing, (error) => isLocalError(error, 'CapabilityNotNegotiated') && /tasks\.list/.test(error.message));
    assert.equal(pair.clientSent.length, sent, 'nothing went on the wire');
    await pair.finish();
  });
});

describe('tasks - behaviour: taskUpdates$', () => {
  test('tasks - taskUpdates$ polls tasks/get at the pollInterval, emits each distinct status and completes when terminal', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({
      server: { tasks: { pollIntervalMs: 500 } },
      // Without status pushes, polling alone must find the end.
      dropServerNotifications: ['notifications/tasks/status'],
      setup: gatedTool(gate.promise),
    });
    const { task } = await pair.session.callToolAsTask('gated');
    await settle();
    const baseline = pair.clock.pending;
    const gets = (): number => sentWith(pair.clientSent, 'tasks/get').length;
    const updates = watch(pair, task.taskId);
    await settle();
    assert.equal(gets(), 1, 'the first poll goes at once');
    assert.deepEqual(updates.statuses(), ['working']);
    await pair.clock.advanceAsync(499);
    assert.equal(gets(), 1, 'not before the interval');
    await pair.clock.advanceAsync(1);
    assert.equal(gets(), 2);
    await pair.clock.advanceAsync(200);
    gate.resolve('done');
    await settle();
    assert.deepEqual(updates.statuses(), ['working'], 'the same status is not emitted twice');
    await pair.clock.advanceAsync(300);
    assert.equal(gets(), 3);
    assert.deepEqual(updates.statuses(), ['working', 'completed']);
    assert.equal(updates.state.completed, true);
    assert.equal(pair.clock.pending, baseline + 1, 'no poll timer left (only the finished task expiry timer)');
    await pair.clock.advanceAsync(5_000);
    assert.equal(gets(), 3, 'no polling after the end');
    await pair.finish();
  });

  test('tasks - taskUpdates$ merges status pushes: input_required and the end arrive before the next poll', async () => {
    const answer = deferred<{ action: 'accept'; content: { ok: boolean } }>();
    const pair = await taskPair({
      server: { tasks: { pollIntervalMs: 60_000 } },
      client: { elicitation: { form: () => answer.promise } },
      setup: (server) =>
        server.tool({ name: 'ask', execution: { taskSupport: 'optional' } }, async (_args, context) => {
          const reply = await context.elicit({ message: 'Proceed?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
          return reply.action;
        }),
    });
    const { task } = await pair.session.callToolAsTask('ask');
    const updates = watch(pair, task.taskId);
    await settle();
    assert.deepEqual(updates.statuses(), ['input_required']);
    answer.resolve({ action: 'accept', content: { ok: true } });
    await settle();
    assert.deepEqual(updates.statuses(), ['input_required', 'working', 'completed']);
    assert.equal(updates.state.completed, true);
    assert.equal(sentWith(pair.clientSent, 'tasks/get').length, 1, 'the pushes did what polling would have');
    await pair.finish();
  });

  test('tasks - unsubscribing from taskUpdates$ stops the polling and leaves no timer', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({ setup: gatedTool(gate.promise) });
    const { task } = await pair.session.callToolAsTask('gated');
    await settle();
    const baseline = pair.clock.pending;
    const updates = watch(pair, task.taskId);
    await settle();
    assert.equal(pair.clock.pending, baseline + 1, 'one poll timer armed');
    updates.state.subscription?.unsubscribe();
    assert.equal(pair.clock.pending, baseline);
    await pair.clock.advanceAsync(10_000);
    assert.equal(sentWith(pair.clientSent, 'tasks/get').length, 1);
    gate.resolve('done');
    await settle();
    await pair.finish();
  });

  test('tasks - taskUpdates$ of an unknown task errors with the -32602 of tasks/get', async () => {
    const pair = await taskPair();
    const updates = watch(pair, 'missing');
    await settle();
    assert.equal((updates.state.error as { code?: unknown } | undefined)?.code, -32602);
    await pair.finish();
  });
});
