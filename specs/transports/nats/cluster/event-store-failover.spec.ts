/**
 * The gateway's SSE event stream (JetStreamEventStore, 3 replicas) on a real 3-node nats-server cluster: the
 * node leading the stream is SIGKILLed while one gateway replica appends events and another follows them.
 * Appends go on through the leader election (each is tried again while the stream has no leader, deduplicated
 * by its message id): none fails, none is stored twice; a replica that resumes the stream afterwards replays
 * every acknowledged event in order, and the follower sees every one of them live, then the stream's end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from 'nats';
import { lastValueFrom, toArray } from 'rxjs';
import { JetStreamEventStore } from '../../../../transports/nats/index.ts';
import { type NatsCluster, startNatsCluster } from '../../../support/nats-cluster.ts';

const STREAM = 'MCP_CLUSTER_EVENTS';
const PREFIX = 'mcp-gw.cluster.events';
const SESSION = 'session-1';
/** Appends keep going until this many were acknowledged after the kill (past the leader election)... */
const AFTER_KILL_APPENDS = 20;
/** ...or this long after it. */
const AFTER_KILL_MS = 20_000;
const MAX_APPENDS = 20_000;

let cluster: NatsCluster;
const connections: NatsConnection[] = [];

async function connectTo(first: number): Promise<NatsConnection> {
  const urls = [...cluster.urls.slice(first), ...cluster.urls.slice(0, first)];
  const made = await connect({ servers: urls, noRandomize: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(made);
  return made;
}

describe('NATS cluster: the SSE event stream survives the death of its leader node', { timeout: 90_000 }, () => {
  before(async () => {
    cluster = await startNatsCluster();
  });

  after(async () => {
    await Promise.allSettled(connections.map((made) => made.close()));
    await cluster.dispose();
  });

  test('appends go on through the election; replay and follow at another replica miss nothing', { timeout: 80_000 }, async (t) => {
    const setup = await connectTo(0);
    await JetStreamEventStore.create(setup, { stream: STREAM, subjectPrefix: PREFIX, replicas: 3 });
    const jsm = await setup.jetstreamManager();
    const info = await jsm.streams.info(STREAM);
    assert.equal(info.config.num_replicas, 3, 'the stream has 3 replicas');
    const leader = cluster.nodes.findIndex((node) => node.name === info.cluster?.leader);
    assert.ok(leader >= 0, `the stream has a leader (${String(info.cluster?.leader)})`);
    // The two replicas are connected to the nodes that survive.
    const others = [0, 1, 2].filter((i) => i !== leader);
    const appender = await JetStreamEventStore.create(await connectTo(others[0] as number), { stream: STREAM, subjectPrefix: PREFIX, replicas: 3 });
    // A replay right after an election waits for the stream's new leader; on a loaded machine that can take more
    // than the default 10 s.
    const resumer = await JetStreamEventStore.create(await connectTo(others[1] as number), { stream: STREAM, subjectPrefix: PREFIX, replicas: 3, replayTimeoutMs: 30_000 });

    const first = await appender.append(SESSION, 'p1', null);
    const follow = resumer.follow(SESSION, first);
    assert.ok(follow !== undefined, 'the other replica follows the stream');
    const followed = lastValueFrom(follow.pipe(toArray()));
    const appended: { readonly id: string; readonly n: number; readonly at: number }[] = [];
    const failed: string[] = [];
    let killedAt = Number.POSITIVE_INFINITY;
    let slowest = 0;
    const appending = (async () => {
      const enough = (): boolean => appended.filter((a) => a.at > killedAt).length >= AFTER_KILL_APPENDS;
      for (let n = 0; n < MAX_APPENDS && Date.now() < killedAt + AFTER_KILL_MS && !enough(); n++) {
        const startedAt = Date.now();
        try {
          appended.push({ id: await appender.append(SESSION, 'p1', JSON.stringify({ n })), n, at: Date.now() });
        } catch (error) {
          failed.push(`${n}: ${String(error)}`);
        }
        slowest = Math.max(slowest, Date.now() - startedAt);
      }
    })();
    while (appended.length < 50 && failed.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const consumers = await jsm.consumers.list(STREAM).next();
    t.diagnostic(`the follower's consumer is led by ${consumers.map((c) => String(c.cluster?.leader)).join(', ')}`);
    killedAt = Date.now();
    await cluster.nodes[leader]?.kill();
    await appending;
    await appender.endStream(SESSION, 'p1');
    const newLeader = (await jsm.streams.info(STREAM).catch(() => undefined))?.cluster?.leader;
    t.diagnostic(`${appended.length} appends, ${failed.length} failed, slowest ${slowest} ms; leader ${cluster.nodes[leader]?.name} killed, now ${String(newLeader)}`);

    assert.deepEqual(failed, [], 'no append failed');
    const afterKill = appended.filter((a) => a.at > killedAt).length;
    assert.ok(afterKill >= AFTER_KILL_APPENDS, `appends went on after the kill (${afterKill} of ${appended.length})`);
    const ids = appended.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length, 'every append has its own id (none stored twice)');

    const replayStarted = Date.now();
    const replay = await resumer.replayAfter(SESSION, first);
    t.diagnostic(`replayed ${replay?.events.length ?? 'nothing'} in ${Date.now() - replayStarted} ms`);
    assert.ok(replay !== undefined, 'the stream is found after the election');
    assert.deepEqual(replay.events.map((event) => event.id), ids, 'the replay holds every acknowledged event, in order');
    assert.deepEqual(replay.events.map((event) => (JSON.parse(event.message) as { n: number }).n), appended.map((a) => a.n), 'with their bodies');
    // Bounded: a follower whose consumer died with the node must notice and carry on, not wait forever.
    let timer: NodeJS.Timeout | undefined;
    const live = await Promise.race([
      followed,
      new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('the follower did not reach the end within 30 s')), 30_000))),
    ]).finally(() => clearTimeout(timer));
    assert.deepEqual(live.map((event) => event.id), ids, 'the follower saw every event, in order, then the end');
    await appender.close();
    await resumer.close();
  });
});
