/**
 * Tasks are owned by their caller (FEATURES #91, #95): over Streamable HTTP with `authenticate`, a task belongs to
 * the principal whose request created it. Another principal (or an unauthenticated caller) gets -32602, exactly as
 * for an unknown id, from every task method of both flavours: the 2026-07-28 extension (`tasks/get|update|cancel`,
 * and a listen naming the task is not agreed to) and the 2025-11-25 tasks (`tasks/get|result|cancel`, and
 * `tasks/list` leaves it out). The owner reaches it from another connection (legacy: another session).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom, take, toArray } from 'rxjs';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { WireError } from '../../../core/errors.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type StreamableHttpServer, createStreamableHttpClientTransport, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { deferred } from '../../support/harness.ts';

const notFound = (error: unknown): boolean => error instanceof WireError && error.code === ErrorCode.InvalidParams && /no task/.test(error.message);

describe('tasks belong to the principal that created them (HTTP authenticate)', () => {
  let server: McpServer;
  let http: StreamableHttpServer;
  let url: string;
  const release = deferred();
  const opened: ClientSession[] = [];

  before(async () => {
    server = createServer({ name: 'owned', version: '1', tasks: {}, modern: { tasks: { pollIntervalMs: 10 } } });
    server.tool({ name: 'wait', execution: { taskSupport: 'required' } }, async () => {
      await release.promise;
      return 'done';
    });
    http = createStreamableHttpServer({ server, authenticate: (request) => request.header('x-user') });
    ({ url } = await http.listen());
  });

  after(async () => {
    release.resolve();
    for (const client of opened) await client.close().catch(() => undefined);
    await http.close();
    await server.close();
  });

  async function connect(user: string | undefined, era: 'legacy' | 'modern'): Promise<ClientSession> {
    const transport = createStreamableHttpClientTransport(url, user === undefined ? {} : { headers: { 'x-user': user } });
    const client = await createClient({ name: `client-${user ?? 'anonymous'}`, version: '1', era, tasks: { listen: false } }).connect(transport);
    opened.push(client);
    return client;
  }

  test('2026-07-28 extension: another principal cannot get, update, cancel or watch the task; its owner can', async () => {
    const alice = await connect('alice', 'modern');
    const created = await alice.session.request('tools/call', { name: 'wait', arguments: {} });
    assert.equal(created['resultType'], 'task');
    const taskId = created['taskId'] as string;
    for (const intruder of [await connect('mallory', 'modern'), await connect(undefined, 'modern')]) {
      await assert.rejects(intruder.session.request('tasks/get', { taskId }), notFound);
      await assert.rejects(intruder.session.request('tasks/update', { taskId, inputResponses: {} }), notFound);
      await assert.rejects(intruder.session.request('tasks/cancel', { taskId }), notFound);
      const ack = await firstValueFrom(intruder.listen$({ taskIds: [taskId] }));
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.equal((ack.params['notifications'] as JsonObject)['taskIds'], undefined, 'a listen is never agreed for another principal\'s task');
    }
    // The owner, on another connection, still reaches it (and it is still running: nobody cancelled it).
    const again = await connect('alice', 'modern');
    assert.equal((await again.session.request('tasks/get', { taskId }))['status'], 'working');
    const ack = await firstValueFrom(again.listen$({ taskIds: [taskId] }));
    assert.deepEqual((ack.params['notifications'] as JsonObject)['taskIds'], [taskId]);
    await again.session.request('tasks/cancel', { taskId });
    assert.equal((await alice.session.request('tasks/get', { taskId }))['status'], 'cancelled');
  });

  test('2025-11-25 tasks: another principal cannot get, fetch, cancel or list the task; the owner\'s other session can', async () => {
    const alice = await connect('alice', 'legacy');
    const { task } = await alice.callToolAsTask('wait');
    const mallory = await connect('mallory', 'legacy');
    await assert.rejects(mallory.getTask(task.taskId), notFound);
    await assert.rejects(mallory.taskResult(task.taskId), notFound);
    await assert.rejects(mallory.cancelTask(task.taskId), notFound);
    assert.deepEqual(await firstValueFrom(mallory.listTasks$().pipe(toArray())), []);
    const anonymous = await connect(undefined, 'legacy');
    await assert.rejects(anonymous.getTask(task.taskId), notFound);
    // Alice's second session: the task is hers there too.
    const second = await connect('alice', 'legacy');
    assert.equal((await second.getTask(task.taskId)).status, 'working');
    const listed = await firstValueFrom(second.listTasks$().pipe(take(10), toArray()));
    assert.ok(listed.some((listedTask) => listedTask.taskId === task.taskId));
    assert.equal((await second.cancelTask(task.taskId)).status, 'cancelled');
  });

  test('2025-11-25 tasks without a principal stay bound to their session', async () => {
    const first = await connect(undefined, 'legacy');
    const { task } = await first.callToolAsTask('wait');
    const other = await connect(undefined, 'legacy');
    await assert.rejects(other.getTask(task.taskId), notFound);
    assert.equal((await first.cancelTask(task.taskId)).status, 'cancelled');
  });
});
