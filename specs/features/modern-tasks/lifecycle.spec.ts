/**
 * The modern tasks extension (FEATURES #95, SEP-2663): a task's life. A `tools/call` the server runs as a task
 * is answered with a flat CreateTaskResult once the task is stored; `tasks/get` gives the task, with the tool's
 * result inlined once `completed` (a tool error is `completed` with `result.isError`) or the protocol error once
 * `failed`; `tasks/cancel` acknowledges with an empty result, idempotently, and aborts the handler's signal.
 * Oracle: see tasks-harness.ts (scoped re-check of everything the server sent).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { interval, map, take } from 'rxjs';
import { taskTool } from '../../../actors/features/tool-tasks.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { WireError } from '../../../core/errors.ts';
import { deferred } from '../../support/harness.ts';
import { TestClock } from '../../support/test-clock.ts';
import { SERVER_INFO_KEY, errorOf, resultOf, tasksServer, textOf } from './tasks-harness.ts';

const terminal = (task: Record<string, unknown>): boolean => ['completed', 'failed', 'cancelled'].includes(task['status'] as string);

describe('modern tasks: creation', () => {
  test('a required tool is answered at once with a flat CreateTaskResult, and tasks/get finds it right away', async () => {
    await using setup = tasksServer();
    const release = deferred();
    let started = 0;
    setup.server.tool({ name: 'job', execution: { taskSupport: 'required' } }, async () => {
      started++;
      await release.promise;
      return 'done';
    });
    const client = setup.connect();
    const created = await client.callAsTask('job');
    assert.deepEqual(Object.keys(created).sort(), ['_meta', 'createdAt', 'lastUpdatedAt', 'pollIntervalMs', 'resultType', 'status', 'taskId', 'ttlMs']);
    assert.equal(created['status'], 'working');
    assert.equal(created['ttlMs'], 60 * 60_000, 'default retention: 1 h');
    assert.equal(created['pollIntervalMs'], 1000);
    assert.ok((created['_meta'] as Record<string, unknown>)[SERVER_INFO_KEY] !== undefined, 'serverInfo on the task answer too');
    const taskId = created['taskId'] as string;
    const working = await client.get(taskId);
    assert.equal(working['taskId'], taskId);
    assert.equal(working['status'], 'working');
    assert.equal(working['resultType'], 'complete');
    assert.equal(started, 1);
    release.resolve();
    const done = await client.until(taskId, terminal);
    assert.equal(done['status'], 'completed');
    assert.deepEqual(done['result'], { content: [{ type: 'text', text: 'done' }], resultType: 'complete' });
    client.assertClean();
  });

  test('an optional tool marked taskTool becomes a task for a request that declares the extension', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'render', execution: { taskSupport: 'optional' } }, taskTool(() => 'rendered'));
    const client = setup.connect();
    const created = await client.callAsTask('render');
    const done = await client.until(created['taskId'] as string, terminal);
    assert.equal(textOf(done['result']), 'rendered');
    client.assertClean();
  });

  test('modern.tasks sets the retention and polling interval; a finished task expires with its ttl', async () => {
    const clock = new TestClock(Date.parse('2026-08-01T00:00:00Z'));
    await using setup = tasksServer({ modern: { tasks: { ttlMs: 5000, pollIntervalMs: 250 } }, session: { clock } });
    setup.server.tool({ name: 'job', execution: { taskSupport: 'required' } }, () => 'done');
    const client = setup.connect();
    const created = await client.callAsTask('job');
    assert.equal(created['ttlMs'], 5000);
    assert.equal(created['pollIntervalMs'], 250);
    assert.equal(created['createdAt'], '2026-08-01T00:00:00.000Z');
    const taskId = created['taskId'] as string;
    await client.until(taskId, terminal);
    await clock.advanceAsync(4999);
    assert.equal((await client.get(taskId))['status'], 'completed', 'kept for its whole ttl');
    await clock.advanceAsync(1);
    errorOf(await client.request('tasks/get', { taskId }), -32602);
    client.assertClean();
  });

  test('a task is reachable from any connection: the modern era has no session', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'job', execution: { taskSupport: 'required' } }, () => 'done');
    const first = setup.connect();
    const taskId = (await first.callAsTask('job'))['taskId'] as string;
    const second = setup.connect();
    assert.equal(textOf((await second.until(taskId, terminal))['result']), 'done');
    first.assertClean();
    second.assertClean();
  });
});

describe('modern tasks: outcomes', () => {
  test('a tool error is completed with result.isError (returned or thrown)', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'returns', execution: { taskSupport: 'required' } }, () => ({ content: [{ type: 'text', text: 'no luck' }], isError: true }));
    setup.server.tool({ name: 'throws', execution: { taskSupport: 'required' } }, () => {
      throw new Error('broken tool');
    });
    const client = setup.connect();
    for (const [name, text] of [['returns', 'no luck'], ['throws', 'broken tool']] as const) {
      const done = await client.until((await client.callAsTask(name))['taskId'] as string, terminal);
      assert.equal(done['status'], 'completed', name);
      assert.equal((done['result'] as Record<string, unknown>)['isError'], true);
      assert.equal(textOf(done['result']), text);
      assert.equal(done['error'], undefined);
    }
    client.assertClean();
  });

  test('a protocol error is failed with the error inlined and no result', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'crash', execution: { taskSupport: 'required' } }, async () => {
      throw new WireError(ErrorCode.InternalError, 'the database is gone', { data: { retry: false } });
    });
    setup.server.tool({ name: 'nonsense', execution: { taskSupport: 'required' } }, () => 42 as unknown as string);
    const client = setup.connect();
    const crashed = await client.until((await client.callAsTask('crash'))['taskId'] as string, terminal);
    assert.equal(crashed['status'], 'failed');
    assert.deepEqual(crashed['error'], { code: ErrorCode.InternalError, message: 'the database is gone', data: { retry: false } });
    assert.equal(crashed['result'], undefined);
    // A result the tool layer cannot turn into a CallToolResult is a protocol error too.
    const broken = await client.until((await client.callAsTask('nonsense'))['taskId'] as string, terminal);
    assert.equal(broken['status'], 'failed');
    assert.equal((broken['error'] as Record<string, unknown>)['code'], ErrorCode.InternalError);
    client.assertClean();
  });

  test('an Observable handler: progress has no request to go to, the last value is the result', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'steps', execution: { taskSupport: 'required' } }, () =>
      interval(1).pipe(take(3), map((step) => (step < 2 ? { progress: step + 1, total: 2 } : 'all steps done'))),
    );
    const client = setup.connect();
    const done = await client.until((await client.callAsTask('steps'))['taskId'] as string, terminal);
    assert.equal(textOf(done['result']), 'all steps done');
    assert.equal(client.raw.received.filter((message) => (message as Record<string, unknown>)['method'] === 'notifications/progress').length, 0);
    client.assertClean();
  });

  test('invalid arguments of a task are a completed task with the tool error the call would have had; a malformed call is -32602', async () => {
    await using setup = tasksServer();
    setup.server.tool(
      { name: 'typed', execution: { taskSupport: 'required' }, inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
      (args) => `n=${String(args['n'])}`,
    );
    const client = setup.connect();
    const done = await client.until((await client.callAsTask('typed', { n: 'x' }))['taskId'] as string, terminal);
    assert.equal(done['status'], 'completed');
    assert.equal((done['result'] as Record<string, unknown>)['isError'], true);
    // A malformed call is a protocol error at once, as it would be without tasks: no task is made.
    errorOf(await client.request('tools/call', { name: 'typed', arguments: [1] }), -32602);
    client.assertClean();
  });
});

describe('modern tasks: cancellation', () => {
  test('tasks/cancel acks with an empty result, the task is cancelled and its handler signal aborts', async () => {
    await using setup = tasksServer();
    const aborted = deferred<unknown>();
    const finish = deferred();
    setup.server.tool({ name: 'slow', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.resolve(ctx.signal.reason), { once: true });
      await finish.promise;
      return 'finished anyway';
    });
    const client = setup.connect();
    const taskId = (await client.callAsTask('slow'))['taskId'] as string;
    const ack = resultOf(await client.request('tasks/cancel', { taskId }));
    assert.equal(ack['resultType'], 'complete');
    assert.deepEqual(Object.keys(ack).sort(), ['_meta', 'resultType']);
    assert.ok(await aborted.promise, 'the handler saw the abort');
    const cancelled = await client.get(taskId);
    assert.equal(cancelled['status'], 'cancelled');
    // Cooperative: what the handler does afterwards is not recorded.
    finish.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal((await client.get(taskId))['status'], 'cancelled');
    assert.equal((await client.get(taskId))['result'], undefined);
    // Idempotent, also on a task that has ended.
    assert.equal(resultOf(await client.request('tasks/cancel', { taskId }))['resultType'], 'complete');
    client.assertClean();
  });

  test('cancelling a completed task acks and leaves it completed', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'quick', execution: { taskSupport: 'required' } }, () => 'quick');
    const client = setup.connect();
    const taskId = (await client.callAsTask('quick'))['taskId'] as string;
    await client.until(taskId, terminal);
    assert.equal(resultOf(await client.request('tasks/cancel', { taskId }))['resultType'], 'complete');
    const after = await client.get(taskId);
    assert.equal(after['status'], 'completed');
    assert.equal(textOf(after['result']), 'quick');
    client.assertClean();
  });

  test('closing the server aborts running tasks', async () => {
    const setup = tasksServer();
    const aborted = deferred();
    setup.server.tool({ name: 'forever', execution: { taskSupport: 'required' } }, (_args, ctx) =>
      new Promise<string>((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
        aborted.resolve();
        reject(ctx.signal.reason);
      }, { once: true })),
    );
    const client = setup.connect();
    await client.callAsTask('forever');
    await setup.harness.close();
    await aborted.promise;
    client.assertClean();
  });
});
