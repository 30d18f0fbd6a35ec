/**
 * Two `rxmcp gateway` replicas in front of an MCP server on NATS (a real nats-server with JetStream): a legacy
 * HTTP session opened on one replica is served by the other, and an SSE stream broken on one resumes on the
 * other with every remaining event, none lost or twice, while the request still runs; when the replica running
 * the request dies, the one carrying its stream tells the client (an error answer) and ends the stream; the GET
 * stream is one for all replicas (events reach it wherever it is open; it resumes on another replica).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import type { Observable} from 'rxjs';
import { ReplaySubject, type Subject } from 'rxjs';
import { createGateway, type Gateway } from '../../../cli/gateway/gateway.ts';
import { createClient } from '../../../client/create-client.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import type { ListeningServer } from '../../../transports/http/index.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { RawMcp, type SseReply, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { answers, isMethod, messagesOf, nextMessage, resultText } from '../../transports/http-server/fixtures.ts';

const NAME = 'gw-spec';

/** A `steps` tool whose progress and answer the test feeds, one feed per call key. */
function stepsTool(server: McpServer, feeds: Map<string, Subject<unknown>>): void {
  server.tool({ name: 'steps', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }, (args: Record<string, unknown>) => {
    const feed = new ReplaySubject<unknown>();
    feeds.set(String(args['key']), feed);
    return feed.asObservable() as Observable<number | string>;
  });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args['text']) }] }));
}

const progressOf = (message: Record<string, unknown>): number => (message['params'] as { progress: number }).progress;

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited >= ms) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('gateway replicas', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const replicas: Array<{ gateway: Gateway; listening: ListeningServer }> = [];
  let serving: NatsServing;
  let server: McpServer;
  const feeds = new Map<string, Subject<unknown>>();

  before(async () => {
    nats = await startNatsServer();
    const open = async (): Promise<NatsConnection> => {
      const made = await connect({ servers: nats.url });
      connections.push(made);
      return made;
    };
    server = createServer({ name: 'gateway-spec-server', version: '0.0.0' });
    stepsTool(server, feeds);
    serving = await serveNats(server, { connection: await open(), name: NAME });
    for (let index = 0; index < 2; index++) {
      const gateway = await createGateway({ connection: await open(), name: NAME });
      replicas.push({ gateway, listening: await gateway.http.listen(0, '127.0.0.1') });
    }
  });

  after(async () => {
    for (const replica of replicas) {
      await replica.listening.close();
      await replica.gateway.close();
    }
    await serving.close('end');
    await server.close();
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats.dispose();
  });

  test('gateway - both eras through a replica, and a legacy session opened on one replica is served by the other', async () => {
    const [a, b] = replicas;
    assert.ok(a !== undefined && b !== undefined);
    for (const era of ['legacy', 'modern'] as const) {
      const session = await createClient({ name: 'c', version: '0', era }).connect(createStreamableHttpClientTransport(a.listening.url));
      assert.deepEqual((await session.callTool('echo', { text: era })).content, [{ type: 'text', text: era }]);
      await session.close();
    }
    const mcp = new RawMcp(a.listening.url);
    await mcp.initialize('2025-11-25');
    // The same session, its next request sent to replica B.
    const onB = new RawMcp(b.listening.url);
    onB.sessionId = mcp.sessionId;
    onB.revision = mcp.revision;
    const { response } = await onB.call('tools/call', { name: 'echo', arguments: { text: 'via B' } });
    assert.equal(resultText(response), 'via B');
    onB.assertClean();
    mcp.assertClean();
  });

  test('gateway - an SSE stream broken on replica A resumes on replica B with no event lost or repeated', async () => {
    const [a, b] = replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.listening.url);
    await mcp.initialize('2025-11-25');
    const id = mcp.id();
    const post = asStream(await mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'steps', arguments: { key: 'resume' }, _meta: { progressToken: 'tok' } } }));
    await until(() => feeds.has('resume'), 'the tool started');
    const feed = feeds.get('resume') as Subject<unknown>;
    // Progress goes out as it is fed: the client sees 1 and 2 before its stream breaks.
    feed.next(1);
    feed.next(2);
    const second = await nextMessage(post, (message) => message['method'] === 'notifications/progress' && progressOf(message) === 2, 5000);
    const lastSeen = post.events.findLast((event) => event.data === JSON.stringify(second))?.id;
    assert.ok(lastSeen !== undefined, 'events carry ids');
    post.close();
    await post.done;
    // The request runs on; its events go on being stored while no client listens.
    feed.next(3);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const resumed: SseReply = asStream(await rawRequest(b.listening.url, { method: 'GET', headers: mcp.sessionHeaders({ accept: 'text/event-stream', 'last-event-id': lastSeen }) }, mcp.checkEvent));
    assert.equal(resumed.status, 200);
    assert.equal(progressOf(await nextMessage(resumed, isMethod('notifications/progress'), 5000)), 3, 'the stored event');
    feed.next(4);
    assert.equal(progressOf(await nextMessage(resumed, (message) => isMethod('notifications/progress')(message) && progressOf(message) === 4, 5000)), 4, 'live, from the stream A still feeds');
    feed.next(5);
    feed.next('all done');
    feed.complete();
    assert.equal(resultText(await nextMessage(resumed, answers(id), 5000)), 'all done');
    assert.equal(await resumed.done, 'ended');
    const progress = [...messagesOf(post), ...messagesOf(resumed)].filter(isMethod('notifications/progress')).map(progressOf);
    assert.deepEqual(progress, [1, 2, 3, 4, 5], 'every step once, in order');
    const ids = [...post.events, ...resumed.events].map((event) => event.id).filter((value) => value !== undefined && value !== '');
    assert.equal(new Set(ids).size, ids.length, 'no event id twice');
    mcp.assertClean();
  });

  test('gateway - a stream followed on replica B whose producing replica dies gets an error answer and ends', { timeout: 60_000 }, async () => {
    const [, b] = replicas;
    assert.ok(b !== undefined);
    // A third replica on its own NATS connection, killed below (its connection dropped, its port closed).
    const doomedConnection = await connect({ servers: nats.url });
    const doomed = await createGateway({ connection: doomedConnection, name: NAME });
    const doomedListening = await doomed.http.listen(0, '127.0.0.1');
    try {
      const mcp = new RawMcp(doomedListening.url);
      await mcp.initialize('2025-11-25');
      const id = mcp.id();
      const post = asStream(await mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'steps', arguments: { key: 'abandoned' }, _meta: { progressToken: 'gone' } } }));
      await until(() => feeds.has('abandoned'), 'the tool started');
      const feed = feeds.get('abandoned') as Subject<unknown>;
      feed.next(1);
      const first = await nextMessage(post, isMethod('notifications/progress'), 5000);
      const lastSeen = post.events.findLast((event) => event.data === JSON.stringify(first))?.id;
      assert.ok(lastSeen !== undefined);
      post.close();
      await post.done;

      const resumed = asStream(await rawRequest(b.listening.url, { method: 'GET', headers: mcp.sessionHeaders({ accept: 'text/event-stream', 'last-event-id': lastSeen }) }, mcp.checkEvent));
      assert.equal(resumed.status, 200);
      feed.next(2);
      assert.equal(progressOf(await nextMessage(resumed, (message) => isMethod('notifications/progress')(message) && progressOf(message) === 2, 5000)), 2, 'followed live from the producing replica');

      // The producing replica dies: nothing it held reaches NATS again.
      const diedAt = Date.now();
      await doomedConnection.close();
      await doomedListening.close();
      const answer = await nextMessage(resumed, answers(id), 20_000);
      const error = answer['error'] as { code: number; message: string } | undefined;
      assert.equal(error?.code, -32603);
      assert.match(error?.message ?? '', /replica producing stream .* is gone/);
      assert.equal(await resumed.done, 'ended', 'the stream ends after the error answer');
      assert.ok(Date.now() - diedAt < 15_000, `noticed within the producer checks (${Date.now() - diedAt} ms)`);
      feed.complete();
    } finally {
      await doomed.close({ drainMs: 0 }).catch(() => undefined);
    }
  });

  test('gateway - the GET stream is one for all replicas: events reach it wherever it is open, and it resumes on another replica', { timeout: 30_000 }, async () => {
    const [a, b] = replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.listening.url);
    await mcp.initialize('2025-11-25');
    // Both replicas hold the session (B restores it), so a server message may come to either.
    const onB = new RawMcp(b.listening.url);
    onB.sessionId = mcp.sessionId;
    onB.revision = mcp.revision;
    await onB.call('tools/list', {});
    const get = asStream(await onB.get());
    assert.equal(get.status, 200);
    const changed = isMethod('notifications/tools/list_changed');
    let added = 0;
    const addTool = (): void => void server.tool({ name: `get-stream-${++added}` }, () => 'added');
    for (let round = 1; round <= 4; round++) {
      addTool();
      await until(() => messagesOf(get).filter(changed).length === round, `list change ${round} on the GET stream held by B`);
    }
    const lastSeen = get.events.findLast((event) => event.data !== undefined && event.data.includes('list_changed'))?.id;
    assert.ok(lastSeen !== undefined, 'GET events carry ids');
    get.close();
    await get.done;
    addTool();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const resumed = asStream(await mcp.get({ 'last-event-id': lastSeen }));
    assert.equal(resumed.status, 200);
    await until(() => messagesOf(resumed).filter(changed).length === 1, 'the change made while no GET was open, replayed on A');
    addTool();
    await until(() => messagesOf(resumed).filter(changed).length === 2, 'and a live one after it');
    resumed.close();
    await resumed.done;
    mcp.assertClean();
    onB.assertClean();
  });

  test('gateway - DELETE ends the session on the servers too, and its record: no replica restores it', async () => {
    const [a, b] = replicas;
    assert.ok(a !== undefined && b !== undefined);
    const mcp = new RawMcp(a.listening.url);
    await mcp.initialize('2025-11-25');
    const before = serving.counts().sessions;
    const deleted = await mcp.delete();
    assert.equal(deleted.status, 200);
    await until(() => serving.counts().sessions === before - 1, 'the NATS session to end');
    const onB = new RawMcp(b.listening.url);
    onB.sessionId = mcp.sessionId;
    onB.revision = mcp.revision;
    const reply = await onB.post({ jsonrpc: '2.0', id: onB.id(), method: 'tools/list' });
    assert.equal(reply.status, 404, 'replica B finds no record to restore');
  });
});
