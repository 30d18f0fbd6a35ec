/**
 * Task status notifications (SEP-2663 "Task Status Notifications"): a `subscriptions/listen` naming `taskIds`
 * gets `notifications/tasks` carrying the task as `tasks/get` would give it, tagged with the listen's
 * subscriptionId, and (rxmcp's choice, where the extension is silent) the progress and log messages the task's
 * handler sends after the call became a task, instead of dropping them. Naming tasks without declaring the
 * extension is -32021; a task the caller does not own (or an unknown id) is left out of the acknowledgement.
 * Oracle: the scoped re-check of tasks-harness.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { deferred } from '../../support/harness.ts';
import { INPUT_ONLY, WITH_TASKS, WITH_TASKS_AND_INPUT, errorOf, modernParams, tasksServer, textOf } from './tasks-harness.ts';
import type { RawConnection } from '../../support/feature-pair.ts';

const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
type Message = Record<string, unknown>;

/** The next message the server sent that `match` accepts, waiting (bounded) for it. */
async function next(raw: RawConnection, match: (message: Message) => boolean, seen: Set<unknown>, ms = 3000): Promise<Message> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = raw.received.find((message) => !seen.has(message) && match(message as Message));
    if (found !== undefined) {
      seen.add(found);
      return found as Message;
    }
    if (Date.now() > deadline) throw new assert.AssertionError({ message: `no such message within ${ms} ms; received ${JSON.stringify(raw.received)}` });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const method = (name: string) => (message: Message): boolean => message['method'] === name;
const params = (message: Message): JsonObject => message['params'] as JsonObject;

describe('modern tasks: status notifications on a listen', () => {
  test('a listen naming a task hears each status (with inputRequests, then the result), its logs and its progress', async () => {
    await using setup = tasksServer();
    const go = deferred();
    setup.server.tool({ name: 'chatty', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      await go.promise;
      ctx.progress({ progress: 1, total: 2 });
      ctx.log('info', 'halfway');
      const answer = await ctx.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
      return `went on: ${String(answer.content?.['ok'])}`;
    });
    const client = setup.connect();
    const created = await client.callAsTask('chatty', {}, WITH_TASKS_AND_INPUT);
    // callAsTask sent no progress token: the call's own is asked for with a second task.
    const withToken = await client.request('tools/call', { name: 'chatty', arguments: {}, _meta: { progressToken: 'p-1', 'io.modelcontextprotocol/logLevel': 'info' } }, WITH_TASKS_AND_INPUT);
    const taskId = (withToken.result as JsonObject)['taskId'] as string;
    client.raw.send('subscriptions/listen', modernParams({ notifications: { taskIds: [taskId, 'no-such-task', created['taskId'] as string] } }, WITH_TASKS));
    const seen = new Set<unknown>();
    const ack = await next(client.raw, method('notifications/subscriptions/acknowledged'), seen);
    const listenId = (params(ack)['_meta'] as JsonObject)[SUBSCRIPTION];
    assert.deepEqual((params(ack)['notifications'] as JsonObject)['taskIds'], [taskId, created['taskId']], 'unknown ids are left out');
    go.resolve();
    const progress = await next(client.raw, (message) => method('notifications/progress')(message) && params(message)['progressToken'] === 'p-1', seen);
    assert.equal(params(progress)['progress'], 1);
    assert.equal((params(progress)['_meta'] as JsonObject)[SUBSCRIPTION], listenId);
    const log = await next(client.raw, method('notifications/message'), seen);
    assert.equal(params(log)['data'], 'halfway');
    assert.equal((params(log)['_meta'] as JsonObject)[SUBSCRIPTION], listenId);
    const parked = await next(client.raw, (message) => method('notifications/tasks')(message) && params(message)['taskId'] === taskId && params(message)['status'] === 'input_required', seen);
    assert.deepEqual(Object.keys(params(parked)['inputRequests'] as JsonObject), ['elicitation-1']);
    assert.equal(params(parked)['resultType'], undefined, 'a notification is not a result');
    assert.equal((params(parked)['_meta'] as JsonObject)[SUBSCRIPTION], listenId);
    await client.request('tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { ok: true } } } });
    const done = await next(client.raw, (message) => method('notifications/tasks')(message) && params(message)['taskId'] === taskId && params(message)['status'] === 'completed', seen);
    assert.equal(textOf(params(done)['result']), 'went on: true');
    // Checked while the listen is open (its own answer, at the server's close, answers a request sent raw).
    client.assertClean();
  });

  test('naming tasks without declaring the extension is -32021; a server without the extension agrees to none', async () => {
    await using setup = tasksServer();
    const client = setup.connect();
    const refused = errorOf(await client.request('subscriptions/listen', { notifications: { taskIds: ['x'] } }, INPUT_ONLY), -32021);
    assert.deepEqual(refused.data, { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } });
    client.assertClean();

    await using plain = tasksServer({ modern: {} });
    const other = plain.connect();
    other.raw.send('subscriptions/listen', modernParams({ notifications: { taskIds: ['x'], toolsListChanged: true } }, WITH_TASKS));
    const ack = await next(other.raw, method('notifications/subscriptions/acknowledged'), new Set());
    assert.equal((params(ack)['notifications'] as JsonObject)['taskIds'], undefined);
  });
});
