/**
 * The JetStream task store's status moves on a real 3-node JetStream cluster are confirmed as session claims
 * are: a clustered stream may store two compare-and-set writes made on one revision (nats-server #4320), and
 * both writers would be told they won. Two processes (stores on connections to different nodes) finishing the
 * same tasks at once, one completing and one cancelling: exactly one wins each, the loser is told (unchanged,
 * with the task as the winner left it), and the store never reports two winners. Then the hazard itself, made
 * on purpose: a move overwritten just after it was accepted, by a write made on the revision it replaced, is
 * reported lost, with the record that stands.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { type JetStreamTaskStore, createJetStreamTaskStore } from '../../../../transports/nats/jetstream-task-store.ts';
import { type NatsCluster, startNatsCluster } from '../../../support/nats-cluster.ts';

let cluster: NatsCluster;
const connections: NatsConnection[] = [];
const stores: JetStreamTaskStore[] = [];

const OK = { type: 'result', result: { content: [] } } as const;

/** A store on a connection to one node of the cluster (a server process there). */
async function storeOn(node: number, bucket: string): Promise<{ readonly store: JetStreamTaskStore; readonly connection: NatsConnection }> {
  const connection = await connect({ servers: cluster.urls[node] as string });
  connections.push(connection);
  const store = await createJetStreamTaskStore({ connection, bucket, replicas: 3 });
  stores.push(store);
  return { store, connection };
}

describe('NATS cluster: task moves are confirmed like session claims', { timeout: 120_000 }, () => {
  before(async () => {
    cluster = await startNatsCluster();
    await cluster.jetstreamReady();
  });

  after(async () => {
    for (const store of stores) store.close();
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await cluster?.dispose();
  });

  test('two processes finishing 30 tasks at once: one winner each, the loser told, never two winners', async (t) => {
    const { store: one } = await storeOn(0, 'race_tasks');
    const { store: two } = await storeOn(1, 'race_tasks');
    const tasks = await Promise.all(Array.from({ length: 30 }, () => one.create('owner', { ttl: 60_000 })));
    const outcomes = await Promise.all(tasks.map(async (task) => {
      // Each store completes half the tasks and cancels the other half, and each move goes first for half of those.
      const index = tasks.indexOf(task);
      const [completer, canceller] = index % 2 === 0 ? [one, two] : [two, one];
      const complete = (): ReturnType<JetStreamTaskStore['setResult']> => completer.setResult('owner', task.taskId, 'completed', OK);
      const cancel = (): ReturnType<JetStreamTaskStore['cancel']> => canceller.cancel('owner', task.taskId, 'stopped');
      const [completed, cancelled] = index % 4 < 2 ? await Promise.all([complete(), cancel()]) : ((await Promise.all([cancel(), complete()])).reverse() as [Awaited<ReturnType<typeof complete>>, Awaited<ReturnType<typeof cancel>>]);
      return { task, completed, cancelled, stored: await one.get('owner', task.taskId) };
    }));
    let completions = 0;
    for (const { task, completed, cancelled, stored } of outcomes) {
      const winners = [completed, cancelled].filter((change) => change?.changed === true);
      assert.equal(winners.length, 1, `task ${task.taskId}: exactly one move won (${JSON.stringify([completed, cancelled])})`);
      const winner = winners[0];
      assert.equal(stored?.status, winner?.task.status, 'the stored task is the winner\'s');
      const loser = completed?.changed === true ? cancelled : completed;
      assert.equal(loser?.changed, false, 'the loser is told it changed nothing');
      assert.equal(loser?.task.status, stored?.status, 'and sees the task as the winner left it');
      if (stored?.status === 'completed') completions++;
    }
    t.diagnostic(`${completions} completed, ${outcomes.length - completions} cancelled`);
  });

  test('a move overwritten after it was accepted, by a write made on the revision it replaced, is reported lost', async () => {
    const { store, connection } = await storeOn(0, 'hazard_tasks');
    const task = await store.create('owner', { ttl: 60_000 });
    const kv = await new Kvm(connection).create('hazard_tasks');
    let taskKey = '';
    for await (const found of await kv.keys()) taskKey = found;
    assert.match(taskKey, new RegExp(`${task.taskId}$`));
    const before = await kv.get(taskKey);
    assert.ok(before !== null);
    const replaced = before.json<{ task: { status: string; statusMessage?: string } }>();
    // What a cancel that the cluster also accepted on the same revision would store, just after the completion.
    const watch = await kv.watch({ key: taskKey, include: 'updates' as never });
    let rivalWritten = false;
    void (async () => {
      for await (const entry of watch) {
        if (entry.operation !== 'PUT' || rivalWritten) continue;
        if (entry.json<{ task: { status: string } }>().task.status !== 'completed') continue;
        rivalWritten = true;
        await kv.put(taskKey, JSON.stringify({ ...replaced, task: { ...replaced.task, status: 'cancelled', statusMessage: 'a concurrent cancel' } }));
      }
    })();
    const change = await store.setResult('owner', task.taskId, 'completed', OK);
    watch.stop();
    assert.ok(rivalWritten, 'the completion was overwritten');
    assert.equal(change?.changed, false, 'the completion is reported lost');
    assert.equal(change?.task.status, 'cancelled', 'with the task as the write that stands left it');
    assert.equal((await store.get('owner', task.taskId))?.status, 'cancelled');
  });
});
