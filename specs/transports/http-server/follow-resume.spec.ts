/**
 * Resuming a stream whose request runs in another replica (EventStore `follow` / `endStream`): a client that
 * lost a POST stream on replica A comes back with GET + Last-Event-ID to replica B; B restores the session,
 * replays what the shared store holds and follows the stream as A appends to it, ending after its answer.
 * A's events after the client left are still stored; a follower stops when its client goes away.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Observable, ReplaySubject, Subject } from 'rxjs';
import type { McpServer } from '../../../server/create-server.ts';
import { type EventStore, InMemoryEventStore, type ReplayResult, type StoredEvent } from '../../../transports/http/index.ts';
import { RawMcp, type SseReply, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { answers, isMethod, messagesOf, nextMessage, resultText } from './fixtures.ts';
import { startReplicas } from './replicas.ts';

type Appended = { readonly sessionId: string; readonly streamId: string } & ({ readonly event: StoredEvent } | { readonly end: true });

/** One store shared by the replicas, as an external one would be: the in-memory store plus follow/endStream. */
class FollowingStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  private readonly appended = new Subject<Appended>();
  private readonly ended = new Set<string>();
  /** Follows running now. */
  following = 0;
  /** Every event stored, in order (message events only). */
  readonly log: Array<{ readonly streamId: string; readonly event: StoredEvent }> = [];

  append(sessionId: string, streamId: string, message: string | null): string {
    const id = this.inner.append(sessionId, streamId, message);
    if (message !== null) {
      const event = { id, message };
      this.log.push({ streamId, event });
      this.appended.next({ sessionId, streamId, event });
    }
    return id;
  }

  replayAfter(sessionId: string, lastEventId: string): ReplayResult | undefined {
    return this.inner.replayAfter(sessionId, lastEventId);
  }

  dropSession(sessionId: string): void {
    this.inner.dropSession(sessionId);
  }

  endStream(sessionId: string, streamId: string): void {
    this.ended.add(`${sessionId} ${streamId}`);
    this.appended.next({ sessionId, streamId, end: true });
  }

  follow(sessionId: string, lastEventId: string): Observable<StoredEvent> | undefined {
    const replay = this.inner.replayAfter(sessionId, lastEventId);
    if (replay === undefined) return undefined;
    const { streamId } = replay;
    return new Observable<StoredEvent>((subscriber) => {
      this.following++;
      for (const event of replay.events) subscriber.next(event);
      if (this.ended.has(`${sessionId} ${streamId}`)) subscriber.complete();
      const live = this.appended.subscribe((item) => {
        if (item.sessionId !== sessionId || item.streamId !== streamId) return;
        if ('end' in item) subscriber.complete();
        else subscriber.next(item.event);
      });
      return () => {
        this.following--;
        live.unsubscribe();
      };
    });
  }
}

/** A `steps` tool whose progress and answer the test feeds, one feed per call key. */
function stepsTool(feeds: Map<string, Subject<unknown>>): (server: McpServer) => void {
  return (server) => {
    server.tool({ name: 'steps', description: 'Reports progress as the test feeds it', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }, (args: Record<string, unknown>) => {
      // Replayed: the server may subscribe to the handler's output after the test fed it.
      const feed = new ReplaySubject<unknown>();
      feeds.set(String(args['key']), feed);
      return feed.asObservable() as Observable<number | string>;
    });
  };
}

const progressOf = (message: Record<string, unknown>): number => (message['params'] as { progress: number }).progress;

/** Waits (at most 2 s) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited >= 2000) assert.fail(`not within 2 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** GET + Last-Event-ID to `url` on the session of `mcp` (whose oracle checks what comes back). */
async function resumeAt(url: string, mcp: RawMcp, lastEventId: string): Promise<SseReply> {
  return asStream(await rawRequest(url, { method: 'GET', headers: mcp.sessionHeaders({ accept: 'text/event-stream', 'last-event-id': lastEventId }) }, mcp.checkEvent));
}

describe('http server: following a stream that runs in another replica', () => {
  test('follow - a stream broken on replica A resumes on replica B with every remaining event, the answer included, none twice', async () => {
    const store = new FollowingStore();
    const feeds = new Map<string, Subject<unknown>>();
    await using cluster = await startReplicas(2, { eventStore: store }, stepsTool(feeds));
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.url);
    await mcp.initialize('2025-11-25');
    const id = mcp.id();
    const post = asStream(await mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'steps', arguments: { key: 'one' }, _meta: { progressToken: 'tok' } } }));
    await until(() => feeds.has('one'), 'the tool started');
    const feed = feeds.get('one') as Subject<unknown>;
    // Progress goes out as it is fed (a number can only be progress): the client sees 1 and 2 before it leaves.
    feed.next(1);
    feed.next(2);
    const second = await nextMessage(post, (message) => message['method'] === 'notifications/progress' && progressOf(message) === 2);
    const lastSeen = post.events.findLast((event) => event.data === JSON.stringify(second))?.id;
    assert.ok(lastSeen !== undefined);
    post.close();
    assert.equal(await post.done, 'closed');

    // Replica A goes on storing the stream's events with nobody connected.
    const stored = store.log.length;
    feed.next(3);
    await until(() => store.log.length === stored + 1, 'progress 3 stored after the client left');

    const resumed = await resumeAt(b.url, mcp, lastSeen);
    assert.equal(resumed.status, 200);
    assert.equal(resumed.headers['mcp-session-id'], mcp.sessionId);
    assert.equal(progressOf(await nextMessage(resumed, isMethod('notifications/progress'))), 3, 'the replay');
    assert.equal(b.http.sessionCount, 1, 'B restored the session');
    assert.equal(store.following, 1);
    feed.next(4);
    assert.equal(progressOf(await nextMessage(resumed, isMethod('notifications/progress'))), 4, 'live, from A');
    feed.next(5);
    feed.next('all done');
    feed.complete();
    assert.equal(resultText(await nextMessage(resumed, answers(id))), 'all done');
    assert.equal(await resumed.done, 'ended', 'the stream ends after its answer');
    await until(() => store.following === 0, 'the follow ended');

    const before = messagesOf(post);
    const after = messagesOf(resumed);
    assert.deepEqual([...before, ...after].filter(isMethod('notifications/progress')).map(progressOf), [1, 2, 3, 4, 5], 'every step once');
    assert.deepEqual(after.filter(answers(id)).length, 1);
    const ids = [...post.events, ...resumed.events].map((event) => event.id).filter((value) => value !== undefined);
    assert.equal(new Set(ids).size, ids.length, 'no event id twice');
    const resumedIds = resumed.events.map((event) => event.id).filter((value) => value !== undefined);
    assert.deepEqual(resumedIds, store.log.slice(-4).map((entry) => entry.event.id), 'exactly the stored events after the last one seen');
    mcp.assertClean();
  });

  test('follow - a follower stops following when its client goes away', async () => {
    const store = new FollowingStore();
    const feeds = new Map<string, Subject<unknown>>();
    await using cluster = await startReplicas(2, { eventStore: store }, stepsTool(feeds));
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.url);
    await mcp.initialize('2025-11-25');
    const post = asStream(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'steps', arguments: { key: 'gone' }, _meta: { progressToken: 'tok' } } }));
    const priming = await post.next();
    post.close();
    await post.done;
    const resumed = await resumeAt(b.url, mcp, priming.id ?? '');
    await until(() => store.following === 1, 'B follows the stream');
    resumed.close();
    await until(() => store.following === 0, 'the follow was unsubscribed');
    const feed = feeds.get('gone') as Subject<unknown>;
    feed.next('finished');
    feed.complete();
  });

  test('follow - a stream that already ended in another replica is replayed in full and ends at once', async () => {
    const store = new FollowingStore();
    await using cluster = await startReplicas(2, { eventStore: store });
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.url);
    await mcp.initialize('2025-11-25');
    const id = mcp.id();
    const post = asStream(await mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'log', arguments: {} } }));
    const priming = await post.next();
    post.close();
    await post.done;
    await until(() => store.log.some((entry) => entry.event.message.includes('"result"')), 'the answer stored');
    const resumed = await resumeAt(b.url, mcp, priming.id ?? '');
    assert.equal(await resumed.done, 'ended');
    assert.deepEqual(messagesOf(resumed).filter(isMethod('notifications/message')).map((message) => (message['params'] as { data: { step: string } }).data.step), ['started', 'working', 'finished']);
    assert.equal(resultText(messagesOf(resumed).find(answers(id)) ?? {}), 'logged');
    assert.equal(store.following, 0);
    mcp.assertClean();
  });

  test('follow - without follow in the store, another replica replays what is stored and ends', async () => {
    const store = new InMemoryEventStore();
    const feeds = new Map<string, Subject<unknown>>();
    await using cluster = await startReplicas(2, { eventStore: store }, stepsTool(feeds));
    const [a, b] = cluster.replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.url);
    await mcp.initialize('2025-11-25');
    const post = asStream(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'steps', arguments: { key: 'plain' }, _meta: { progressToken: 'tok' } } }));
    const priming = await post.next();
    await until(() => feeds.has('plain'), 'the tool started');
    const feed = feeds.get('plain') as Subject<unknown>;
    feed.next(1);
    feed.next(2);
    await nextMessage(post, (message) => isMethod('notifications/progress')(message) && progressOf(message) === 2);
    post.close();
    await post.done;
    const resumed = await resumeAt(b.url, mcp, priming.id ?? '');
    assert.equal(await resumed.done, 'ended');
    assert.deepEqual(messagesOf(resumed).map(progressOf), [1, 2]);
    feed.next('finished');
    feed.complete();
    mcp.assertClean();
  });
});
