/**
 * The modern tasks extension (FEATURES #95, SEP-2663): how it is negotiated. The server declares it in
 * `server/discover` only when `modern.tasks` enables it; each request opts in on its own through the
 * `extensions` of its client capabilities; the tasks methods answer only such requests (-32021 otherwise);
 * `tasks/result` and `tasks/list` do not exist in this era; and a request that did not opt in never gets a task.
 * Oracle: see tasks-harness.ts (scoped re-check of everything the server sent).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { continueAsTask, taskTool } from '../../../actors/features/tool-tasks.ts';
import {
  INPUT_ONLY,
  TASKS,
  WITH_TASKS,
  errorOf,
  resultOf,
  tasksServer,
  textOf,
} from './tasks-harness.ts';

const MISSING_CAPABILITY = -32021;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

describe('modern tasks: advertising', () => {
  test('server/discover declares the extension under capabilities.extensions when modern.tasks enables it', async () => {
    await using setup = tasksServer();
    const client = setup.connect();
    const discovered = resultOf(await client.request('server/discover'));
    const capabilities = discovered['capabilities'] as Record<string, unknown>;
    assert.deepEqual(capabilities['extensions'], { [TASKS]: {} });
    assert.equal(capabilities['tasks'], undefined, 'no 2025-11-25 tasks capability in this era');
    client.assertClean();
    setup.harness.assertClean();
  });

  test('without modern.tasks nothing is declared and the tasks methods do not exist, even with the legacy tasks option', async () => {
    await using setup = tasksServer({ modern: {}, tasks: {} });
    setup.server.tool({ name: 'job', execution: { taskSupport: 'required' } }, () => 'ran');
    const client = setup.connect();
    const capabilities = resultOf(await client.request('server/discover'))['capabilities'] as Record<string, unknown>;
    assert.equal(capabilities['extensions'], undefined);
    assert.equal(capabilities['tasks'], undefined);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result', 'tasks/list']) {
      errorOf(await client.request(method, { taskId: 'x', inputResponses: {} }), METHOD_NOT_FOUND);
    }
    // The legacy task augmentation does not leak in: the call is an ordinary one.
    assert.equal(textOf(resultOf(await client.request('tools/call', { name: 'job', arguments: {}, task: { ttl: 1000 } }))), 'ran');
    client.assertClean();
    setup.harness.assertClean();
  });
});

describe('modern tasks: the tasks methods', () => {
  test('tasks/get, tasks/update and tasks/cancel from a request without the extension are -32021 naming it', async () => {
    await using setup = tasksServer();
    const client = setup.connect();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      // The capability is judged first: an unknown id or missing params do not change the answer.
      for (const params of [{ taskId: 'no-such-task', inputResponses: {} }, {}]) {
        const error = errorOf(await client.request(method, params, INPUT_ONLY), MISSING_CAPABILITY);
        assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } }, method);
      }
    }
    client.assertClean();
    setup.harness.assertClean();
  });

  test('a declaration that is not an object does not count', async () => {
    await using setup = tasksServer();
    const client = setup.connect();
    errorOf(await client.request('tasks/get', { taskId: 'x' }, { extensions: { [TASKS]: true } }), MISSING_CAPABILITY);
    errorOf(await client.request('tasks/get', { taskId: 'x' }, { extensions: { 'io.modelcontextprotocol/other': {} } }), MISSING_CAPABILITY);
    client.assertClean();
  });

  test('tasks/result and tasks/list do not exist in this era (-32601), whatever the request declares', async () => {
    await using setup = tasksServer({ tasks: {} });
    const client = setup.connect();
    for (const method of ['tasks/result', 'tasks/list']) {
      errorOf(await client.request(method, { taskId: 'x' }, WITH_TASKS), METHOD_NOT_FOUND);
      errorOf(await client.request(method, {}, INPUT_ONLY), METHOD_NOT_FOUND);
    }
    client.assertClean();
    setup.harness.assertClean();
  });

  test('an unknown taskId is -32602 for every method; a missing or non-string one too', async () => {
    await using setup = tasksServer();
    const client = setup.connect();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      errorOf(await client.request(method, { taskId: 'tasks-spec-nonexistent', inputResponses: {} }), INVALID_PARAMS);
      errorOf(await client.request(method, { inputResponses: {} }), INVALID_PARAMS);
      errorOf(await client.request(method, { taskId: 42, inputResponses: {} }), INVALID_PARAMS);
    }
    client.assertClean();
    setup.harness.assertClean();
  });
});

describe('modern tasks: tools/call without the extension', () => {
  test('a required tool is refused with -32021 naming the extension, before its handler runs', async () => {
    await using setup = tasksServer();
    let ran = 0;
    setup.server.tool({ name: 'job', execution: { taskSupport: 'required' } }, () => {
      ran++;
      return 'ran';
    });
    const client = setup.connect();
    const error = errorOf(await client.request('tools/call', { name: 'job', arguments: {} }, INPUT_ONLY), MISSING_CAPABILITY);
    assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    assert.equal(ran, 0);
    client.assertClean();
    setup.harness.assertClean();
  });

  test('an optional tool is an ordinary call, even one marked to run as a task at once', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'render', execution: { taskSupport: 'optional' } }, taskTool(() => 'rendered'));
    const client = setup.connect();
    const result = resultOf(await client.request('tools/call', { name: 'render', arguments: {} }, {}));
    assert.equal(result['resultType'], 'complete');
    assert.equal(result['taskId'], undefined);
    assert.equal(textOf(result), 'rendered');
    client.assertClean();
    setup.harness.assertClean();
  });

  test('continueAsTask resolves false and the handler goes on in the request', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'maybe', execution: { taskSupport: 'optional' } }, async (_args, ctx) => `became a task: ${String(await continueAsTask(ctx))}`);
    const client = setup.connect();
    assert.equal(textOf(resultOf(await client.request('tools/call', { name: 'maybe', arguments: {} }, {}))), 'became a task: false');
    client.assertClean();
  });

  test('a legacy task hint never makes a task: ignored for a tool without task support, with or without the extension', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'greet' }, () => 'hello');
    const client = setup.connect();
    for (const capabilities of [WITH_TASKS, {}]) {
      const result = resultOf(await client.request('tools/call', { name: 'greet', arguments: {}, task: { ttl: 60000, pollInterval: 100 } }, capabilities));
      assert.equal(result['resultType'], 'complete');
      assert.equal(textOf(result), 'hello');
    }
    client.assertClean();
    setup.harness.assertClean();
  });

  test('a tool without task support is an ordinary call for a request that declares the extension', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'greet' }, async (_args, ctx) => `task: ${String(await continueAsTask(ctx))}`);
    setup.server.tool({ name: 'plain', execution: { taskSupport: 'optional' } }, () => 'plain');
    const client = setup.connect();
    assert.equal(textOf(resultOf(await client.request('tools/call', { name: 'greet', arguments: {} }))), 'task: false');
    // An optional tool that neither is marked nor asks for a task stays an ordinary call.
    assert.equal(resultOf(await client.request('tools/call', { name: 'plain', arguments: {} }))['resultType'], 'complete');
    client.assertClean();
    setup.harness.assertClean();
  });
});
