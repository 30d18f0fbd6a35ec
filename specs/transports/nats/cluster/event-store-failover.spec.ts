/**
 * The gateway's SSE event stream (JetStreamEventStore, 3 replicas) on a real 3-node nats-server cluster: the
 * node leading the stream is SIGKILLed while one gateway replica appends events and another follows them.
 * Appends go on through the leader election (each is tried again while the stream has no leader, deduplicated
 * by its message id): none fails, none is stored twice; a replica that resumes the stream afterwards replays
 * every acknowledged event in order, within seconds (the store reads from the stream's leader, never through a
 * consumer that could be placed on the dead node), and the follower sees every one of them live, then the
 * stream's end. A follow also carries on when the node its own connection is on dies (leading the stream or
 * not): it reads on after its reconnect, missing nothing, repeating nothing.
 *
 * @serial: a 3-node nats cluster whose stream leader is killed and restarted (same ports), and the replay after the election bounded in wall-clock time
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { lastValueFrom, toArray } from 'rxjs';
import { JetStreamEventStore } from '../../../../transports/nats/index.ts';
import { type NatsCluster, startNatsCluster } from '../../../support/nats-cluster.ts';
import { sleep, until } from '../nats-processes.ts';

const STREAM = 'MCP_CLUSTER_EVENTS';
const PREFIX = 'mcp-gw.cluster.events';
const SESSION = 'session-1';
/** Appends keep going until this many were acknowledged after the kill (past the leader election)... */
const AFTER_KILL_APPENDS = 20;
/** ...or this long after it. */
const AFTER_KILL_MS = 20_000;
const MAX_APPENDS = 20_000;
/** A replay after the election reads a few hundred events from the new leader: seconds, not the 10 s timeout. */
const REPLAY_WITHIN_MS = 5000;

let cluster: NatsCluster;
const connections: NatsConnection[] = [];

async function connectTo(first: number): Promise<NatsConnection> {
  return connectIn([...cluster.urls.keys()].map((i) => (first + i) % cluster.urls.length));
}

/** A connection to the nodes in this order (to the first, then on its death to the next one that is up). */
async function connectIn(order: readonly number[]): Promise<NatsConnection> {
  const made = await connect({ servers: order.map((i) => cluster.urls[i] as string), noRandomize: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(made);
  return made;
}

describe('NATS cluster: the SSE event stream survives the death of its leader node', { timeout: 300_000 }, () => {
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
    const jsm = await jetstreamManager(setup);
    const info = await jsm.streams.info(STREAM);
    assert.equal(info.config.num_replicas, 3, 'the stream has 3 replicas');
    const leader = cluster.nodes.findIndex((node) => node.name === info.cluster?.leader);
    assert.ok(leader >= 0, `the stream has a leader (${String(info.cluster?.leader)})`);
    // The two replicas are connected to the nodes that survive.
    const others = [0, 1, 2].filter((i) => i !== leader);
    const appender = await JetStreamEventStore.create(await connectTo(others[0] as number), { stream: STREAM, subjectPrefix: PREFIX, replicas: 3 });
    const resumer = await JetStreamEventStore.create(await connectTo(others[1] as number), { stream: STREAM, subjectPrefix: PREFIX, replicas: 3 });

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
    // The manager's own connection may be reconnecting from the killed node: the listing is retried, its answer is not.
    let consumers: unknown[] | undefined;
    await until(async () => (consumers = await jsm.consumers.list(STREAM).next().catch(() => undefined)) !== undefined, 'the stream lists its consumers', 30_000);
    assert.deepEqual(consumers, [], 'the follower reads without a consumer');
    killedAt = Date.now();
    await cluster.nodes[leader]?.kill();
    await appending;
    await appender.endStream(SESSION, 'p1');
    const newLeader = (await jsm.streams.info(STREAM).catch(() => undefined))?.cluster?.leader;
    const firstAfter = appended.find((a) => a.at > killedAt);
    t.diagnostic(`${appended.length} appends, ${failed.length} failed, slowest ${slowest} ms, first acknowledged ${firstAfter === undefined ? 'never' : `${firstAfter.at - killedAt} ms`} after the kill; leader ${cluster.nodes[leader]?.name} killed, now ${String(newLeader)}`);

    assert.deepEqual(failed, [], 'no append failed');
    const afterKill = appended.filter((a) => a.at > killedAt).length;
    assert.ok(afterKill >= AFTER_KILL_APPENDS, `appends went on after the kill (${afterKill} of ${appended.length})`);
    const ids = appended.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length, 'every append has its own id (none stored twice)');

    const replayStarted = Date.now();
    const replay = await resumer.replayAfter(SESSION, first);
    const replayMs = Date.now() - replayStarted;
    t.diagnostic(`replayed ${replay?.events.length ?? 'nothing'} in ${replayMs} ms`);
    assert.ok(replay !== undefined, 'the stream is found after the election');
    assert.ok(replayMs < REPLAY_WITHIN_MS, `the replay took ${replayMs} ms after the election`);
    assert.deepEqual(replay.events.map((event) => event.id), ids, 'the replay holds every acknowledged event, in order');
    assert.deepEqual(replay.events.map((event) => (JSON.parse(event.message) as { n: number }).n), appended.map((a) => a.n), 'with their bodies');
    // Bounded: a follower whose reads failed during the election must read on, not wait forever.
    let timer: NodeJS.Timeout | undefined;
    const live = await Promise.race([
      followed,
      new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('the follower did not reach the end within 30 s')), 30_000))),
    ]).finally(() => clearTimeout(timer));
    assert.deepEqual(live.map((event) => event.id), ids, 'the follower saw every event, in order, then the end');
    await appender.close();
    await resumer.close();
  });

  test('a follow carries on when its own node dies, leading the stream, and again when its next node dies', { timeout: 150_000 }, async (t) => {
    // The node the first test killed is back: three nodes again.
    for (const node of cluster.nodes) await node.start();
    await cluster.jetstreamReady();
    const jsm = await jetstreamManager(await connectTo(0));
    // The stream elects a leader again once its replicas are back.
    let leaderName: string | undefined;
    await until(async () => (leaderName = (await jsm.streams.info(STREAM).catch(() => undefined))?.cluster?.leader) !== undefined, 'the stream has a leader', 30_000);
    const leader = cluster.nodes.findIndex((node) => node.name === leaderName);
    assert.ok(leader >= 0, `the stream has a leader (${String(leaderName)})`);
    const [next, spare] = [(leader + 1) % 3, (leader + 2) % 3] as const;
    // The appender is on the node that is never killed; the follower on the stream's leader, then on the next.
    const appender = await JetStreamEventStore.create(await connectIn([spare, next, leader]), { stream: STREAM, subjectPrefix: PREFIX, replicas: 3 });
    const followerNc = await connectIn([leader, next, spare]);
    const follower = await JetStreamEventStore.create(followerNc, { stream: STREAM, subjectPrefix: PREFIX, replicas: 3 });
    const session = 'session-2';
    const first = await appender.append(session, 'p1', null);
    const follow = follower.follow(session, first);
    assert.ok(follow !== undefined, 'the other replica follows the stream');
    const seen: string[] = [];
    let ended: 'complete' | Error | undefined;
    const followed = new Promise<void>((resolve, reject) => follow.subscribe({
      next: (event) => void seen.push(event.id),
      error: (error: unknown) => {
        ended = error instanceof Error ? error : new Error(String(error));
        reject(ended);
      },
      complete: () => {
        ended = 'complete';
        resolve();
      },
    }));
    // Appends at a steady pace all along, through both deaths.
    const appended: string[] = [];
    const failed: string[] = [];
    let appending = true;
    const appends = (async () => {
      for (let n = 0; appending && n < MAX_APPENDS; n++) {
        try {
          appended.push(await appender.append(session, 'p1', JSON.stringify({ n })));
        } catch (error) {
          failed.push(`${n}: ${String(error)}`);
        }
        await sleep(20);
      }
    })();
    /** Kills `node` once the follow is live, then waits until appends went on and the follower caught up. */
    const killUnderFollow = async (node: number, what: string): Promise<void> => {
      await until(() => seen.length >= 10 && seen.length >= appended.length - 1, `the follower keeps up before ${what}`, 15_000);
      assert.equal(followerNc.info?.server_name, cluster.nodes[node]?.name, `the follower is connected to ${what}`);
      const killedAt = Date.now();
      const before = appended.length;
      await cluster.nodes[node]?.kill();
      await until(() => appended.length >= before + AFTER_KILL_APPENDS || failed.length > 0 || ended !== undefined, `appends went on after ${what} died`, AFTER_KILL_MS);
      const target = appended.length;
      await until(() => seen.length >= target || ended !== undefined, `the follower caught up after ${what} died (saw ${seen.length} of ${target})`, 30_000);
      t.diagnostic(`${what} (${cluster.nodes[node]?.name}) killed; the follower caught up ${Date.now() - killedAt} ms later, now on ${String(followerNc.info?.server_name)}`);
      assert.equal(ended, undefined, 'the follow goes on');
    };
    await killUnderFollow(leader, "the follower's node, leading the stream");
    // The manager's own connection may be reconnecting from the killed node: the listing is retried, its answer is not.
    let consumers: unknown[] | undefined;
    await until(async () => (consumers = await jsm.consumers.list(STREAM).next().catch(() => undefined)) !== undefined, 'the stream lists its consumers', 30_000);
    assert.deepEqual(consumers, [], 'the follower reads without a consumer');
    await cluster.nodes[leader]?.start();
    await cluster.jetstreamReady();
    // Wherever the follower reconnected to (the next node in its list, unless NATS told it otherwise).
    const now = cluster.nodes.findIndex((node) => node.name === followerNc.info?.server_name);
    assert.ok(now >= 0 && now !== leader, `the follower reconnected to another node (${String(followerNc.info?.server_name)})`);
    await killUnderFollow(now, "the follower's next node");
    appending = false;
    await appends;
    await appender.endStream(session, 'p1');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      followed,
      new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`the follower did not reach the end within 30 s (saw ${seen.length})`)), 30_000))),
    ]).finally(() => clearTimeout(timer));
    t.diagnostic(`${appended.length} appends, ${failed.length} failed`);
    assert.deepEqual(failed, [], 'no append failed');
    assert.equal(new Set(appended).size, appended.length, 'every append has its own id (none stored twice)');
    assert.deepEqual(seen, appended, 'the follower saw every event once, in order, then the end');
    await appender.close();
    await follower.close();
  });
});
