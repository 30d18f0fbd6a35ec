/**
 * Release over Streamable HTTP: a `createStreamableHttpServer` endpoint on 127.0.0.1 serves `createClient`
 * clients, each on its own `createStreamableHttpClientTransport`. Sessions that make a call and close (DELETE),
 * and sessions that go quiet until `idleTimeoutMs` expires them, leave nothing on the server (no session, no
 * stored event, no timer) and nothing in the process (no socket, no timer), and the heap comes back.
 *
 * These specs check release, not speed: nothing is timed (the short idle timeout is only how expiry is
 * provoked).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionAcceptorPort } from '../../core/transport.ts';
import { type McpServer, createClient, createServer } from '../../index.ts';
import {
  InMemoryEventStore,
  type ListeningServer,
  type StreamableHttpServer,
  createStreamableHttpClientTransport,
  createStreamableHttpServer,
} from '../../transports/http/index.ts';
import { eventually } from '../support/harness.ts';
import { CountingClock, MiB, Watched, activeResources, exposeGc, kib, resourcesBack, restingHeap } from '../support/scale-release.ts';

const gc = exposeGc();

const SESSIONS = 600;
const BATCH = 30;
const WARMUP = 300;

/**
 * The heap bound after 600 HTTP sessions: 3 MiB. Coarser than the in-memory specs: sockets, parsers and the
 * agents' buffers make readings move by up to ~1 MiB here, and the default event store keeps up to 1,024
 * evicted entries before compacting (a bounded amount, reached during the warm-up). A retained HTTP session
 * (server session, its HTTP transport and event log, the client's transport) weighs several KiB, so retaining
 * them breaks the bound; that each one is released is proven exactly by the weak references below.
 */
const HEAP_BOUND = 3 * MiB;

function echoServer(clock: CountingClock) {
  const server = createServer({ name: 'scale-http', version: '1.0.0', session: { clock } });
  server.tool(
    { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args: Record<string, unknown>) => `echo: ${String(args['text'])}`,
  );
  return server;
}

/** Stops listening, ends the endpoint and the server (again is harmless: tests also do it from `after`). */
async function stop(listening: ListeningServer, http: StreamableHttpServer, server: McpServer): Promise<void> {
  await listening.close();
  await http.close();
  await server.close();
}

describe('scale: http release', () => {
  test('600 sessions that call and close (DELETE) leave no session, event, socket, timer or heap behind', async (t) => {
    const sessionClock = new CountingClock();
    const httpClock = new CountingClock();
    const clientClock = new CountingClock();
    const server = echoServer(sessionClock);
    const eventStore = new InMemoryEventStore();
    const http = createStreamableHttpServer({ server, clock: httpClock, eventStore });
    const resourcesBefore = activeResources();
    const listening = await http.listen(0);
    t.after(() => stop(listening, http, server));
    const client = createClient({ era: 'legacy', name: 'scale-http-client', version: '1.0.0', session: { clock: clientClock } });
    const watched = new Watched();

    const round = async (total: number, watch: boolean): Promise<void> => {
      for (let done = 0; done < total; done += BATCH) {
        await Promise.all(Array.from({ length: BATCH }, async (_, offset) => {
          const transport = createStreamableHttpClientTransport(listening.url, { clock: clientClock });
          const session = await client.connect(transport);
          if (watch && offset === 0) {
            watched.watch(`client transport ${done}`, transport);
            watched.watch(`client session ${done}`, session);
            for (const serverSession of server.sessions) watched.watch(`a server session of batch ${done}`, serverSession);
          }
          const result = await session.callTool('echo', { text: `${done + offset}` });
          assert.deepEqual(result.content, [{ type: 'text', text: `echo: ${done + offset}` }]);
          await session.close();
        }));
      }
    };

    await round(WARMUP, false);
    await eventually(() => http.sessionCount === 0, 2000, 'the warm-up sessions ended');
    const resourcesListening = activeResources();
    const baseline = await restingHeap(gc);

    await round(SESSIONS, true);
    await eventually(() => http.sessionCount === 0, 2000, 'every session ended');
    await resourcesBack(resourcesListening, 'after the sessions closed (sockets, timers)');
    const after = await restingHeap(gc);

    t.diagnostic(`heap after ${SESSIONS} HTTP sessions: ${kib(after - baseline)} above baseline`);
    assert.equal(http.sessionCount, 0, 'the endpoint holds no session');
    assert.equal(server.sessions.size, 0, 'the server holds no session');
    assert.equal(client.sessions.size, 0, 'the client holds no session');
    assert.equal(eventStore.size, 0, 'the event store dropped every ended session');
    assert.equal(sessionClock.live, 0, `session timers left running (of ${sessionClock.started})`);
    assert.equal(httpClock.live, 0, `HTTP server timers left running (of ${httpClock.started}: idle expiry, keepalive)`);
    assert.equal(clientClock.live, 0, `client timers left running (of ${clientClock.started})`);
    assert.ok(watched.size > 0);
    assert.deepEqual(await watched.survivors(gc), [], 'ended sessions and transports are garbage');
    assert.ok(after - baseline <= HEAP_BOUND, `the heap is ${kib(after - baseline)} above its baseline after ${SESSIONS} sessions (bound ${kib(HEAP_BOUND)})`);

    await stop(listening, http, server);
    await resourcesBack(resourcesBefore, 'after the endpoint closed');
  });

  test('sessions expired by idleTimeoutMs are released', async (t) => {
    const sessionClock = new CountingClock();
    const httpClock = new CountingClock();
    const clientClock = new CountingClock();
    const server = echoServer(sessionClock);
    const eventStore = new InMemoryEventStore();
    const watched = new Watched();
    let accepted = 0;
    const acceptor: SessionAcceptorPort = {
      accept(transport, options) {
        const session = server.accept(transport, options);
        accepted++;
        watched.watch(`server session ${accepted}`, session);
        return session;
      },
    };
    // Real, short idle expiry: the clock is the counting one, on real timers. Some sessions may expire before
    // the last ones are open; that is fine, all must be gone in the end.
    const http = createStreamableHttpServer({ server: acceptor, clock: httpClock, eventStore, idleTimeoutMs: 200 });
    const resourcesBefore = activeResources();
    const listening = await http.listen(0);
    t.after(() => stop(listening, http, server));
    const client = createClient({ era: 'legacy', name: 'scale-idle-client', version: '1.0.0', session: { clock: clientClock } });

    // No standalone GET stream: an open stream keeps a session busy, and these must go idle.
    const transports = await Promise.all(Array.from({ length: 100 }, async (_, index) => {
      const transport = createStreamableHttpClientTransport(listening.url, { clock: clientClock, openGetStream: false });
      const session = await client.connect(transport);
      await session.callTool('echo', { text: String(index) });
      return transport;
    }));
    // A session that expired before its call was renewed by the client (a 404 re-initializes): more may have been accepted.
    assert.ok(accepted >= 100, `${accepted} sessions accepted`);

    await eventually(() => http.sessionCount === 0 && server.sessions.size === 0, 5000, 'every idle session expired');
    assert.equal(eventStore.size, 0, 'expiry drops the session events');
    assert.equal(sessionClock.live, 0, 'session timers');
    assert.equal(httpClock.live, 0, 'idle timers of expired sessions');
    assert.deepEqual(await watched.survivors(gc), [], 'expired server sessions are garbage');

    // The clients end their side (their DELETE meets an unknown session now): nothing is left on either side.
    for (const transport of transports) await transport.close();
    await eventually(() => client.sessions.size === 0, 2000, 'the clients saw their sessions end');
    assert.equal(clientClock.live, 0, 'client timers');
    await stop(listening, http, server);
    await resourcesBack(resourcesBefore, 'after the endpoint closed');
  });
});
