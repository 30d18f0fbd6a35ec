/**
 * MCP over a real 3-node nats-server cluster (routes on 127.0.0.1, JetStream clustered, the session records'
 * KV bucket with 3 replicas): one nats-server node is SIGKILLed under load of both eras.
 * - Clients and server processes connected to that node reconnect to the others (they were given every node's
 *   URL); calls caught by the kill fail with a clear error, every call sent once the cluster recovered is
 *   answered, nothing waits for its timeout.
 * - The node killed leads the KV bucket: sessions opened during the election get their records all the same
 *   (the writes are tried again until a new leader takes them).
 * - Legacy sessions keep their ids and never initialize again; their records are all still in the KV bucket.
 * - With the node still down, a server process is SIGKILLed too: its sessions are taken over by the survivors
 *   (the takeover's compare-and-set runs on the 2 remaining replicas).
 *
 * @serial: a 3-node nats cluster with a node killed under load, and the failed calls bounded in wall-clock time after the kill
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { jetstreamManager } from '@nats-io/jetstream';
import { type NatsCluster, startNatsCluster } from '../../../support/nats-cluster.ts';
import {
  type Load,
  type NatsClient,
  type Outcome,
  type ServerProcess,
  awaitGoneFromNats,
  connectClient,
  describeOutcome,
  natsConnection,
  sleep,
  startLoad,
  startServerProcess,
  stopAll,
  timedCall,
  until,
} from '../nats-processes.ts';

const NAME = 'clustered';
const KEEPALIVE_MS = 200;
const SILENCE_MS = 1500;
/** A call caught by the kill fails within this of it: silenceMs, the silence check, reconnection, scheduling. */
const FAIL_BOUND_MS = SILENCE_MS + 4000;
const CALL_TIMEOUT_MS = 10_000;
const CLEAR_ERRORS = new Set(['PeerUnresponsive', 'TransportFailed']);

let cluster: NatsCluster;
let processes: ServerProcess[] = [];
const connections: NatsConnection[] = [];
const clients: NatsClient[] = [];

/** The cluster's URLs, starting at node `first` (the connection goes there first and fails over in order). */
function urlsFrom(first: number): string[] {
  const urls = [...cluster.urls];
  return [...urls.slice(first), ...urls.slice(0, first)];
}

async function clientConnection(first: number, label: string): Promise<NatsConnection> {
  const connection = await natsConnection(urlsFrom(first), label);
  connections.push(connection);
  return connection;
}

/** The nats-server node a fixture process last said it is connected to. */
function nodeOf(process: ServerProcess): string | undefined {
  return process.lines().filter((line) => line.startsWith('node ')).at(-1)?.slice('node '.length);
}

function failures(outcomes: readonly Outcome[]): (Outcome & { ok: false })[] {
  return outcomes.filter((o): o is Outcome & { ok: false } => !o.ok);
}

describe('NATS cluster: a nats-server node dies under load', { timeout: 120_000 }, () => {
  before(async () => {
    cluster = await startNatsCluster();
    // One process per node, each first on its own node.
    processes = await Promise.all([0, 1, 2].map((first) => startServerProcess(urlsFrom(first).join(','), NAME, { KEEPALIVE_MS: String(KEEPALIVE_MS), REPLICAS: '3' })));
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await cluster.dispose();
  });

  test('clients and servers fail over to the other nodes; sessions, records and takeover survive', { timeout: 100_000 }, async (t) => {
    assert.deepEqual(processes.map(nodeOf), cluster.nodes.map((node) => node.name), 'each process is on its own node');
    // The victim is the node leading the session records' bucket.
    const setup = await clientConnection(0, 'setup');
    const bucketInfo = await (await jetstreamManager(setup)).streams.info(`KV_mcp_sessions_${NAME}`);
    assert.equal(bucketInfo.config.num_replicas, 3, 'the session records have 3 replicas');
    const v = cluster.nodes.findIndex((node) => node.name === bucketInfo.cluster?.leader);
    assert.ok(v >= 0, `the bucket has a leader (${String(bucketInfo.cluster?.leader)})`);
    const victimNode = cluster.nodes[v] as (typeof cluster.nodes)[number];
    // Clients on the victim's node and on another one, of both eras.
    const onVictim = await clientConnection(v, 'clients-on-victim');
    const onOther = await clientConnection((v + 1) % 3, 'clients-on-other');
    const modern = [await connectClient(onVictim, NAME, 'modern', SILENCE_MS), await connectClient(onOther, NAME, 'modern', SILENCE_MS)];
    const legacy = await Promise.all(Array.from({ length: 6 }, (_, i) => connectClient(i % 2 === 0 ? onVictim : onOther, NAME, 'legacy', SILENCE_MS)));
    clients.push(...modern, ...legacy);
    const sessionIds = legacy.map((client) => client.transport.sessionId);
    assert.ok(sessionIds.every((id) => typeof id === 'string' && id.length > 0), 'every legacy session has an id');

    // Echoes and short slow calls (several keepalives each), so calls are in flight everywhere at the kill.
    const call = (client: NatsClient) => (n: number) =>
      n % 2 === 0 ? timedCall(client.session, 'echo', { text: `call ${n}` }, CALL_TIMEOUT_MS) : timedCall(client.session, 'slow', { ms: 100 + ((n * 37) % 400) }, CALL_TIMEOUT_MS);
    const loads: { readonly era: 'modern' | 'legacy'; readonly load: Load }[] = [
      ...modern.map((client) => ({ era: 'modern' as const, load: startLoad(3, 5000, 60_000, call(client)) })),
      ...legacy.map((client) => ({ era: 'legacy' as const, load: startLoad(1, 5000, 60_000, call(client)) })),
    ];
    const all = (): Outcome[] => loads.flatMap(({ load }) => load.outcomes);
    let killedAt = 0;
    const newcomers: NatsClient[] = [];
    try {
      await until(() => loads.every(({ load }) => load.outcomes.some((o) => o.ok)), 'every client answered before the kill', 15_000);
      killedAt = Date.now();
      await victimNode.kill();
      // Sessions opened during the election (through a node that lives).
      newcomers.push(...(await Promise.all([0, 1].map(() => connectClient(onOther, NAME, 'legacy', SILENCE_MS)))));
      clients.push(...newcomers);
      // The process that was on the victim's node is back, on another node.
      await until(() => nodeOf(processes[v] as ServerProcess) !== victimNode.name, 'the process on the killed node reconnected elsewhere', 15_000);
      // Long enough for the calls caught by the kill to fail, then a stretch in which every call must succeed.
      await sleep(FAIL_BOUND_MS);
      const recoveredAt = Date.now();
      await until(() => loads.every(({ load }) => load.outcomes.filter((o) => o.ok && o.sentAt > recoveredAt).length >= 5), 'every client answered after the recovery', 30_000);
      for (const { load } of loads) load.stop();
      await Promise.all(loads.map(({ load }) => load.done));

      const outcomes = all();
      const failed = failures(outcomes);
      t.diagnostic(`${outcomes.length} calls, ${failed.length} failed; processes now on ${processes.map(nodeOf).join(', ')}`);
      for (const o of failed) t.diagnostic(`failed: ${describeOutcome(o)}`);
      for (const o of failed) {
        assert.ok(CLEAR_ERRORS.has(o.code), `a call caught by the kill fails with a clear error: ${describeOutcome(o)}`);
        assert.ok(o.sentAt + o.ms >= killedAt - 50 && o.sentAt + o.ms - killedAt <= FAIL_BOUND_MS + 5000, `only calls around the kill fail, soon after it: ${describeOutcome(o)}`);
      }
      for (const o of outcomes) assert.ok(o.ms < CALL_TIMEOUT_MS, `no call waited for its timeout: ${describeOutcome(o)}`);
      for (const { era, load } of loads) {
        const late = load.outcomes.filter((o) => o.sentAt > recoveredAt);
        assert.deepEqual(failures(late).map(describeOutcome), [], `every ${era} call sent after the recovery was answered`);
      }
    } finally {
      for (const { load } of loads) load.stop();
      await Promise.all(loads.map(({ load }) => load.done));
    }

    for (const [i, client] of legacy.entries()) {
      assert.equal(client.transport.sessionId, sessionIds[i], `session ${i} keeps its id`);
      assert.deepEqual(client.sent.filter((method) => method === 'initialize'), ['initialize'], `session ${i} never initialized again`);
    }
    // Every record is still in the bucket (read through a node that never died), owned by a living process.
    const kv = await new Kvm(onOther).create(`mcp_sessions_${NAME}`);
    const living = new Set(processes.map((p) => p.processId));
    for (const [i, sessionId] of [...sessionIds, ...newcomers.map((client) => client.transport.sessionId)].entries()) {
      const entry = await kv.get(sessionId as string);
      assert.ok(entry !== null && entry.operation === 'PUT', `session ${i}'s record survived the node's death (or was written through the election)`);
      const owner = (entry.json() as { owner?: unknown }).owner;
      assert.ok(typeof owner === 'string' && living.has(owner), `session ${i}'s record names a living owner (${String(owner)})`);
    }

    // Takeover with the node still down: the process owning the most sessions dies.
    legacy.push(...newcomers);
    sessionIds.push(...newcomers.map((client) => client.transport.sessionId));
    const owners = await Promise.all(legacy.map(async (client) => {
      const o = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
      assert.ok(o.ok, `answers before the process kill: ${describeOutcome(o)}`);
      return o.pid;
    }));
    const counts = processes.map((p) => owners.filter((pid) => pid === p.pid).length);
    const victim = processes[counts.indexOf(Math.max(...counts))] as ServerProcess;
    t.diagnostic(`owners ${owners.join(',')}; process ${victim.pid} dies`);
    await victim.kill();
    // Every living node has dropped its subscriptions before the calls go out: a request published while a node
    // still forwards to the dead process's node is lost there without a "no responders" (NATS delivers at most
    // once), and so would reach no one to take the session over; the client would rightly end it as silent.
    await Promise.all([onVictim, onOther].map((connection) => awaitGoneFromNats(connection, NAME, victim.processId)));
    const later = await Promise.all(legacy.map((client) => Promise.all([0, 1].map(() => timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS)))));
    for (const [i, client] of legacy.entries()) {
      const pids = new Set((later[i] as Outcome[]).map((o) => (o.ok ? o.pid : describeOutcome(o))));
      assert.equal(pids.size, 1, `session ${i} is served by one process after the kill (${[...pids].join(', ')})`);
      const pid = [...pids][0];
      assert.ok(typeof pid === 'number' && pid !== victim.pid, `session ${i} is served by a living process (${String(pid)})`);
      if (owners[i] !== victim.pid) assert.equal(pid, owners[i], `session ${i} (not the dead process's) stays with its process`);
      assert.equal(client.transport.sessionId, sessionIds[i], `session ${i} keeps its id`);
      assert.deepEqual(client.sent.filter((method) => method === 'initialize'), ['initialize'], `session ${i} never initialized again`);
    }
  });
});
