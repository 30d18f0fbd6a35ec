/**
 * Tasks, server as receiver of task-augmented `tools/call` (2025-11-25; FEATURES rows 53, 87-94). Every
 * test runs a real server and client over the memory pair, both ends checked by the schema oracle, all
 * timers on a simulated clock. Client helpers and polling: tasks-client.spec.ts; ownership, ttl and limits:
 * tasks-store.spec.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WireError, isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { CallToolResult } from '../../core/protocol/tools.ts';
import type { McpServer } from '../../server/create-server.ts';
import { RELATED, announced, deferred, metaOf, paramsOf, sentWith, settle, taskPair, track, wireError } from './tasks-harness.ts';

const text = (result: CallToolResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('tasks - behaviour: creating and finishing', () => {
  test('tasks - a task-augmented call answers at once with a CreateTaskResult while the tool still runs', async () => {
    const gate = deferred<string>();
    let runs = 0;
    const pair = await taskPair({
      setup: (server) => server.tool({ name: 'slow', execution: { taskSupport: 'optional' } }, () => (runs++, gate.promise)),
    });
    const created = await pair.session.callToolAsTask('slow');
    const { task } = created;
    assert.equal(task.status, 'working');
    assert.equal(typeof task.taskId, 'string');
    assert.ok(task.taskId.length >= 32, 'a random, unguessable id');
    assert.equal(task.createdAt, new Date(0).toISOString(), 'ISO 8601 from the injected clock');
    assert.equal(task.lastUpdatedAt, task.createdAt);
    assert.equal(task.ttl, 3_600_000, 'the default retention');
    assert.equal(task.pollInterval, 1000);
    assert.deepEqual(metaOf(created as unknown as JsonObject)[RELATED], { taskId: task.taskId });
    await settle();
    assert.equal(runs, 1, 'the tool runs in the background');
    assert.equal((await pair.session.getTask(task.taskId)).status, 'working');
    const capabilities = pair.session.serverCapabilities;
    assert.deepEqual(capabilities?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    gate.resolve('done');
    await settle();
    await pair.clock.advanceAsync(1500);
    const finished = await pair.session.getTask(task.taskId);
    assert.equal(finished.status, 'completed');
    assert.equal(finished.lastUpdatedAt, new Date(0).toISOString());
    assert.deepEqual(announced(pair.serverSent, task.taskId), ['completed'], 'each status change after creation is announced');
    const status = paramsOf(sentWith(pair.serverSent, 'notifications/tasks/status')[0]);
    assert.equal(metaOf(status)[RELATED], undefined, 'status notifications carry no related-task meta (the id is in them)');
    const result = await pair.session.taskResult(task.taskId);
    assert.equal(text(result), 'done');
    await pair.finish();
  });

  test('tasks - tasks/result blocks until the task is terminal, then returns the tool result with related-task meta', async () => {
    const gate = deferred<CallToolResult>();
    const pair = await taskPair({ setup: (server) => server.tool({ name: 'slow', execution: { taskSupport: 'required' } }, () => gate.promise) });
    const { task } = await pair.session.callToolAsTask('slow', {}, { ttl: 60_000 });
    assert.equal(task.ttl, 60_000, 'the requested ttl is kept (under the cap)');
    const waiting = track(pair.session.taskResult(task.taskId));
    await settle();
    assert.equal(waiting.settled, false, 'tasks/result waits while the task works');
    assert.equal((await pair.session.getTask(task.taskId)).status, 'working', 'tasks/get still answers meanwhile');
    gate.resolve({ content: [{ type: 'text', text: 'rendered' }], structuredContent: { frames: 3 }, _meta: { mine: 1 } });
    await settle();
    assert.equal(waiting.settled, true);
    const result = waiting.value;
    assert.ok(result !== undefined);
    assert.equal(text(result), 'rendered');
    assert.deepEqual(result.structuredContent, { frames: 3 });
    assert.deepEqual(result._meta, { mine: 1, [RELATED]: { taskId: task.taskId } }, 'the result meta is kept, the related task added');
    const again = await pair.session.taskResult(task.taskId);
    assert.deepEqual(again, result, 'a terminal task answers tasks/result at once, the same way every time');
    await pair.finish();
  });

  test('tasks - a tool that fails leaves a failed task whose tasks/result is the isError result the call would have had', async () => {
    const pair = await taskPair({
      setup: (server) =>
        server.tool({ name: 'boom', execution: { taskSupport: 'optional' } }, () => {
          throw new Error('the disk is full');
        }),
    });
    const direct = await pair.session.callTool('boom');
    const { task } = await pair.session.callToolAsTask('boom');
    await settle();
    const failed = await pair.session.getTask(task.taskId);
    assert.equal(failed.status, 'failed', 'isError makes a tool task fail');
    assert.equal(failed.statusMessage, 'Tool execution failed: the disk is full');
    const result = await pair.session.taskResult(task.taskId);
    assert.equal(result.isError, true);
    const { _meta, ...rest } = result;
    assert.deepEqual(rest, direct, 'exactly what the ordinary call returned');
    assert.deepEqual(_meta, { [RELATED]: { taskId: task.taskId } });
    assert.deepEqual(announced(pair.serverSent, task.taskId), ['failed']);
    await pair.finish();
  });

  test('tasks - a tool that throws a protocol error leaves a failed task whose tasks/result is that JSON-RPC error', async () => {
    const pair = await taskPair({
      setup: (server) =>
        server.tool({ name: 'strict', execution: { taskSupport: 'optional' } }, async () => {
          throw new WireError(-32602, 'Invalid params: no such account', { data: { account: 7 } });
        }),
    });
    const direct = await wireError(pair.session.callTool('strict'), -32602);
    const { task } = await pair.session.callToolAsTask('strict');
    await settle();
    const failed = await pair.session.getTask(task.taskId);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.statusMessage, 'Invalid params: no such account');
    const error = await wireError(pair.session.taskResult(task.taskId), -32602);
    assert.equal(error.message, direct.message);
    assert.deepEqual(error.data, direct.data);
    await pair.finish();
  });

  test('tasks - progress keeps the request progress token after the answer, and task messages carry related-task meta', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({
      setup: (server) =>
        server.tool({ name: 'work', execution: { taskSupport: 'optional' } }, (_args, context) => {
          context.progress({ progress: 1, total: 2 });
          context.log('info', 'halfway');
          return gate.promise.then((value) => (context.progress(2), value));
        }),
    });
    const { task } = await pair.session.callToolAsTask('work', {}, { onProgress: () => undefined });
    gate.resolve('ok');
    await settle();
    const call = sentWith(pair.clientSent, 'tools/call')[0];
    const token = metaOf(paramsOf(call))['progressToken'];
    assert.notEqual(token, undefined);
    const answerAt = pair.serverSent.findIndex((message) => message['id'] === call?.['id']);
    const progress = sentWith(pair.serverSent, 'notifications/progress');
    assert.deepEqual(progress.map((message) => paramsOf(message)['progress']), [1, 2]);
    for (const message of progress) {
      assert.equal(paramsOf(message)['progressToken'], token, 'the original token stays valid for the task');
      assert.deepEqual(metaOf(paramsOf(message))[RELATED], { taskId: task.taskId });
    }
    assert.ok(answerAt >= 0 && answerAt < pair.serverSent.indexOf(progress[0] as JsonObject), 'the CreateTaskResult goes out before anything about the task');
    const log = sentWith(pair.serverSent, 'notifications/message')[0];
    assert.equal(paramsOf(log)['data'], 'halfway');
    assert.deepEqual(metaOf(paramsOf(log))[RELATED], { taskId: task.taskId });
    assert.equal((await pair.session.getTask(task.taskId)).status, 'completed');
    await pair.finish();
  });
});

describe('tasks - behaviour: input_required', () => {
  test('tasks - the task is input_required while the tool elicits, then works on and completes', async () => {
    const answer = deferred<{ action: 'accept'; content: { name: string } }>();
    const pair = await taskPair({
      client: { elicitation: { form: () => answer.promise } },
      setup: (server) =>
        server.tool({ name: 'greet', execution: { taskSupport: 'optional' } }, async (_args, context) => {
          const reply = await context.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
          return `hello ${String(reply.content?.['name'])}`;
        }),
    });
    const { task } = await pair.session.callToolAsTask('greet');
    await settle();
    assert.equal((await pair.session.getTask(task.taskId)).status, 'input_required');
    const elicitation = sentWith(pair.serverSent, 'elicitation/create')[0];
    assert.deepEqual(metaOf(paramsOf(elicitation))[RELATED], { taskId: task.taskId }, 'the elicitation names the task it serves');
    answer.resolve({ action: 'accept', content: { name: 'Ada' } });
    await settle();
    assert.equal((await pair.session.getTask(task.taskId)).status, 'completed');
    assert.deepEqual(announced(pair.serverSent, task.taskId), ['input_required', 'working', 'completed']);
    assert.equal(text(await pair.session.taskResult(task.taskId)), 'hello Ada');
    await pair.finish();
  });
});

describe('tasks - behaviour: cancellation', () => {
  test('tasks - tasks/cancel moves the task to cancelled before answering, aborts the tool, and a second cancel is -32602', async () => {
    let aborted: unknown;
    const pair = await taskPair({
      setup: (server) =>
        server.tool({ name: 'forever', execution: { taskSupport: 'optional' } }, (_args, context) =>
          new Promise<string>((_resolve, reject) => {
            context.signal.addEventListener('abort', () => {
              aborted = context.signal.reason;
              reject(context.signal.reason);
            });
          }),
        ),
    });
    const { task } = await pair.session.callToolAsTask('forever');
    const waiting = track(pair.session.taskResult(task.taskId));
    await settle();
    const cancelled = await pair.session.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled', 'the answer already says cancelled');
    assert.equal(cancelled.statusMessage, 'The task was cancelled by request.');
    assert.ok(aborted !== undefined, "the tool's signal aborted");
    await settle();
    assert.equal((await pair.session.getTask(task.taskId)).status, 'cancelled', 'and it stays cancelled after the tool failed');
    const again = await wireError(pair.session.cancelTask(task.taskId), -32602);
    assert.match(again.message, /terminal status 'cancelled'/);
    assert.equal(waiting.settled, true, 'a blocked tasks/result ends with the cancellation');
    assert.ok(waiting.error instanceof WireError && waiting.error.code === -32600, 'a cancelled task has no result: -32600');
    assert.deepEqual(announced(pair.serverSent, task.taskId), ['cancelled']);
    await pair.finish();
  });

  test('tasks - a cancelled task stays cancelled when its tool completes anyway; a completed one cannot be cancelled', async () => {
    const gate = deferred<string>();
    const pair = await taskPair({
      setup: (server) => {
        server.tool({ name: 'stubborn', execution: { taskSupport: 'optional' } }, () => gate.promise);
        server.tool({ name: 'quick', execution: { taskSupport: 'optional' } }, () => 'fast');
      },
    });
    const { task } = await pair.session.callToolAsTask('stubborn');
    await pair.session.cancelTask(task.taskId);
    gate.resolve('finished late');
    await settle();
    assert.equal((await pair.session.getTask(task.taskId)).status, 'cancelled');
    await wireError(pair.session.taskResult(task.taskId), -32600);
    const quick = (await pair.session.callToolAsTask('quick')).task;
    await settle();
    const refused = await wireError(pair.session.cancelTask(quick.taskId), -32602);
    assert.match(refused.message, /already in terminal status 'completed'/);
    assert.equal(text(await pair.session.taskResult(quick.taskId)), 'fast');
    await pair.finish();
  });

  test('tasks - an unknown task id is -32602 for tasks/get, tasks/result and tasks/cancel', async () => {
    const pair = await taskPair();
    for (const call of [pair.session.getTask('no-such-task'), pair.session.taskResult('no-such-task'), pair.session.cancelTask('no-such-task')]) {
      const error = await wireError(call, -32602);
      assert.match(error.message, /no task "no-such-task"/);
    }
    await pair.finish();
  });
});

describe('tasks - behaviour: execution.taskSupport', () => {
  const tools = (server: McpServer): void => {
    server.tool({ name: 'required', execution: { taskSupport: 'required' } }, () => 'r');
    server.tool({ name: 'optional', execution: { taskSupport: 'optional' } }, () => 'o');
    server.tool({ name: 'forbidden', execution: { taskSupport: 'forbidden' } }, () => 'f');
    server.tool({ name: 'plain' }, () => 'p');
  };

  test('tasks - required without params.task, and forbidden or absent with it, are -32601; optional goes either way', async () => {
    const pair = await taskPair({ setup: tools });
    const required = await wireError(pair.session.callTool('required'), -32601);
    assert.match(required.message, /must be called as a task/);
    for (const name of ['forbidden', 'plain']) {
      const error = await wireError(pair.session.callToolAsTask(name), -32601);
      assert.match(error.message, /cannot be called as a task/);
    }
    assert.equal(text(await pair.session.callTool('optional')), 'o');
    assert.equal(text(await pair.session.callTool('plain')), 'p');
    for (const name of ['required', 'optional']) {
      const { task } = await pair.session.callToolAsTask(name);
      await settle();
      assert.equal((await pair.session.getTask(task.taskId)).status, 'completed');
    }
    await wireError(pair.session.session.request('tools/call', { name: 'optional', task: { ttl: -5 } }), -32602);
    await pair.finish();
  });

  test('tasks - a server without tasks processes params.task normally and declares no tasks capability', async () => {
    const pair = await taskPair({ withoutTasks: true, setup: tools });
    assert.equal(pair.session.serverCapabilities?.tasks, undefined);
    const result = await pair.session.session.request<CallToolResult>('tools/call', { name: 'forbidden', arguments: {}, task: { ttl: 1000 } });
    assert.equal(text(result), 'f', 'an ordinary result, the task metadata ignored');
    assert.equal(text(await pair.session.callTool('required')), 'r', 'without the capability, taskSupport is not enforced');
    await pair.finish();
  });

  test('tasks - under 2025-06-18 there are no tasks: params.task is ignored and tasks/* do not exist', async () => {
    const pair = await taskPair({ protocolVersion: '2025-06-18', setup: tools });
    const result = await pair.session.session.request<CallToolResult>('tools/call', { name: 'optional', arguments: {}, task: {} });
    assert.equal(text(result), 'o');
    assert.equal(text(await pair.session.callTool('required')), 'r');
    await assert.rejects(pair.session.getTask('t'), (error) => isLocalError(error, 'MethodNotInRevision'));
    await assert.rejects(pair.session.callToolAsTask('optional'), (error) => isLocalError(error, 'MethodNotInRevision'));
    await pair.finish();
  });
});
