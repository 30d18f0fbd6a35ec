/**
 * The session host: a maximum with a clear refusal, idle expiry, close-all, and its metrics and events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstValueFrom, take, toArray } from 'rxjs';
import { isLocalError } from '../../core/errors.ts';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import { type HostEvent, type HostMetrics, createSessionHost } from '../../server/session-host.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { TestClock } from '../support/test-clock.ts';

const client = createClient({ name: 'host-spec', version: '1', era: 'legacy' });

function echoServer() {
  const server = createServer({ name: 'host-spec-server', version: '1' });
  let release: (() => void) | undefined;
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => ({ content: [{ type: 'text', text: String(args.text) }] }));
  server.tool({ name: 'hold', inputSchema: { type: 'object' } }, () => new Promise((resolve) => (release = () => resolve({ content: [] }))));
  return { server, release: () => release?.() };
}

test('session host - refuses sessions past its maximum with SessionLimit, closing the refused transport; a freed place is taken again', async () => {
  const { server } = echoServer();
  const host = createSessionHost(server, { maxSessions: 2 });
  const events: HostEvent[] = [];
  host.events$.subscribe((event) => events.push(event));
  const connect = async () => {
    const [clientEnd, serverEnd] = createMemoryPair();
    host.accept(serverEnd);
    return client.connect(clientEnd);
  };
  const first = await connect();
  await connect();
  assert.equal(host.sessions.size, 2);
  assert.match(host.refusal()?.message ?? '', /maximum of 2 sessions/);

  const [clientEnd, serverEnd] = createMemoryPair();
  let closedReason: unknown;
  serverEnd.status$.subscribe((status) => {
    if (status.type === 'closed') closedReason = status.reason;
  });
  assert.throws(() => host.accept(serverEnd), (error: unknown) => isLocalError(error, 'SessionLimit') && /maximum of 2 sessions/.test(error.message));
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(isLocalError(closedReason, 'SessionLimit'), 'the refused transport was closed with the refusal');
  await assert.rejects(client.connect(clientEnd), 'the refused client learns it at once');
  assert.deepEqual(events.map((e) => e.type), ['refused']);

  await first.close();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(host.sessions.size, 1);
  assert.equal(host.refusal(), undefined);
  const third = await connect();
  assert.equal((await third.callTool('echo', { text: 'again' })).content[0]?.type, 'text');
  const figures = host.metrics();
  assert.equal(figures.accepted, 3);
  assert.equal(figures.refused, 1);
  assert.equal(figures.liveSessions, 2);
  await host.close();
});

test('session host - closes sessions idle past the timeout (IdleTimeout), not those with traffic or work in flight', async () => {
  const clock = new TestClock();
  const { server, release } = echoServer();
  const host = createSessionHost(server, { idleTimeoutMs: 1_000, sweepIntervalMs: 100, clock, session: { clock } });
  const events: HostEvent[] = [];
  host.events$.subscribe((event) => events.push(event));
  const open = async () => {
    const [clientEnd, serverEnd] = createMemoryPair();
    const session = host.accept(serverEnd);
    const connected = await client.connect(clientEnd);
    return { session, connected };
  };
  const quiet = await open();
  const chatty = await open();
  const busy = await open();
  const held = busy.connected.callTool('hold', {});
  await new Promise((resolve) => setImmediate(resolve));

  for (let step = 0; step < 6; step++) {
    await clock.advanceAsync(300);
    await chatty.connected.callTool('echo', { text: `tick ${step}` });
  }
  assert.equal(quiet.session.state, 'closed', 'the quiet session expired');
  assert.ok(isLocalError(await quiet.session.closed, 'IdleTimeout'));
  assert.equal(chatty.session.state, 'operating', 'a session with traffic stays');
  assert.equal(busy.session.state, 'operating', 'a session with a request in flight stays');
  assert.deepEqual(events.filter((e) => e.type === 'expired').map((e) => (e as { session: unknown }).session), [quiet.session]);

  release();
  assert.equal((await held).isError, undefined);
  await clock.advanceAsync(1_200);
  assert.equal(busy.session.state, 'closed', 'once its request ended and it idled, it expired too');
  assert.equal(chatty.session.state, 'closed', 'and so did the chatty one once it fell quiet');
  assert.equal(host.metrics().expired, 3);
  assert.equal(host.sessions.size, 0);
  await host.close();
});

test('session host - closeAll closes every session and the host keeps accepting; close() refuses afterwards', async () => {
  const { server } = echoServer();
  const host = createSessionHost(server);
  const sessions = await Promise.all(Array.from({ length: 20 }, async () => {
    const [clientEnd, serverEnd] = createMemoryPair();
    const session = host.accept(serverEnd);
    await client.connect(clientEnd);
    return session;
  }));
  assert.equal(host.sessions.size, 20);
  await host.closeAll();
  assert.ok(sessions.every((s) => s.state === 'closed'));
  assert.equal(host.sessions.size, 0);
  assert.equal(server.sessions.size, 0, 'the server let go of them too');

  const [clientEnd, serverEnd] = createMemoryPair();
  host.accept(serverEnd);
  await client.connect(clientEnd);
  await host.close();
  assert.equal(host.sessions.size, 0);
  assert.match(host.refusal()?.message ?? '', /shutting down/);
  const [, lateEnd] = createMemoryPair();
  assert.throws(() => host.accept(lateEnd), (error: unknown) => isLocalError(error, 'SessionLimit'));
});

test('session host - metrics$ reports live sessions, requests in flight, queued frames and slow consumers', async () => {
  const clock = new TestClock();
  const { server, release } = echoServer();
  server.tool({ name: 'flood', inputSchema: { type: 'object' } }, async (_args, context) => {
    for (let i = 0; i < 200; i++) context.log('info', `line ${i}`);
    return { content: [] };
  });
  const host = createSessionHost(server, { metricsIntervalMs: 1_000, clock, backpressure: { slowAfterFrames: 8, stallTimeoutMs: Infinity }, session: { clock } });
  const samples: HostMetrics[] = [];
  const subscription = host.metrics$.subscribe((sample) => samples.push(sample));
  assert.equal(samples.length, 1, 'the current figures at once');
  assert.equal(samples[0]?.liveSessions, 0);

  const [clientEnd, serverEnd] = createMemoryPair({ highWaterMark: 4 });
  host.accept(serverEnd);
  const connected = await client.connect(clientEnd);
  const held = connected.callTool('hold', {});
  await new Promise((resolve) => setImmediate(resolve));
  await clock.advanceAsync(1_000);
  assert.equal(samples.at(-1)?.liveSessions, 1);
  assert.equal(samples.at(-1)?.inFlightRequests, 1);
  release();
  await held;

  // A second session whose client stops reading: its frames queue and it counts as a slow consumer.
  const [rawClient, floodEnd] = createMemoryPair({ highWaterMark: 4 });
  const slowSession = host.accept(floodEnd);
  const received: unknown[] = [];
  const reading = rawClient.incoming$.subscribe((frame) => received.push(frame));
  await rawClient.send({ payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } } });
  await new Promise((resolve) => setImmediate(resolve));
  await rawClient.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  await new Promise((resolve) => setImmediate(resolve));
  reading.unsubscribe();
  const slowSeen = firstValueFrom(host.events$.pipe(take(1)));
  await rawClient.send({ payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'flood', arguments: {} } } });
  const slow = await slowSeen;
  assert.equal(slow.type, 'slow');
  assert.equal((slow as { session: unknown }).session, slowSession);
  await clock.advanceAsync(1_000);
  const last = samples.at(-1) as HostMetrics;
  assert.equal(last.liveSessions, 2);
  assert.equal(last.slowConsumers, 1);
  assert.ok(last.queuedFrames >= 8, `frames queued for the slow reader: ${last.queuedFrames}`);

  // The reader comes back: the queue drains and the host hears it flows again.
  const flowing = firstValueFrom(host.events$.pipe(take(1), toArray()));
  rawClient.incoming$.subscribe((frame) => received.push(frame));
  assert.equal((await flowing)[0]?.type, 'flowing');
  await new Promise((resolve) => setImmediate(resolve));
  await clock.advanceAsync(1_000);
  assert.equal(samples.at(-1)?.slowConsumers, 0);
  subscription.unsubscribe();
  const count = samples.length;
  await clock.advanceAsync(5_000);
  assert.equal(samples.length, count, 'no samples after unsubscribing: its timer is gone');
  await host.close();
});
