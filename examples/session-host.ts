/**
 * A session host: many clients on one server, with bounds. It caps live sessions (the next one is refused with
 * a clear reason: HTTP 503 on Streamable HTTP), closes sessions that stay idle, reports metrics and events as
 * Observables, and decides what happens to clients that stop reading (the backpressure policy).
 *
 * Here: a host of at most two sessions behind Streamable HTTP; a third legacy-era client is refused, an idle
 * session expires, and the freed place serves the third client after all.
 *
 * Run: node session-host.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createClient, createServer, createSessionHost, isLocalError, type HostEvent } from 'rxmcp';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';
import { filter, firstValueFrom } from 'rxjs';

const server = createServer({ name: 'busy', version: '1.0.0' });
server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => String(args['text']));

const host = createSessionHost(server, {
  maxSessions: 2,
  idleTimeoutMs: 1_000, // no traffic and nothing in flight for this long: the session is closed
  metricsIntervalMs: 100,
  // 'pause' holds back handlers that await ctx.whenWritable() while a client is slow; 'close' (the default)
  // drops the session when its bounded queue overflows. A client that reads nothing for stallTimeoutMs is
  // dropped either way.
  backpressure: { policy: 'pause', slowAfterFrames: 64, stallTimeoutMs: 30_000 },
});
const events: HostEvent['type'][] = [];
const watching = host.events$.subscribe((event) => events.push(event.type));

const http = createStreamableHttpServer({ server: host });
const { url, close } = await http.listen(0);
// Legacy-era clients: each holds a session on the host (modern-era clients are served request by request).
const connect = () => createClient({ name: 'user', version: '1.0.0', era: 'legacy' }).connect(createStreamableHttpClientTransport(url));

try {
  const first = await connect();
  const second = await connect();
  assert.equal(host.metrics().liveSessions, 2);

  // Full: the third is refused (HTTP 503 with the host's reason) before any session is made for it.
  await assert.rejects(connect(), (error: unknown) =>
    isLocalError(error) && error.code === 'TransportFailed' && error.message.includes('HTTP 503') && error.message.includes('maximum of 2 sessions'));
  assert.equal(host.refusal()?.code, 'SessionLimit', 'the host says why it would refuse now');

  // The first client keeps working; the second says nothing and expires.
  const expired = firstValueFrom(host.events$.pipe(filter((event) => event.type === 'expired')));
  const keepBusy = setInterval(() => void first.callTool('echo', { text: 'still here' }), 100);
  await expired;
  clearInterval(keepBusy);
  const metrics = await firstValueFrom(host.metrics$.pipe(filter((sample) => sample.liveSessions === 1)));
  assert.equal(metrics.expired, 1);
  // The host told of the refusal (with its reason) and of the expiry, in that order.
  assert.deepEqual(events, ['refused', 'expired']);

  // Its place is free again.
  const third = await connect();
  assert.deepEqual((await third.callTool('echo', { text: 'hello' })).content, [{ type: 'text', text: 'hello' }]);
  await second.close().catch(() => undefined); // its session is already gone on the server

  await host.closeAll(); // every session open now; the host keeps accepting (host.close() would refuse too)
  assert.equal(host.metrics().liveSessions, 0);
} finally {
  watching.unsubscribe();
  await close();
  await http.close();
  await host.close();
}
console.log('session host: ok');
