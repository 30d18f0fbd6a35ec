/**
 * The modern tasks extension (FEATURES #95, SEP-2663): client input. A task's handler that calls `elicit`,
 * `sample` or `roots` parks the task in `input_required`; `tasks/get` then lists the pending `inputRequests`;
 * `tasks/update` answers some or all of them (the task stays parked until every one is answered) and the
 * handler resumes where it was, in this process (it is not run again). Before a call becomes a task, its input
 * needs are ordinary multi round-trip rounds (`input_required` answers): a tool can gather input that way and
 * then continue as a task (`continueAsTask`).
 * Oracle: see tasks-harness.ts (scoped re-check of everything the server sent).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FeatureContext } from '../../../actors/features/feature-context.ts';
import { continueAsTask, taskTool } from '../../../actors/features/tool-tasks.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { deferred } from '../../support/harness.ts';
import { INPUT_ONLY, WITH_TASKS, WITH_TASKS_AND_INPUT, errorOf, resultOf, tasksServer, textOf } from './tasks-harness.ts';

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } as const;

const accept = (content: JsonObject): JsonObject => ({ action: 'accept', content });
const terminal = (task: Record<string, unknown>): boolean => ['completed', 'failed', 'cancelled'].includes(task['status'] as string);
const parked = (task: Record<string, unknown>): boolean => task['status'] === 'input_required' || terminal(task);

async function askName(ctx: FeatureContext, key?: string): Promise<string> {
  const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: NAME_SCHEMA }, key === undefined ? {} : { key });
  return answer.action === 'accept' ? String(answer.content?.['name']) : `(${answer.action})`;
}

describe('modern tasks: input while running as a task', () => {
  test('an elicitation parks the task in input_required; tasks/update answers it and the same handler goes on', async () => {
    await using setup = tasksServer();
    let runs = 0;
    setup.server.tool({ name: 'hello', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      runs++;
      return `Hello, ${await askName(ctx)}!`;
    });
    const client = setup.connect();
    const created = await client.callAsTask('hello', {}, WITH_TASKS_AND_INPUT);
    const taskId = created['taskId'] as string;
    const waiting = await client.until(taskId, parked);
    assert.equal(waiting['status'], 'input_required');
    assert.deepEqual(waiting['inputRequests'], { 'elicitation-1': { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: NAME_SCHEMA } } });
    const ack = resultOf(await client.request('tasks/update', { taskId, inputResponses: { 'elicitation-1': accept({ name: 'Ada' }) } }));
    assert.deepEqual(Object.keys(ack).sort(), ['_meta', 'resultType']);
    assert.equal(ack['resultType'], 'complete');
    const done = await client.until(taskId, terminal);
    assert.equal(textOf(done['result']), 'Hello, Ada!');
    assert.equal(runs, 1, 'answered in place, never run again');
    // The server never sent a request to the client: everything went through tasks/get.
    assert.equal(client.raw.received.filter((message) => 'method' in (message as object)).length, 0);
    client.assertClean();
  });

  test('two inputs at once: a partial update keeps the task parked with only the other one', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'both', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      const [name, confirmed] = await Promise.all([
        askName(ctx, 'name'),
        ctx.elicit({ message: 'Sure?', requestedSchema: CONFIRM_SCHEMA }, { key: 'confirm' }),
      ]);
      return `${name}: ${String(confirmed.content?.['confirm'])}`;
    });
    const client = setup.connect();
    const taskId = (await client.callAsTask('both', {}, WITH_TASKS_AND_INPUT))['taskId'] as string;
    const waiting = await client.until(taskId, (task) => Object.keys((task['inputRequests'] as object | undefined) ?? {}).length === 2 || terminal(task));
    assert.deepEqual(Object.keys(waiting['inputRequests'] as object).sort(), ['confirm', 'name']);
    await client.request('tasks/update', { taskId, inputResponses: { name: accept({ name: 'Ada' }) } });
    const still = await client.get(taskId);
    assert.equal(still['status'], 'input_required');
    assert.deepEqual(Object.keys(still['inputRequests'] as object), ['confirm']);
    await client.request('tasks/update', { taskId, inputResponses: { confirm: accept({ confirm: true }) } });
    assert.equal(textOf((await client.until(taskId, terminal))['result']), 'Ada: true');
    client.assertClean();
  });

  test('sampling and roots are asked the same way; the task goes back to working once answered', async () => {
    await using setup = tasksServer();
    const next = deferred();
    setup.server.tool({ name: 'context', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      const roots = await ctx.roots();
      await next.promise;
      const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }], maxTokens: 10 });
      const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      return `${roots.map((root) => root.uri).join(',')} / ${content?.type === 'text' ? content.text : '?'}`;
    });
    const client = setup.connect();
    const taskId = (await client.callAsTask('context', {}, WITH_TASKS_AND_INPUT))['taskId'] as string;
    const asked = await client.until(taskId, parked);
    assert.deepEqual(asked['inputRequests'], { 'roots-1': { method: 'roots/list' } });
    await client.request('tasks/update', { taskId, inputResponses: { 'roots-1': { roots: [{ uri: 'file:///work', name: 'work' }] } } });
    const working = await client.get(taskId);
    assert.equal(working['status'], 'working');
    assert.equal(working['inputRequests'], undefined);
    next.resolve();
    const sampling = await client.until(taskId, parked);
    assert.equal((sampling['inputRequests'] as Record<string, { method: string }>)['sampling-1']?.method, 'sampling/createMessage');
    await client.request('tasks/update', { taskId, inputResponses: { 'sampling-1': { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'm' } } });
    assert.equal(textOf((await client.until(taskId, terminal))['result']), 'file:///work / short');
    client.assertClean();
  });

  test('unknown keys are ignored; an answer of the wrong shape is -32602 and nothing is applied', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'hello', execution: { taskSupport: 'required' } }, async (_args, ctx) => `Hello, ${await askName(ctx, 'user_name')}!`);
    const client = setup.connect();
    const taskId = (await client.callAsTask('hello', {}, WITH_TASKS_AND_INPUT))['taskId'] as string;
    await client.until(taskId, parked);
    assert.equal(resultOf(await client.request('tasks/update', { taskId, inputResponses: { 'unknown-key': { ignored: true } } }))['resultType'], 'complete');
    errorOf(await client.request('tasks/update', { taskId, inputResponses: { user_name: 12345 } }), -32602);
    errorOf(await client.request('tasks/update', { taskId, inputResponses: { user_name: { action: 'nope' } } }), -32602);
    errorOf(await client.request('tasks/update', { taskId, inputResponses: null as unknown as JsonObject }), -32602);
    errorOf(await client.request('tasks/update', { taskId }), -32602);
    const still = await client.get(taskId);
    assert.equal(still['status'], 'input_required');
    assert.deepEqual(Object.keys(still['inputRequests'] as object), ['user_name']);
    // Known keys are applied, the others ignored.
    assert.equal(resultOf(await client.request('tasks/update', { taskId, inputResponses: { user_name: accept({ name: 'Ada' }), extra: 1 } }))['resultType'], 'complete');
    assert.equal(textOf((await client.until(taskId, terminal))['result']), 'Hello, Ada!');
    // Answers to a task that waits for nothing are ignored too.
    assert.equal(resultOf(await client.request('tasks/update', { taskId, inputResponses: { user_name: accept({ name: 'Bob' }) } }))['resultType'], 'complete');
    client.assertClean();
  });

  test('input the creating request did not declare fails the task with -32021', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'hello', execution: { taskSupport: 'required' } }, async (_args, ctx) => `Hello, ${await askName(ctx)}!`);
    const client = setup.connect();
    const done = await client.until((await client.callAsTask('hello', {}, WITH_TASKS))['taskId'] as string, terminal);
    assert.equal(done['status'], 'failed');
    const error = done['error'] as Record<string, unknown>;
    assert.equal(error['code'], -32021);
    assert.deepEqual(error['data'], { requiredCapabilities: { elicitation: {} } });
    client.assertClean();
  });

  test('cancelling a task that waits for input ends the wait', async () => {
    await using setup = tasksServer();
    const outcome = deferred<string>();
    setup.server.tool({ name: 'hello', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      try {
        return await askName(ctx);
      } catch (error) {
        outcome.resolve(ctx.signal.aborted ? 'aborted' : String(error));
        throw error;
      }
    });
    const client = setup.connect();
    const taskId = (await client.callAsTask('hello', {}, WITH_TASKS_AND_INPUT))['taskId'] as string;
    await client.until(taskId, parked);
    await client.request('tasks/cancel', { taskId });
    assert.equal(await outcome.promise, 'aborted');
    const cancelled = await client.get(taskId);
    assert.equal(cancelled['status'], 'cancelled');
    assert.equal(cancelled['inputRequests'], undefined);
    client.assertClean();
  });
});

describe('modern tasks: input first, then a task (on-demand start)', () => {
  const setupTool = (server: ReturnType<typeof tasksServer>['server'], runs: string[]): void => {
    server.tool(
      { name: 'test_tool_with_task', execution: { taskSupport: 'required' } },
      taskTool(async (_args, ctx) => {
        runs.push(`round ${ctx.round}`);
        const name = await askName(ctx, 'user_name');
        assert.equal(await continueAsTask(ctx), true);
        assert.equal(await continueAsTask(ctx), true, 'idempotent');
        const confirmed = await ctx.elicit({ message: `Greet ${name}?`, requestedSchema: CONFIRM_SCHEMA }, { key: 'confirm' });
        return `Hello, ${name}! (confirmed: ${String(confirmed.content?.['confirm'])})`;
      }, { start: 'on-demand' }),
    );
  };

  test('round 1 is an input_required answer without a task; the retry is answered with the task', async () => {
    await using setup = tasksServer();
    const runs: string[] = [];
    setupTool(setup.server, runs);
    const client = setup.connect();
    const first = resultOf(await client.request('tools/call', { name: 'test_tool_with_task', arguments: {} }, WITH_TASKS_AND_INPUT));
    assert.equal(first['resultType'], 'input_required');
    assert.equal(first['taskId'], undefined);
    assert.deepEqual(Object.keys(first['inputRequests'] as object), ['user_name']);
    const second = resultOf(await client.request('tools/call', {
      name: 'test_tool_with_task',
      arguments: {},
      inputResponses: { user_name: accept({ name: 'Alice' }) },
      requestState: first['requestState'] as string,
    }, WITH_TASKS_AND_INPUT));
    assert.equal(second['resultType'], 'task');
    assert.equal(second['requestState'], undefined);
    assert.equal(second['inputRequests'], undefined);
    const taskId = second['taskId'] as string;
    // After it became a task, its input parks the task instead.
    const waiting = await client.until(taskId, parked);
    assert.deepEqual(Object.keys(waiting['inputRequests'] as object), ['confirm']);
    await client.request('tasks/update', { taskId, inputResponses: { confirm: accept({ confirm: true }) } });
    const done = await client.until(taskId, terminal);
    assert.equal(textOf(done['result']), 'Hello, Alice! (confirmed: true)');
    assert.deepEqual(runs, ['round 0', 'round 1']);
    client.assertClean();
  });

  test('a required on-demand tool that ends before asking for a task is answered with a finished task', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'quick', execution: { taskSupport: 'required' } }, taskTool(() => 'quick', { start: 'on-demand' }));
    const client = setup.connect();
    const created = await client.callAsTask('quick');
    assert.equal(textOf((await client.until(created['taskId'] as string, terminal))['result']), 'quick');
    client.assertClean();
  });

  test('an optional tool becomes a task only when its handler asks, and only for a request that declared the extension', async () => {
    await using setup = tasksServer();
    setup.server.tool({ name: 'maybe', execution: { taskSupport: 'optional' }, inputSchema: { type: 'object', properties: { long: { type: 'boolean' } } } }, async (args, ctx) => {
      if (args['long'] === true && !(await continueAsTask(ctx))) return 'long, but in the request';
      return args['long'] === true ? 'long, as a task' : 'short';
    });
    const client = setup.connect();
    assert.equal(textOf(resultOf(await client.request('tools/call', { name: 'maybe', arguments: { long: false } }))), 'short');
    const created = await client.callAsTask('maybe', { long: true });
    assert.equal(textOf((await client.until(created['taskId'] as string, terminal))['result']), 'long, as a task');
    assert.equal(textOf(resultOf(await client.request('tools/call', { name: 'maybe', arguments: { long: true } }, INPUT_ONLY))), 'long, but in the request');
    client.assertClean();
  });

  test('continueAsTask refuses while input asked in the request is still unanswered', async () => {
    await using setup = tasksServer();
    const refused = deferred<string>();
    setup.server.tool({ name: 'eager', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
      const name = askName(ctx);
      await continueAsTask(ctx).then(() => refused.resolve('escalated'), (error: unknown) => refused.resolve(String(error)));
      return `Hello, ${await name}!`;
    });
    const client = setup.connect();
    const answer = resultOf(await client.request('tools/call', { name: 'eager', arguments: {} }, WITH_TASKS_AND_INPUT));
    assert.match(await refused.promise, /must be awaited/);
    assert.equal(answer['resultType'], 'input_required');
    client.assertClean();
  });
});
