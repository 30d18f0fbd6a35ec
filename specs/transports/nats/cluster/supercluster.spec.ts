/**
 * MCP over a real NATS supercluster: an "east" and a "west" cluster of 3 nats-server nodes each, joined by
 * gateways. The servers' queue group spans both, and NATS prefers a queue member in the publisher's own cluster:
 * - with a server in the west only, an east client's calls (both eras) cross the gateway to it;
 * - once a server runs in the east too, an east client's calls and new sessions stay in the east (and a west
 *   client's in the west);
 * - when the east server dies, the east client's calls reach the west again, and its legacy session is taken
 *   over in the west without a new initialize.
 *
 * @serial: two 3-node nats clusters joined by gateways (six servers), a server process killed, and calls bounded by the silence limit
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { type Supercluster, startSupercluster } from '../../../support/nats-cluster.ts';
import { type NatsClient, type ServerProcess, connectClient, describeOutcome, natsConnection, startServerProcess, stopAll, timedCall, until } from '../nats-processes.ts';

const NAME = 'super';
const SILENCE_MS = 2000;
const CALL_TIMEOUT_MS = 10_000;
const CALLS = 20;
/**
 * The servers' JetStream budget: a fresh supercluster on a loaded machine has been seen to leave a server's first
 * bucket creation unanswered for longer than the default 15 s (the stream API's requests timing out through the
 * gateways); a server that gives up then exits before the spec starts.
 */
const SERVER_ENV = { ELECTION_RETRY_MS: '30000' };

let supercluster: Supercluster;
let startedInMs = 0;
const connections: NatsConnection[] = [];
const clients: NatsClient[] = [];

async function connectionIn(cluster: 'east' | 'west', label: string): Promise<NatsConnection> {
  const connection = await natsConnection(supercluster.cluster(cluster).urls, label);
  connections.push(connection);
  return connection;
}

/** The pids that answered `count` calls of `client`, one after the other (every call must succeed). */
async function answeringPids(client: NatsClient, count: number, what: string): Promise<number[]> {
  const pids: number[] = [];
  for (let i = 0; i < count; i++) {
    const outcome = await timedCall(client.session, 'whoami', {}, CALL_TIMEOUT_MS);
    assert.ok(outcome.ok, `${what}: call ${i} answers: ${describeOutcome(outcome)}`);
    pids.push(outcome.pid);
  }
  return pids;
}

// The suite's bound covers starting six nodes (the hook's own bound) and the test's: a parent bound shorter than
// its parts cancels a test that is merely slow on a loaded machine.
describe('NATS supercluster: calls cross gateways when they must, stay local when they can', { timeout: 240_000 }, () => {
  before(async () => {
    const started = Date.now();
    supercluster = await startSupercluster({ names: ['east', 'west'], size: 3 });
    startedInMs = Date.now() - started;
  }, { timeout: 120_000 });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await supercluster.dispose();
  });

  test('west only, then east preferred by east clients, then west again once the east server dies', { timeout: 110_000 }, async (t) => {
    // Each phase's time is reported as it ends, so a slow or stuck run says where (diagnostics survive a timeout).
    const began = Date.now();
    const phase = (what: string): void => t.diagnostic(`${what} at ${Date.now() - began} ms (the supercluster started in ${startedInMs} ms)`);
    const west: ServerProcess = await startServerProcess(supercluster.cluster('west').urls.join(','), NAME, SERVER_ENV);
    const eastConnection = await connectionIn('east', 'east-clients');
    const westConnection = await connectionIn('west', 'west-clients');

    // 1. No server in the east: the east clients reach the west one through the gateway.
    const eastModern = await connectClient(eastConnection, NAME, 'modern', SILENCE_MS);
    const eastLegacyOld = await connectClient(eastConnection, NAME, 'legacy', SILENCE_MS);
    clients.push(eastModern, eastLegacyOld);
    assert.deepEqual(new Set(await answeringPids(eastModern, 5, 'east modern, west only')), new Set([west.pid]), 'modern calls cross to the west');
    assert.deepEqual(new Set(await answeringPids(eastLegacyOld, 3, 'east legacy, west only')), new Set([west.pid]), 'a legacy session opens in the west');

    phase('1. west only: done');
    // 2. A server in the east too: east traffic stays in the east, west traffic in the west.
    const east = await startServerProcess(supercluster.cluster('east').urls.join(','), NAME, SERVER_ENV);
    // Its queue subscription is at its node once it is ready; give the cluster's other nodes a bounded moment.
    await until(async () => {
      const outcome = await timedCall(eastModern.session, 'whoami', {}, CALL_TIMEOUT_MS);
      return outcome.ok && outcome.pid === east.pid;
    }, 'an east call lands in the east', 15_000);
    const eastPids = await answeringPids(eastModern, CALLS, 'east modern, both clusters served');
    assert.deepEqual(new Set(eastPids), new Set([east.pid]), `every east modern call stays in the east (${eastPids.join(',')})`);
    const eastLegacyNew = await connectClient(eastConnection, NAME, 'legacy', SILENCE_MS);
    const westModern = await connectClient(westConnection, NAME, 'modern', SILENCE_MS);
    const westLegacy = await connectClient(westConnection, NAME, 'legacy', SILENCE_MS);
    clients.push(eastLegacyNew, westModern, westLegacy);
    assert.deepEqual(new Set(await answeringPids(eastLegacyNew, 3, 'new east legacy session')), new Set([east.pid]), 'a new east legacy session opens in the east');
    const westPids = await answeringPids(westModern, CALLS, 'west modern, both clusters served');
    assert.deepEqual(new Set(westPids), new Set([west.pid]), `every west modern call stays in the west (${westPids.join(',')})`);
    assert.deepEqual(new Set(await answeringPids(westLegacy, 3, 'west legacy session')), new Set([west.pid]), 'a west legacy session opens in the west');
    assert.deepEqual(new Set(await answeringPids(eastLegacyOld, 3, 'old east legacy session')), new Set([west.pid]), 'the session opened in the west stays there');

    phase('2. both clusters served: done');
    // 3. The east server dies: east calls cross to the west again; its session is taken over there.
    const sessionId = eastLegacyNew.transport.sessionId;
    await east.kill();
    const afterKill = await Promise.all([
      timedCall(eastModern.session, 'whoami', {}, CALL_TIMEOUT_MS),
      timedCall(eastLegacyNew.session, 'whoami', {}, CALL_TIMEOUT_MS),
    ]);
    t.diagnostic(`first calls after the east server died: ${afterKill.map(describeOutcome).join('; ')}`);
    // The first modern call may still have been routed to the dead member; it fails clearly, never hangs.
    for (const outcome of afterKill) if (!outcome.ok) assert.ok(['PeerUnresponsive', 'TransportFailed'].includes(outcome.code), `a call caught by the death fails clearly: ${describeOutcome(outcome)}`);
    const crossed = await answeringPids(eastModern, CALLS, 'east modern, east server dead');
    assert.deepEqual(new Set(crossed), new Set([west.pid]), `every east modern call reaches the west (${crossed.join(',')})`);
    assert.deepEqual(new Set(await answeringPids(eastLegacyNew, 3, 'east legacy session, east server dead')), new Set([west.pid]), 'the east session is taken over in the west');
    assert.equal(eastLegacyNew.transport.sessionId, sessionId, 'it keeps its id');
    assert.deepEqual(eastLegacyNew.sent.filter((method) => method === 'initialize'), ['initialize'], 'it never initialized again');
    phase('3. east server dead: done');
  });
});
