/**
 * The JetStream buckets the binding and the gateway create (the server's session records, the gateway's
 * sessions, its SSE event stream, the claim-check object store, the task store) are created through an election: on a real 3-node
 * cluster with two nodes down, JetStream has no quorum (no meta leader) and answers nothing but "temporarily
 * unavailable" or a timeout. A creation started then succeeds once a node comes back within its
 * `electionRetryMs`, and fails with the last JetStream error, within its budget, when none does. (A lone node
 * without quorum mostly answers nothing: the timeout is what is tried again.)
 *
 * @serial: a 3-node nats cluster whose nodes are killed and restarted (same ports), and creations bounded by the JetStream leader elections' retry windows
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, errors } from '@nats-io/transport-node';
import { JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { GatewaySessions } from '../../../../cli/gateway/session-records.ts';
import { openClaimStore } from '../../../../transports/nats/claim-check.ts';
import { JetStreamEventStore } from '../../../../transports/nats/jetstream-event-store.ts';
import { createJetStreamTaskStore } from '../../../../transports/nats/jetstream-task-store.ts';
import { SessionRecords } from '../../../../transports/nats/server/session-records.ts';
import { type ClusterNode, type NatsCluster, startNatsCluster } from '../../../support/nats-cluster.ts';
import { natsConnection, sleep } from '../nats-processes.ts';

/** What JetStream answers without a meta leader: 503 (temporarily unavailable, or no responders) or nothing. */
/** A JetStream API request's own timeout (nats.js default): the last attempt may start just before the budget ends. */
const REQUEST_TIMEOUT_MS = 5000;

let cluster: NatsCluster;
let connection: NatsConnection;

/** Every bucket creation under test, each with its own bucket names (`tag`) and the budget given. */
function creations(tag: string, electionRetryMs: number): Record<string, Promise<unknown>> {
  return {
    'session records': SessionRecords.open(connection, `creation_${tag}`, { electionRetryMs }),
    'gateway sessions': GatewaySessions.open(connection, `gw_creation_${tag}`, 60_000, { electionRetryMs }),
    'claim-check store': openClaimStore(connection, { bucket: `claims_${tag}`, electionRetryMs }),
    'gateway event stream': JetStreamEventStore.create(connection, { stream: `EVENTS_${tag}`, subjectPrefix: `events.${tag}`, electionRetryMs, producerCheckMs: false }).then(async (store) => {
      await store.close();
      return store;
    }),
    'task store': createJetStreamTaskStore({ connection, bucket: `tasks_${tag}`, storage: 'memory', electionRetryMs }).then((store) => {
      store.close();
      return store;
    }),
  };
}

interface Watched {
  /** Each creation's outcome (and when it came), never rejecting. */
  readonly outcomes: Record<string, Promise<{ readonly error?: unknown; readonly at: number }>>;
  /** The names of the creations that ended so far. */
  readonly ended: Set<string>;
}

function watch(promises: Record<string, Promise<unknown>>): Watched {
  const ended = new Set<string>();
  const outcomes = Object.fromEntries(Object.entries(promises).map(([name, promise]) => {
    const settle = (error?: unknown): { readonly error?: unknown; readonly at: number } => {
      ended.add(name);
      return error === undefined ? { at: Date.now() } : { error, at: Date.now() };
    };
    return [name, promise.then(() => settle(), (error: unknown) => settle(error ?? new Error('rejected without a reason')))];
  }));
  return { outcomes, ended };
}

function node(index: number): ClusterNode {
  return cluster.nodes[index] as ClusterNode;
}

describe('NATS cluster: bucket creation waits for a JetStream leader', { timeout: 120_000 }, () => {
  before(async () => {
    cluster = await startNatsCluster();
    // Node 0 first: it is the one left running.
    connection = await natsConnection(cluster.urls, 'bucket-creation');
  });

  after(async () => {
    await connection?.close().catch(() => undefined);
    await cluster.dispose();
  });

  test('a creation started without quorum succeeds once a node comes back within electionRetryMs', { timeout: 60_000 }, async (t) => {
    await node(1).kill();
    await node(2).kill();
    const startedAt = Date.now();
    const { outcomes, ended } = watch(creations('back', 40_000));
    // Without a quorum nothing can be created: every creation is still trying.
    await sleep(2000);
    assert.deepEqual([...ended], [], 'no creation ended while JetStream had no quorum');
    await node(1).start();
    const backAt = Date.now();
    // The quorum is back. Node 2 too: a new leader may still count it as a peer and place a one-replica bucket on
    // it, where nothing answers until it runs again.
    await node(2).start();
    for (const [name, outcome] of Object.entries(outcomes)) {
      const { error, at } = await outcome;
      assert.equal(error, undefined, `${name}: created once the quorum returned (${String(error)})`);
      t.diagnostic(`${name}: created ${at - backAt} ms after the quorum came back (${at - startedAt} ms after the start)`);
    }
    // The buckets are there, read through JetStream.
    const jsm = await jetstreamManager(connection);
    for (const stream of ['KV_mcp_sessions_creation_back', 'KV_gw_creation_back', 'OBJ_claims_back', 'EVENTS_back', 'KV_tasks_back']) {
      assert.equal((await jsm.streams.info(stream)).config.name, stream);
    }
  });

  test('without quorum for the whole budget, the creation fails with the last JetStream error, within its budget', { timeout: 60_000 }, async (t) => {
    await node(1).kill();
    await node(2).kill();
    const budgetMs = 1500;
    const startedAt = Date.now();
    const { outcomes } = watch(creations('never', budgetMs));
    for (const [name, outcome] of Object.entries(outcomes)) {
      const { error, at } = await outcome;
      t.diagnostic(`${name}: failed after ${at - startedAt} ms: ${String(error)}`);
      assert.ok(error instanceof Error, `${name}: an error (${String(error)})`);
      // nats.js v3: no responders on the JetStream API (JetStreamNotEnabled), a timeout, or JetStream's 503.
      const leaderless = error.name === 'JetStreamNotEnabled' || error instanceof errors.TimeoutError || (error instanceof JetStreamApiError && error.status === 503);
      assert.ok(leaderless, `${name}: the leaderless answer, not another error (${error.name}: ${error.message})`);
      // The last pause (at most 500 ms) is not taken when it would end past the budget.
      assert.ok(at - startedAt >= budgetMs - 600, `${name}: tried for its budget (${at - startedAt} ms)`);
      assert.ok(at - startedAt <= budgetMs + REQUEST_TIMEOUT_MS + 2000, `${name}: gave up soon after its budget (${at - startedAt} ms)`);
    }
  });
});
