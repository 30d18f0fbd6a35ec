/**
 * Modern-era POSTs served on pooled connections (transports/http/server/modern-pool.ts), over real sockets on
 * 127.0.0.1. The server is wrapped so that every connection the endpoint asks it to accept is counted, with
 * the principal it belongs to and the handle it got: the pool's behaviour is seen from the server's side.
 */
import assert from 'node:assert/strict';
import { type TestContext, before, describe, test } from 'node:test';
import type { RequestId } from '../../../../core/jsonrpc.ts';
import { systemClock } from '../../../../core/clock.ts';
import type { InboundFrame, SessionAcceptorPort } from '../../../../core/transport.ts';
import { type McpServer, createServer } from '../../../../server/create-server.ts';
import { createSessionHost } from '../../../../server/session-host.ts';
import { POOL_IDLE_MS } from '../../../../transports/http/server/modern-pool.ts';
import { PooledConnection } from '../../../../transports/http/server/pooled-connection.ts';
import { type StreamableHttpServerOptions, createStreamableHttpServer } from '../../../../transports/http/index.ts';
import { deferred, eventually } from '../../../support/harness.ts';
import { RawMcp, asStream } from '../../../support/http-raw-client.ts';
import { TestClock } from '../../../support/test-clock.ts';
import { type Json, ModernHttp, isJson, responseOf, warmUp } from './modern-http.ts';

before(warmUp);

type Handle = ReturnType<SessionAcceptorPort['accept']>;

interface Accepted {
  readonly principal: string | undefined;
  readonly handle: Handle;
}

/** A server with `hold` (runs until its key is released or its signal aborts) and `whoami` (`ctx.auth`). */
function poolServer() {
  const server = createServer({ name: 'pool-spec', version: '1.0.0' });
  const gates = new Map<string, ReturnType<typeof deferred<void>>>();
  const begun = new Map<string, ReturnType<typeof deferred<void>>>();
  const signals = new Map<string, AbortSignal>();
  const of = (map: Map<string, ReturnType<typeof deferred<void>>>, key: string): ReturnType<typeof deferred<void>> => {
    let found = map.get(key);
    if (found === undefined) map.set(key, (found = deferred()));
    return found;
  };
  server.tool({ name: 'hold', inputSchema: { type: 'object', properties: { key: { type: 'string' } } } }, async (args: Record<string, unknown>, ctx) => {
    const key = String(args['key']);
    signals.set(key, ctx.signal);
    of(begun, key).resolve();
    await Promise.race([of(gates, key).promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
    return `held ${key}`;
  });
  server.tool({ name: 'whoami' }, (_args, ctx) => `${ctx.auth?.principal ?? 'anonymous'} [${(ctx.auth?.scopes ?? []).join(',')}]`);
  return {
    server,
    signals,
    release: (key: string) => of(gates, key).resolve(),
    started: (key: string) => of(begun, key).promise,
  };
}

/** `server`, counting the connections accepted for it. */
function counting(server: McpServer): { acceptor: SessionAcceptorPort; accepted: Accepted[] } {
  const accepted: Accepted[] = [];
  const acceptor: SessionAcceptorPort = {
    eras: server.eras,
    changes: server.changes,
    missingScopes: (method, params, auth) => server.missingScopes(method, params, auth),
    accept(transport, options) {
      const handle = server.accept(transport, options);
      accepted.push({ principal: transport.principal, handle });
      return handle;
    },
  };
  return { acceptor, accepted };
}

/** `x-who` names the caller (with the scopes of `x-scope`); no header: anonymous. */
const byHeader: NonNullable<StreamableHttpServerOptions['authenticate']> = (request) => {
  const who = request.header('x-who');
  return who === undefined ? undefined : { principal: who, scopes: (request.header('x-scope') ?? '').split(',').filter((scope) => scope.length > 0), claims: {} };
};

async function servePool(t: TestContext, options: Partial<StreamableHttpServerOptions> = {}) {
  const made = poolServer();
  const { acceptor, accepted } = counting(made.server);
  const http = createStreamableHttpServer({ server: acceptor, authenticate: byHeader, ...options });
  const listening = await http.listen(0, '127.0.0.1');
  t.after(async () => {
    await http.close({ drainMs: 0 });
    await listening.close();
    await made.server.close();
  });
  return { ...made, http, url: listening.url, accepted };
}

function textOf(response: Json): string {
  const result = response['result'];
  assert.ok(isJson(result), `a result: ${JSON.stringify(response)}`);
  const content = result['content'];
  assert.ok(Array.isArray(content) && isJson(content[0]), `content: ${JSON.stringify(result)}`);
  return String(content[0]['text']);
}

function as(who: string | undefined, scope?: string): Record<string, string> {
  return { ...(who === undefined ? {} : { 'x-who': who }), ...(scope === undefined ? {} : { 'x-scope': scope }) };
}

async function call(client: ModernHttp, id: RequestId, name: string, args: Json, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Json> {
  return responseOf(await client.post('tools/call', { name, arguments: args }, { id, headers, ...(signal === undefined ? {} : { signal }) }));
}

describe('modern HTTP: pooled connections', () => {
  test('two clients sending the same request id at once each get their own answer', async (t) => {
    const served = await servePool(t);
    const first = new ModernHttp(served.url);
    const second = new ModernHttp(served.url);
    const a = call(first, 1, 'hold', { key: 'a' });
    const b = call(second, 1, 'hold', { key: 'b' });
    await Promise.all([served.started('a'), served.started('b')]);
    // Same caller (anonymous), same id in flight: the second could not go where the first runs.
    assert.equal(served.accepted.length, 2, 'a second connection for the id in flight');
    served.release('b');
    const answeredB = await b;
    served.release('a');
    const answeredA = await a;
    assert.equal(answeredA['id'], 1);
    assert.equal(textOf(answeredA), 'held a');
    assert.equal(answeredB['id'], 1);
    assert.equal(textOf(answeredB), 'held b');
    // Both ids are free again: the next request reuses a connection.
    assert.equal(textOf(await call(first, 1, 'whoami', {})), 'anonymous []');
    assert.equal(served.accepted.length, 2);
    first.assertClean();
    second.assertClean();
  });

  test('a POST the client closes cancels its own request only; the same id elsewhere runs on', async (t) => {
    const served = await servePool(t);
    const alice = new ModernHttp(served.url);
    const bob = new ModernHttp(served.url);
    const anonymous = new ModernHttp(served.url);
    const leaving = new AbortController();
    const left = call(alice, 7, 'hold', { key: 'alice' }, as('alice'), leaving.signal).catch((error: unknown) => error);
    const stays = call(bob, 7, 'hold', { key: 'bob' }, as('bob'));
    // Same caller, same id, another connection of the pool.
    const staysToo = call(anonymous, 7, 'hold', { key: 'anon-1' });
    const leavingToo = new AbortController();
    const leftToo = call(anonymous, 7, 'hold', { key: 'anon-2' }, {}, leavingToo.signal).catch((error: unknown) => error);
    await Promise.all(['alice', 'bob', 'anon-1', 'anon-2'].map((key) => served.started(key)));

    leaving.abort();
    leavingToo.abort();
    assert.ok((await left) instanceof Error, 'the aborted POST ended without an answer');
    assert.ok((await leftToo) instanceof Error);
    await eventually(() => served.signals.get('alice')?.aborted === true && served.signals.get('anon-2')?.aborted === true, 2_000, 'the handlers of the closed POSTs to see their signals abort');
    assert.equal(served.signals.get('bob')?.aborted, false, "bob's request with the same id runs on");
    assert.equal(served.signals.get('anon-1')?.aborted, false, 'the same caller\'s request with the same id on another connection runs on');

    served.release('bob');
    served.release('anon-1');
    assert.equal(textOf(await stays), 'held bob');
    assert.equal(textOf(await staysToo), 'held anon-1');
  });

  test('listen and calls share a connection; the listen holds its id there while it listens', async (t) => {
    const served = await servePool(t);
    const client = new ModernHttp(served.url);
    const listen = asStream(await client.post('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'l' }));
    await listen.next((event) => event.event === 'message' && event.data.includes('notifications/subscriptions/acknowledged'));
    for (const id of [1, 2, 3]) assert.equal(textOf(await call(client, id, 'whoami', {})), 'anonymous []');
    assert.equal(served.accepted.length, 1, 'the listen and the calls on one connection');

    // The listen's id is in flight where it listens: a request reusing it goes to another connection.
    assert.equal(textOf(await call(client, 'l', 'whoami', {})), 'anonymous []');
    assert.equal(served.accepted.length, 2);

    // Changes still reach the listen on its pooled connection.
    served.server.tool({ name: 'added' }, () => 'new');
    const changed = await listen.next((event) => event.event === 'message' && event.data.includes('notifications/tools/list_changed'));
    assert.ok(changed.data.length > 0);
    listen.close();
    client.assertClean();
  });

  test('two callers never share a connection; each request carries its own identity to its handler', async (t) => {
    const served = await servePool(t);
    const client = new ModernHttp(served.url);
    assert.equal(textOf(await call(client, 1, 'whoami', {}, as('alice', 'read'))), 'alice [read]');
    assert.equal(textOf(await call(client, 1, 'whoami', {}, as('bob', 'write'))), 'bob [write]');
    // Alice again, with a refreshed token's scopes: her connection, her new identity.
    assert.equal(textOf(await call(client, 2, 'whoami', {}, as('alice', 'read,write'))), 'alice [read,write]');
    assert.equal(textOf(await call(client, 2, 'whoami', {})), 'anonymous []');
    assert.deepEqual(served.accepted.map((each) => each.principal), ['alice', 'bob', undefined]);
  });

  test('a burst of POSTs is served by far fewer connections than POSTs', async (t) => {
    const served = await servePool(t);
    const client = new ModernHttp(served.url);
    const count = 200;
    const answers = await Promise.all(Array.from({ length: count }, (_, index) => call(client, index + 1, 'whoami', {})));
    answers.forEach((answer, index) => {
      assert.equal(answer['id'], index + 1);
      assert.equal(textOf(answer), 'anonymous []');
    });
    assert.ok(served.accepted.length <= Math.ceil(count / 64) + 1, `${served.accepted.length} connections for ${count} POSTs`);
    client.assertClean();
  });

  test('a burst that needed several connections shrinks back to one idle connection of the caller as it ends', async (t) => {
    const clock = new TestClock(Date.now());
    const served = await servePool(t, { clock });
    const clients = Array.from({ length: 4 }, () => new ModernHttp(served.url));
    // The same id from four clients of one (anonymous) caller: four connections.
    const held = clients.map((client, index) => call(client, 1, 'hold', { key: `burst-${index}` }));
    await Promise.all(clients.map((_, index) => served.started(`burst-${index}`)));
    assert.equal(served.accepted.length, 4);
    for (let index = 0; index < 4; index++) served.release(`burst-${index}`);
    assert.deepEqual((await Promise.all(held)).map(textOf), ['held burst-0', 'held burst-1', 'held burst-2', 'held burst-3']);
    // No time passes on the endpoint's clock: the surplus goes as the burst ends, not at the idle sweep.
    await eventually(() => served.accepted.filter((accepted) => accepted.handle.state === 'closed').length === 3, 2_000, 'three of the four connections to close');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(served.accepted.filter((accepted) => accepted.handle.state !== 'closed').length, 1, 'one idle connection stays');
    assert.equal(textOf(await call(clients[0] as ModernHttp, 2, 'whoami', {})), 'anonymous []');
    assert.equal(served.accepted.length, 4, 'the next POST uses the connection that stayed');
  });

  test('a connection with nothing in flight closes after the idle time (the endpoint clock)', async (t) => {
    const clock = new TestClock(Date.now());
    const served = await servePool(t, { clock });
    const client = new ModernHttp(served.url);
    await call(client, 1, 'whoami', {});
    assert.equal(served.accepted.length, 1);
    await clock.advanceAsync(POOL_IDLE_MS / 2);
    await call(client, 2, 'whoami', {});
    assert.equal(served.accepted.length, 1, 'used again before the idle time passed');
    // The idle time slides from the last POST.
    await clock.advanceAsync(POOL_IDLE_MS / 2 + POOL_IDLE_MS / 4);
    assert.notEqual(served.accepted[0]?.handle.state, 'closed', 'not idle for long enough yet');
    await clock.advanceAsync(POOL_IDLE_MS / 2);
    await eventually(() => served.accepted[0]?.handle.state === 'closed', 2_000, 'the idle connection to close');
    await call(client, 3, 'whoami', {});
    assert.equal(served.accepted.length, 2, 'a new connection after the idle one closed');
  });

  test('closing the endpoint answers the POSTs in flight and refuses new ones', async (t) => {
    const served = await servePool(t);
    const client = new ModernHttp(served.url);
    const running = client.post('tools/call', { name: 'hold', arguments: { key: 'late' } }, { id: 1 });
    await served.started('late');
    const closed = served.http.close({ drainMs: 50 });
    const refused = await client.post('tools/call', { name: 'whoami', arguments: {} }, { id: 2 });
    assert.equal(refused.status, 503, 'a new POST is refused while the endpoint closes');
    const answer = await responseOf(await running);
    await closed;
    assert.equal(answer['id'], 1);
    assert.ok(isJson(answer['error']), `the running request is answered with an error: ${JSON.stringify(answer)}`);
    assert.match(String(answer['error']['message']), /50 ms|shut|clos/i);
    assert.equal(served.accepted[0]?.handle.state, 'closed', 'the pooled connection closed with the endpoint');
  });

  test('a full session host: a pooled connection doing nothing gives its place to a new session; then modern POSTs get 503', async (t) => {
    const made = poolServer();
    const host = createSessionHost(made.server, { maxSessions: 1 });
    const http = createStreamableHttpServer({ server: host });
    const listening = await http.listen(0, '127.0.0.1');
    t.after(async () => {
      await http.close({ drainMs: 0 });
      await host.close({ drainMs: 0 });
      await made.server.close();
    });
    const client = new ModernHttp(listening.url);
    assert.equal(textOf(await call(client, 1, 'whoami', {})), 'anonymous []');
    assert.equal(host.sessions.size, 1, 'the pooled connection is a session of the host');
    // A legacy client takes the place the idle pooled connection held.
    await new RawMcp(listening.url).initialize();
    assert.equal(host.sessions.size, 1);
    assert.equal(http.sessionCount, 1);
    const refused = await client.post('tools/call', { name: 'whoami', arguments: {} }, { id: 2 });
    assert.equal(refused.status, 503, 'no place for a new modern connection');
    assert.match(JSON.stringify(refused.kind === 'body' ? refused.json : undefined), /maximum of 1 sessions/);
  });

  test('a frame that names no exchange is not dropped silently: the session hears it was undeliverable, and why', async () => {
    const connection = new PooledConnection(undefined, systemClock, false);
    const frames: InboundFrame[] = [];
    connection.incoming$.subscribe((frame) => frames.push(frame));
    const sent = connection.send({ payload: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'lost?' } } });
    assert.equal(sent, undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(frames.length, 1);
    const frame = frames[0];
    assert.ok(frame?.type === 'undeliverable', `an undeliverable frame: ${JSON.stringify(frame)}`);
    assert.match(frame.error.message, /named no exchange/);
    await connection.close();
  });
});
