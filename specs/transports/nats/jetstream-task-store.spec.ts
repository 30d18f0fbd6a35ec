/**
 * The JetStream KV task store (rxmcp/nats) against a real nats-server: two stores on two connections play two
 * server processes. Tasks are the creating owner's only; status moves are compare-and-set (of two processes
 * finishing one task at once exactly one wins, and a terminal task never moves again); lists page in creation
 * order with cursors bound to their owner; terminal tasks go when their ttl has elapsed; an owner's tasks are
 * bounded; `result` waits for another process's write. The relay reaches a task's runner, answers for a runner
 * that runs nothing of the kind, and calls a runner gone only when nobody serves it any more.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { TaskStoreError, type TaskRunnerCalls } from '../../../core/catalog/task-store.ts';
import { WireError } from '../../../core/errors.ts';
import { isNoRespondersError } from '../../../transports/nats/headers.ts';
import { until } from './nats-processes.ts';
import { type JetStreamTaskStore, type JetStreamTaskStoreOptions, createJetStreamTaskStore } from '../../../transports/nats/jetstream-task-store.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';

interface Process extends AsyncDisposable {
  readonly nc: NatsConnection;
  readonly store: JetStreamTaskStore;
}

async function processOf(nats: NatsServerProcess, options: Partial<JetStreamTaskStoreOptions> = {}): Promise<Process> {
  const nc = await connect({ servers: nats.url, reconnect: false });
  const store = await createJetStreamTaskStore({ connection: nc, bucket: 'spec_tasks', storage: 'memory', recheckMs: 50, forwardTimeoutMs: 10_000, ...options });
  return {
    nc,
    store,
    async [Symbol.asyncDispose]() {
      store.close();
      await nc.close();
    },
  };
}

const OK = { type: 'result', result: { content: [] } } as const;

describe('JetStream KV task store', { timeout: 60_000 }, () => {
  test('tasks are their owner\'s, seen alike by every process; moves are compare-and-set', async () => {
    await using nats = await startNatsServer();
    await using one = await processOf(nats);
    await using two = await processOf(nats);
    const task = await one.store.create('alice', { ttl: 60_000, pollInterval: 500 });
    assert.equal(task.status, 'working');
    assert.deepEqual(await two.store.get('alice', task.taskId), task);
    assert.equal(await two.store.get('bob', task.taskId), undefined, 'another owner cannot see it');
    assert.equal(await two.store.cancel('bob', task.taskId), undefined, 'nor move it');
    assert.equal(await two.store.get('alice', 'not a.key>'), undefined);

    const parked = await two.store.updateStatus('alice', task.taskId, 'input_required', 'waiting');
    assert.equal(parked?.changed, true);
    assert.equal((await one.store.get('alice', task.taskId))?.statusMessage, 'waiting');
    // Two processes finish it at once: exactly one write wins, and both answer with the task as it now is.
    const [a, b] = await Promise.all([
      one.store.setResult('alice', task.taskId, 'completed', OK),
      two.store.setResult('alice', task.taskId, 'failed', { type: 'error', error: { code: -32603, message: 'gone' } }, 'gone'),
    ]);
    assert.equal([a, b].filter((change) => change?.changed === true).length, 1);
    const final = await one.store.get('alice', task.taskId);
    assert.equal(a?.task.status, final?.status);
    assert.equal(b?.task.status, final?.status);
    const finished = await two.store.result('alice', task.taskId);
    assert.equal(finished?.outcome?.type, final?.status === 'completed' ? 'result' : 'error');
    // Terminal is final.
    assert.equal((await one.store.cancel('alice', task.taskId))?.changed, false);
    assert.equal((await one.store.updateStatus('alice', task.taskId, 'working'))?.changed, false);
  });

  test('result waits for another process\'s write; an abort ends the wait', async () => {
    await using nats = await startNatsServer();
    await using one = await processOf(nats);
    await using two = await processOf(nats);
    const task = await one.store.create('alice', { ttl: null });
    const waiting = two.store.result('alice', task.taskId);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await one.store.setResult('alice', task.taskId, 'completed', OK);
    const finished = await waiting;
    assert.equal(finished?.task.status, 'completed');
    assert.deepEqual(finished?.outcome, OK);
    const other = await one.store.create('alice', { ttl: null });
    const controller = new AbortController();
    const aborted = two.store.result('alice', other.taskId, controller.signal);
    setTimeout(() => controller.abort(new Error('stop waiting')), 100);
    await assert.rejects(aborted, /stop waiting/);
  });

  test('lists page in creation order, cursors bound to their owner; owners are bounded; expired tasks go', async () => {
    await using nats = await startNatsServer();
    await using one = await processOf(nats, { pageSize: 2, maxTasksPerOwner: 5 });
    await using two = await processOf(nats, { pageSize: 2, maxTasksPerOwner: 5 });
    const made: string[] = [];
    for (let n = 0; n < 5; n++) made.push((await (n % 2 === 0 ? one : two).store.create('alice', { ttl: 60_000 })).taskId);
    await assert.rejects(one.store.create('alice', { ttl: 60_000 }), (error: unknown) => error instanceof TaskStoreError && error.code === 'TaskLimit');
    await one.store.create('bob', { ttl: 60_000 });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const listed = await (page % 2 === 0 ? two : one).store.list('alice', cursor);
      assert.ok(listed.tasks.length <= 2);
      seen.push(...listed.tasks.map((task) => task.taskId));
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    assert.deepEqual(seen, made);
    const first = await one.store.list('alice');
    await assert.rejects(one.store.list('bob', first.nextCursor), (error: unknown) => error instanceof TaskStoreError && error.code === 'InvalidCursor');

    // A terminal task whose ttl has elapsed is gone for everyone (a running one stays).
    const short = await one.store.create('carol', { ttl: 50 });
    const running = await one.store.create('carol', { ttl: 50 });
    await one.store.setResult('carol', short.taskId, 'completed', OK);
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(await two.store.get('carol', short.taskId), undefined);
    assert.equal((await two.store.get('carol', running.taskId))?.status, 'working');
    await one.store.cancel('carol', running.taskId);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await one.store.deleteExpired(), 1);
    assert.equal(await one.store.deleteOwner('alice'), 5);
    assert.deepEqual((await two.store.list('alice')).tasks, []);
  });

  test('the relay reaches a task\'s runner, and calls it gone only once nobody serves it', async () => {
    await using nats = await startNatsServer();
    await using asker = await processOf(nats);
    const runner = await processOf(nats);
    const task = await runner.store.create('alice', { ttl: null });
    const supplied: string[] = [];
    const calls: TaskRunnerCalls = {
      inputRequests: (owner, taskId) => (owner === 'alice' && taskId === task.taskId ? { running: true, inputRequests: { k: { method: 'roots/list' } } } : { running: false }),
      supply: async (owner, taskId, responses) => {
        if (owner !== 'alice' || taskId !== task.taskId) return false;
        if (responses['k'] === null) throw new WireError(-32602, 'Invalid params: inputResponses "k" do not have the shape of the result they answer');
        supplied.push(JSON.stringify(responses));
        return true;
      },
      cancel: async () => false,
    };
    const stop = runner.store.relay!.serve(calls);
    assert.deepEqual(await asker.store.relay!.inputRequests('alice', task.taskId), { type: 'answered', value: { running: true, inputRequests: { k: { method: 'roots/list' } } } });
    assert.deepEqual(await asker.store.relay!.supply('alice', task.taskId, { k: { roots: [] } }), { type: 'answered', value: true });
    assert.deepEqual(supplied, ['{"k":{"roots":[]}}']);
    // The runner's refusal comes back as it is; another owner's call reaches nothing there.
    assert.deepEqual(await asker.store.relay!.supply('alice', task.taskId, { k: null }), { type: 'failed', error: { code: -32602, message: 'Invalid params: inputResponses "k" do not have the shape of the result they answer' } });
    assert.deepEqual(await asker.store.relay!.inputRequests('bob', task.taskId), { type: 'answered', value: { running: false } });
    assert.deepEqual(await asker.store.relay!.cancel('alice', task.taskId), { type: 'answered', value: false });
    stop();
    // Alive, but running nothing of it.
    assert.deepEqual(await asker.store.relay!.inputRequests('alice', task.taskId), { type: 'answered', value: { running: false } });
    await runner[Symbol.asyncDispose]();
    // nats-server reads the closed connection in its own time: until then a call would wait for its deadline.
    await until(async () => {
      try {
        await asker.nc.request(`mcp.tasks.spec_tasks.${runner.store.runnerId}`, new Uint8Array(0), { timeout: 1000 });
        return false;
      } catch (error) {
        return isNoRespondersError(error);
      }
    }, 'the closed runner dropped by nats-server', 10_000);
    assert.deepEqual(await asker.store.relay!.inputRequests('alice', task.taskId), { type: 'gone' });
  });
});
