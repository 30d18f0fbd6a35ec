/**
 * Release on the client side: when the server goes away in the middle of requests (its transport closes), the
 * client fails them and keeps nothing running: no request timeout, no keepalive, no abort listener on caller
 * signals, no session. Over the in-memory transport and over Streamable HTTP.
 *
 * These specs check release, not speed: nothing is timed.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import { type McpServer, createClient, createServer, isLocalError } from '../../index.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { CountingClock, Watched, activeResources, exposeGc, resourcesBack } from '../support/scale-release.ts';

const gc = exposeGc();

/** A server whose `hang` tool runs until cancelled; `running` counts the handlers in progress. */
function hangingServer(): { server: McpServer; running: () => number; next: () => Promise<void> } {
  const server = createServer({ name: 'scale-dying', version: '1.0.0' });
  let running = 0;
  const waiters: Array<() => void> = [];
  server.tool({ name: 'hang', description: 'Runs until cancelled' }, (_args, ctx) =>
    new Promise<string>((_resolve, reject) => {
      running++;
      ctx.signal.addEventListener('abort', () => {
        running--;
        reject(new Error('cancelled'));
      }, { once: true });
      waiters.shift()?.();
    }),
  );
  return {
    server,
    running: () => running,
    next: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
}

/** Waits for a request to fail because the connection went away, and returns the error code. */
async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isLocalError(error) ? error.code : String(error);
  }
  return 'resolved';
}

describe('scale: client release', () => {
  test('a client whose server dies mid-request (memory) fails the requests and keeps no timer, listener or session', async () => {
    const resourcesBefore = activeResources();
    const clock = new CountingClock();
    const { server, running, next } = hangingServer();
    const client = createClient({ era: 'legacy', name: 'scale-dying-client', version: '1.0.0', session: { clock, keepalive: { intervalMs: 60_000 } } });
    const watched = new Watched();
    for (let round = 0; round < 50; round++) {
      const [clientEnd, serverEnd] = createMemoryPair();
      server.accept(serverEnd);
      const session = await client.connect(clientEnd);
      if (round % 5 === 0) watched.watch(`client session ${round}`, session);
      const controller = new AbortController();
      const began = Array.from({ length: 10 }, () => next());
      // Ten requests in flight, each with a request timeout (the default one, a long one, progress-reset): one
      // deadline timer of the session's times them all out (actors/request-deadlines.ts).
      const calls = Array.from({ length: 10 }, (_, i) =>
        session.callTool('hang', {}, i % 3 === 0 ? { signal: controller.signal } : i % 3 === 1 ? { timeoutMs: 3_600_000 } : { resetTimeoutOnProgress: true, onProgress: () => undefined }),
      );
      await Promise.all(began);
      assert.equal((session.session as unknown as { sent: { sweeping: boolean } }).sent.sweeping, true, 'the requests\' deadline timer is armed');
      assert.ok(clock.live >= 2, 'the keepalive and the requests\' deadline timer are armed');
      // The server dies: its end of the link closes under the running requests.
      await serverEnd.close();
      const codes = await Promise.all(calls.map(failure));
      assert.deepEqual(new Set(codes), new Set(['ConnectionClosed']), 'every request fails with ConnectionClosed');
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener is left on the caller signal');
      assert.equal(session.session.state, 'closed');
    }
    assert.equal(clock.live, 0, `client timers left running (of ${clock.started}: request timeouts, keepalive)`);
    assert.equal(client.sessions.size, 0, 'the client forgot every session');
    assert.equal(running(), 0, 'the server side aborted its handlers too');
    assert.equal(server.sessions.size, 0);
    assert.deepEqual(await watched.survivors(gc), [], 'the dead sessions are garbage');
    await resourcesBack(resourcesBefore, 'after the server died');
  });

  test('a client whose HTTP server dies mid-request fails the requests and keeps no timer, socket or session', async () => {
    const resourcesBefore = activeResources();
    const clientClock = new CountingClock();
    const { server, next } = hangingServer();
    const http = createStreamableHttpServer({ server });
    const listening = await http.listen(0);
    const client = createClient({ era: 'legacy', name: 'scale-dying-http-client', version: '1.0.0', session: { clock: clientClock } });
    const sessions = await Promise.all(Array.from({ length: 20 }, () =>
      client.connect(createStreamableHttpClientTransport(listening.url, { clock: clientClock, renewSession: false, reconnect: { maxAttempts: 0 } })),
    ));
    const began = Array.from({ length: 40 }, () => next());
    const controllers = sessions.map(() => new AbortController());
    const calls = sessions.flatMap((session, index) => [
      session.callTool('hang', {}, { signal: (controllers[index] as AbortController).signal }),
      session.callTool('hang', {}, { timeoutMs: 3_600_000 }),
    ]);
    // Outcomes are taken at once: a call may fail while the server is still going down.
    const outcomes = calls.map(failure);
    await Promise.all(began);
    // The server dies: it stops listening, drops every connection and ends every session, waiting for nothing.
    await listening.close();
    await http.close({ drainMs: 0 });
    await server.close();
    const codes = await Promise.all(outcomes);
    assert.equal(codes.filter((code) => code === 'resolved').length, 0, `no request succeeded: ${[...new Set(codes)].join(', ')}`);
    for (const session of sessions) await session.close();
    for (const controller of controllers) assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener is left on a caller signal');
    assert.equal(clientClock.live, 0, `client timers left running (of ${clientClock.started})`);
    assert.equal(client.sessions.size, 0, 'the client forgot every session');
    await resourcesBack(resourcesBefore, 'after the HTTP server died (client sockets closed)');
  });
});
