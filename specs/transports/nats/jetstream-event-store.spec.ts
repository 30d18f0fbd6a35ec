/**
 * The JetStream event store (rxmcp/nats) against a real nats-server: two store instances on two connections play
 * two replicas. Events one appends, the other replays and follows (live after the replay, completing at the
 * stream's end); ids carry the stream and the JetStream sequence; sessions are purged; the stream is bounded
 * and created idempotently; subjects never carry what ids might; a follow whose producer is gone fails with the
 * requests the stream was to answer, unless told not to watch the producer. Reads use no consumer: a follow
 * reads on at its doorbell (a core subscription) or, missing it, at its poll; concurrent appends of several
 * replicas reach it once each, in stream order; unsubscribing or `close` ends every subscription and timer, and
 * `close` fails the follows and replays under way.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Subscription } from 'rxjs';
import { JetStreamEventStore, type JetStreamEventStoreOptions, subjectToken } from '../../../transports/nats/jetstream-event-store.ts';
import { type StoredEvent, StreamAbandonedError } from '../../../transports/http/index.ts';
import { RawMcp, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { startNatsServer } from '../../support/nats-server.ts';
import { TestClock } from '../../support/test-clock.ts';
import { answers, isMethod, messagesOf, nextMessage, resultText } from '../http-server/fixtures.ts';
import { startReplicas } from '../http-server/replicas.ts';

interface Replica extends AsyncDisposable {
  readonly nc: NatsConnection;
  readonly store: JetStreamEventStore;
}

/** A store on a connection of its own, as one replica holds it. */
async function replica(url: string, options: JetStreamEventStoreOptions = {}): Promise<Replica> {
  const nc = await connect({ servers: url, reconnect: false });
  try {
    const store = await JetStreamEventStore.create(nc, options);
    return {
      nc,
      store,
      async [Symbol.asyncDispose]() {
        await store.close();
        await nc.close();
      },
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits (at most `ms`) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 3000): Promise<void> {
  for (let waited = 0; !(await check()); waited += 10) {
    if (waited >= ms) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Collects what a follow emits, and how it ended. */
function collect(source: ReturnType<JetStreamEventStore['follow']>): { events: StoredEvent[]; ended: () => 'complete' | Error | undefined; subscription: Subscription } {
  assert.ok(source !== undefined, 'follow returned no Observable');
  const events: StoredEvent[] = [];
  let end: 'complete' | Error | undefined;
  const subscription = source.subscribe({
    next: (event) => events.push(event),
    complete: () => (end = 'complete'),
    error: (error: unknown) => (end = error instanceof Error ? error : new Error(String(error))),
  });
  return { events, ended: () => end, subscription };
}

const message = (n: number): string => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } });

describe('cli gateway: JetStream event store', () => {
  test('jetstream event store - events one replica appends replay at another, ids naming stream and sequence', async () => {
    await using server = await startNatsServer();
    // Both replicas start at once: creating the stream twice must not fail either.
    const [a, b] = await Promise.all([replica(server.url), replica(server.url)]);
    await using _a = a;
    await using _b = b;
    const session = 'c2Vzc2lvbi1vbmU';
    const priming = await a.store.append(session, 'p1', null);
    const ids = [await a.store.append(session, 'p1', message(1)), await a.store.append(session, 'p2', message(100)), await a.store.append(session, 'p1', message(2)), await a.store.append('other', 'p1', message(999)), await a.store.append(session, 'p1', message(3))];
    for (const id of [priming, ...ids]) assert.match(id, /^p[12]\.\d+$/);
    const seqs = ids.map((id) => Number(id.split('.')[1]));
    assert.deepEqual([...seqs].sort((x, y) => x - y), seqs, 'sequences grow in append order');

    const replay = await b.store.replayAfter(session, priming);
    assert.deepEqual(replay, {
      streamId: 'p1',
      events: [
        { id: ids[0], message: message(1) },
        { id: ids[2], message: message(2) },
        { id: ids[4], message: message(3) },
      ],
    });
    assert.deepEqual((await b.store.replayAfter(session, ids[2] as string))?.events.map((event) => event.message), [message(3)]);
    assert.deepEqual(await b.store.replayAfter(session, ids[4] as string), { streamId: 'p1', events: [] });
    assert.deepEqual(await b.store.replayAfter(session, ids[1] as string), { streamId: 'p2', events: [] }, "another stream's id replays that stream");

    for (const bad of ['garbage', 'p1.', 'p1.0', 'p1.x', '.5', 'p1.99999999999999999']) assert.equal(await b.store.replayAfter(session, bad), undefined, bad);
    assert.equal(await b.store.replayAfter(session, ids[3] as string), undefined, "another session's event is not this session's");
    assert.equal(await b.store.replayAfter('other', priming), undefined);
    assert.equal(await b.store.replayAfter(session, `p1.${seqs[4] as number + 1000}`), undefined, 'a sequence the stream never reached');
    const jsm = await jetstreamManager(a.nc);
    await until(async () => (await jsm.streams.info('MCP_GATEWAY_EVENTS')).state.consumer_count === 0, 'replays leave no consumers behind');
  });

  test('jetstream event store - follow replays, carries on live with what another replica appends, and completes at endStream', async () => {
    await using server = await startNatsServer();
    await using a = await replica(server.url);
    await using b = await replica(server.url);
    const session = 'follow-session';
    const priming = await a.store.append(session, 'p1', null);
    const first = await a.store.append(session, 'p1', message(1));
    const followed = collect(b.store.follow(session, priming));
    await until(() => followed.events.length === 1, 'the replayed event');
    const more = [await a.store.append(session, 'p1', message(2)), await a.store.append(session, 'p1', null), await a.store.append(session, 'p1', message(3))];
    await a.store.append(session, 'p2', message(200));
    await until(() => followed.events.length === 3, 'the live events');
    assert.equal(followed.ended(), undefined, 'still following');
    await a.store.endStream(session, 'p1');
    await until(() => followed.ended() !== undefined, 'the follow completed');
    assert.equal(followed.ended(), 'complete');
    assert.deepEqual(followed.events, [
      { id: first, message: message(1) },
      { id: more[0], message: message(2) },
      { id: more[2], message: message(3) },
    ], 'no priming events, no markers, no other stream');

    // A stream that already ended: the rest of it, then complete.
    const late = collect(b.store.follow(session, first));
    await until(() => late.ended() !== undefined, 'the late follow completed');
    assert.equal(late.ended(), 'complete');
    assert.deepEqual(late.events.map((event) => event.id), [more[0], more[2]]);

    assert.equal(b.store.follow(session, 'nonsense'), undefined);
    const foreign = collect(b.store.follow('someone-else', first));
    await until(() => foreign.ended() !== undefined, 'a foreign id fails');
    assert.ok(foreign.ended() instanceof Error);
  });

  test('jetstream event store - reads hold no consumer; unsubscribing or close ends every subscription and timer; close fails follows and replays under way', async () => {
    await using server = await startNatsServer();
    await using a = await replica(server.url);
    const clock = new TestClock();
    const b = await replica(server.url, { clock });
    const jsm = await jetstreamManager(a.nc);
    const consumers = async (): Promise<number> => (await jsm.streams.info('MCP_GATEWAY_EVENTS')).state.consumer_count;
    /** Whether anything still reaches b's connection: b reads nothing unless it asks, nobody pings it. */
    const delivered = async (): Promise<number> => {
      await sleep(200);
      await b.nc.flush();
      const before = b.nc.stats().inMsgs;
      await a.store.append('s', 'p1', message(0));
      await a.nc.flush();
      await b.nc.flush();
      return b.nc.stats().inMsgs - before;
    };
    const priming = await a.store.append('s', 'p1', null);
    const followed = collect(b.store.follow('s', priming));
    await a.store.append('s', 'p1', message(1));
    await until(() => followed.events.length === 1, 'the follow delivers');
    assert.equal(await consumers(), 0, 'a follow holds no consumer');
    assert.ok(clock.pending > 0, 'a follow polls (and watches its producer) on the store clock');
    followed.subscription.unsubscribe();
    assert.equal(clock.pending, 0, 'unsubscribing stops its timers');
    assert.equal(await delivered(), 0, 'and its doorbell subscription');

    const running = collect(b.store.follow('s', priming));
    await until(() => running.events.length === 2, 'the second follow delivers (both events so far)');
    const replaying = b.store.replayAfter('s', priming);
    await b.store.close();
    assert.ok(running.ended() instanceof Error, 'a closed store fails its follows');
    await assert.rejects(replaying, /closed during the replay/, 'and its replays');
    assert.equal(clock.pending, 0, 'every timer stopped');
    assert.equal(await delivered(), 0, 'every subscription ended');
    assert.equal(await consumers(), 0);
    await assert.rejects(async () => b.store.append('s', 'p1', message(1)));
    await assert.rejects(async () => b.store.replayAfter('s', priming));
    assert.ok(collect(b.store.follow('s', priming)).ended() instanceof Error, 'a later follow fails');
    await b.nc.close();
  });

  test('jetstream event store - a follow that hears no doorbell reads on at its poll', async () => {
    await using server = await startNatsServer();
    await using a = await replica(server.url);
    const clock = new TestClock();
    // A connection that is not sent what it publishes itself: its store's own appends ring no doorbell for it.
    const nc = await connect({ servers: server.url, reconnect: false, noEcho: true });
    const store = await JetStreamEventStore.create(nc, { clock, producerCheckMs: false });
    try {
      const session = 'no-echo';
      const priming = await store.append(session, 'p1', null);
      const followed = collect(store.follow(session, priming));
      const rung = await a.store.append(session, 'p1', message(1));
      await until(() => followed.events.length === 1, "another connection's append rings the doorbell");
      await sleep(300);
      const unrung = await store.append(session, 'p1', message(2));
      await sleep(500);
      assert.equal(followed.events.length, 1, 'its own append rang nothing');
      clock.advance(2000);
      await until(() => followed.events.length === 2, 'the poll read it');
      assert.deepEqual(followed.events.map((event) => event.id), [rung, unrung]);
      await store.endStream(session, 'p1');
      clock.advance(2000);
      await until(() => followed.ended() === 'complete', 'the poll read the end');
      assert.equal(clock.pending, 0, 'the ended follow stopped polling');
    } finally {
      await store.close();
      await nc.close();
    }
  });

  test('jetstream event store - concurrent appends of several replicas reach a follow once each, in stream order', async () => {
    await using server = await startNatsServer();
    await using a = await replica(server.url);
    await using b = await replica(server.url);
    await using c = await replica(server.url);
    const session = 'concurrent';
    const priming = await a.store.append(session, 'p1', null);
    // The follow starts while the appends do: its first read races them.
    const followed = collect(b.store.follow(session, priming));
    const appended = await Promise.all(Array.from({ length: 200 }, (_, n) => (n % 2 === 0 ? a : c).store.append(session, 'p1', message(n))));
    await c.store.endStream(session, 'p1');
    await until(() => followed.ended() !== undefined, 'the follow completed', 10_000);
    assert.equal(followed.ended(), 'complete');
    const seq = (id: string): number => Number(id.slice(id.lastIndexOf('.') + 1));
    const inOrder = appended.map((id, n) => ({ id, message: message(n) })).sort((x, y) => seq(x.id) - seq(y.id));
    assert.deepEqual(followed.events, inOrder, 'every event once, in stream order');
    const replay = await b.store.replayAfter(session, priming);
    assert.deepEqual(replay?.events, inOrder, 'the replay agrees');
  });

  test('jetstream event store - dropSession purges that session only', async () => {
    await using server = await startNatsServer();
    await using a = await replica(server.url);
    await using b = await replica(server.url);
    const primings = { gone: await a.store.append('gone', 'p1', null), kept: await a.store.append('kept', 'p1', null) };
    for (const n of [1, 2]) {
      await a.store.append('gone', 'p1', message(n));
      await a.store.append('gone', 'g', message(n));
      await a.store.append('kept', 'p1', message(n));
    }
    await b.store.dropSession('gone');
    assert.deepEqual((await a.store.replayAfter('gone', primings.gone))?.events, []);
    assert.deepEqual((await a.store.replayAfter('kept', primings.kept))?.events.map((event) => event.message), [message(1), message(2)]);
    const jsm = await jetstreamManager(a.nc);
    const info = await jsm.streams.info('MCP_GATEWAY_EVENTS', { subjects_filter: '>' });
    assert.deepEqual(Object.keys(info.state.subjects ?? {}).sort(), ['mcp.gw.events.kept.p1']);
  });

  test('jetstream event store - the stream is bounded by age and size, dropping the oldest events', async () => {
    await using server = await startNatsServer();
    await using sized = await replica(server.url, { stream: 'SIZED', subjectPrefix: 'test.sized', maxBytes: 8 * 1024 });
    const jsm = await jetstreamManager(sized.nc);
    const defaults = await replica(server.url);
    const config = (await jsm.streams.info('MCP_GATEWAY_EVENTS')).config;
    await defaults[Symbol.asyncDispose]();
    assert.equal(config.max_age, 10 * 60 * 1_000_000_000, 'ten minutes by default');
    assert.equal(config.max_bytes, 256 * 1024 * 1024, '256 MiB by default');
    assert.equal(config.discard, 'old');
    assert.deepEqual(config.subjects, ['mcp.gw.events.>']);

    const priming = await sized.store.append('s', 'p1', null);
    const body = 'x'.repeat(500);
    const ids: string[] = [];
    for (let n = 0; n < 40; n++) ids.push(await sized.store.append('s', 'p1', JSON.stringify({ n, body })));
    const state = (await jsm.streams.info('SIZED')).state;
    assert.ok(state.bytes <= 8 * 1024, `at most 8 KiB kept (${state.bytes})`);
    assert.ok(state.messages < 40);
    const replay = await sized.store.replayAfter('s', priming);
    const kept = replay?.events.map((event) => (JSON.parse(event.message) as { n: number }).n) ?? [];
    assert.ok(kept.length > 0 && kept.length < 40);
    assert.deepEqual(kept, Array.from({ length: kept.length }, (_, index) => 40 - kept.length + index), 'the newest, in order');

    await using aged = await replica(server.url, { stream: 'AGED', subjectPrefix: 'test.aged', maxAgeMs: 300 });
    assert.equal((await jsm.streams.info('AGED')).config.max_age, 300 * 1_000_000);
    await aged.store.append('s', 'p1', message(1));
    await until(async () => (await jsm.streams.info('AGED')).state.messages === 0, 'events older than max age are gone', 5000);
  });

  test('jetstream event store - creation is idempotent; a stream of that name without the subjects is refused', async () => {
    await using server = await startNatsServer();
    const replicas = await Promise.all([1, 2, 3].map(() => replica(server.url, { stream: 'SAME', subjectPrefix: 'test.same' })));
    for (const each of replicas) await each[Symbol.asyncDispose]();
    await using other = await replica(server.url, { stream: 'SAME', subjectPrefix: 'test.same', maxBytes: 1024 * 1024 });
    const jsm = await jetstreamManager(other.nc);
    assert.equal((await jsm.streams.info('SAME')).config.max_bytes, 256 * 1024 * 1024, 'an existing stream is used as it is');
    await assert.rejects(() => replica(server.url, { stream: 'SAME', subjectPrefix: 'test.elsewhere' }), /without the subjects test\.elsewhere\.>/);
    await assert.rejects(() => replica(server.url, { subjectPrefix: 'bad.*' }), RangeError);
  });

  test('jetstream event store - two HTTP replicas: a stream broken at one is resumed at the other, up to its answer', async () => {
    await using server = await startNatsServer();
    await using a = await replica(server.url);
    await using b = await replica(server.url);
    // Each HTTP replica gets its own store instance (its own connection), as separate processes would.
    await using cluster = await startReplicas(2, (index) => ({ eventStore: index === 0 ? a.store : b.store }));
    const [front, back] = cluster.replicas;
    assert.ok(front !== undefined && back !== undefined);
    const mcp = new RawMcp(front.url);
    await mcp.initialize('2025-11-25');
    const id = mcp.id();
    const post = asStream(await mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { key: 'js' } } }));
    await post.next((event) => event.data.includes('waiting'));
    const lastSeen = post.events.at(-1)?.id;
    assert.ok(lastSeen !== undefined);
    post.close();
    await post.done;
    const resumed = asStream(await rawRequest(back.url, { method: 'GET', headers: mcp.sessionHeaders({ accept: 'text/event-stream', 'last-event-id': lastSeen }) }, mcp.checkEvent));
    assert.equal(resumed.status, 200);
    await front.gates.started('js');
    front.gates.open('js');
    assert.deepEqual((await nextMessage(resumed, isMethod('notifications/message')))['params'], { level: 'info', data: { released: 'js' } });
    assert.equal(resultText(await nextMessage(resumed, answers(id))), 'done js');
    assert.equal(await resumed.done, 'ended');
    assert.equal(messagesOf(resumed).length, 2, 'nothing twice, nothing else');
    mcp.assertClean();
  });

  test('jetstream event store - ids with dots, wildcards or spaces never reach a subject token, nor collide', async () => {
    assert.equal(subjectToken('AbC_09-x'), 'AbC_09-x');
    for (const id of ['a.b', 'a*', '>', 'with space', 'tab\t', '', '~41', 'é']) {
      const token = subjectToken(id);
      assert.doesNotMatch(token, /[.*>\s]/, id);
      assert.ok(token.length > 0);
    }
    assert.notEqual(subjectToken('~41'), subjectToken('A'));
    assert.notEqual(subjectToken('a.b'), subjectToken('a_b'));

    await using server = await startNatsServer();
    await using a = await replica(server.url);
    const dotted = await a.store.append('x.y *>', 'p.1', message(1));
    const plain = await a.store.append('x', 'p', message(2));
    assert.match(dotted, /^p\.1\.\d+$/);
    const primingDotted = await a.store.append('x.y *>', 'p.1', null);
    await a.store.append('x.y *>', 'p.1', message(3));
    assert.deepEqual((await a.store.replayAfter('x.y *>', primingDotted))?.events.map((event) => event.message), [message(3)]);
    assert.equal(await a.store.replayAfter('x', dotted), undefined, 'no collision between the sessions');
    assert.deepEqual(await a.store.replayAfter('x', plain), { streamId: 'p', events: [] });
    await assert.rejects(async () => a.store.append('s', 'bad\nstream', message(1)), RangeError);
  });

  test('jetstream event store - a follow whose producer is gone fails with the requests its stream was to answer; an unwatched one goes on', { timeout: 30_000 }, async () => {
    await using server = await startNatsServer();
    const options = { producerCheckMs: 100 };
    const producer = await replica(server.url, options);
    await using follower = await replica(server.url, options);
    const session = 'YWJhbmRvbmVk';
    producer.store.startStream(session, 'p1', [7, 'eight']);
    const first = await producer.store.append(session, 'p1', message(1));
    const shared = await producer.store.append(session, 'g', message(10));
    const watched = collect(follower.store.follow(session, first));
    const unwatched = collect(follower.store.follow(session, shared, { watchProducer: false }));
    await producer.store.append(session, 'p1', message(2));
    await until(() => watched.events.length === 1, 'the live event');
    // A producer that answers is alive, however long its stream is silent.
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(watched.ended(), undefined, 'a live producer keeps its followers');

    await producer[Symbol.asyncDispose]();
    await until(() => watched.ended() !== undefined, 'the follow noticed its producer gone', 5000);
    const error = watched.ended();
    assert.ok(error instanceof StreamAbandonedError, String(error));
    assert.deepEqual(error.unanswered, [7, 'eight']);
    assert.match(error.message, /producing stream p1 is gone/);
    assert.deepEqual(watched.events.map((event) => JSON.parse(event.message).params.progress), [2], 'the start marker is never an event');

    // The shared stream's other writers go on: it is still followed.
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(unwatched.ended(), undefined);
    await follower.store.append(session, 'g', message(11));
    await until(() => unwatched.events.length === 1, 'the unwatched follow still delivers');
    unwatched.subscription.unsubscribe();
  });
});
