/**
 * The NATS binding runs on the injected clock like every other transport (issue 19): a client's silence limit,
 * a server's keepalives and its idle expiry of legacy sessions all follow a simulated clock, against a real
 * nats-server, and every timer they started is cancelled when they close.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundFrame } from '../../../core/transport.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { DEFAULT_PREFIX, serverSubjects } from '../../../transports/nats/subjects.ts';
import { delay, eventually } from '../../support/harness.ts';
import { TestClock } from '../../support/test-clock.ts';
import { SERVER_NAME, natsFixture } from './nats-fixture.ts';

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'clocked', version: '0' } } } as const;

/** Moves `clock` by `total` in `step`s, letting real NATS traffic run between the steps. */
async function advanceInSteps(clock: TestClock, total: number, step: number): Promise<void> {
  for (let moved = 0; moved < total; moved += step) {
    clock.advance(step);
    await delay(5);
  }
}

function failures(frames: InboundFrame[]): Array<{ id: unknown; code: string }> {
  return frames.flatMap((frame) => (frame.type === 'undeliverable' ? [{ id: (frame.payload as { id?: unknown }).id, code: frame.error.code }] : []));
}

test('nats client - the silence limit runs on the injected clock', async () => {
  await using fixture = await natsFixture();
  const silent = await fixture.connection();
  // Takes initialize and never answers, and sends no keepalive.
  silent.subscribe(serverSubjects(DEFAULT_PREFIX, SERVER_NAME).call('initialize') as string, { callback: () => undefined });
  await silent.flush();
  const clock = new TestClock(1_000_000);
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 1000, clock });
  const frames: InboundFrame[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));

  void transport.send({ payload: initialize });
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'ping' } });
  await delay(50);
  clock.advance(900);
  await delay(20);
  assert.deepEqual(failures(frames), [], 'no failure before the silence limit of the simulated clock');
  clock.advance(400);
  await eventually(() => failures(frames).length === 2, 2000, 'the request silent for 1000 simulated ms to fail');
  assert.deepEqual(failures(frames), [{ id: 1, code: 'PeerUnresponsive' }, { id: 2, code: 'PeerUnresponsive' }]);
  await transport.close();
  assert.equal(clock.pending, 0, 'the transport cancelled its timers');
});

test('nats server - keepalives and the idle expiry of legacy sessions run on the injected clock', async () => {
  await using fixture = await natsFixture();
  const clock = new TestClock(1_000_000);
  const { server, serving } = await fixture.serve({ bare: true, nats: { sessionRecords: false, keepaliveMs: 100, sessions: { idleMs: 2000 }, clock } });
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.tool({ name: 'gated' }, async () => (await gate, 'done'));
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 300, clock });
  const frames: InboundFrame[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));
  const answer = (id: number): Record<string, unknown> | undefined =>
    frames.flatMap((frame) => (frame.type === 'message' ? [frame.payload as Record<string, unknown>] : [])).find((message) => message['id'] === id);

  void transport.send({ payload: initialize });
  await eventually(() => answer(1) !== undefined, 2000, 'the initialize answer');
  void transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'gated', arguments: {} } } });
  await eventually(() => serving.counts().inFlight === 1, 2000, 'the gated call to run');

  // Three times the client's silence limit in simulated time: only the server's keepalives, every 100 simulated
  // ms, keep the request alive (in real time this takes a few hundred ms, far less than one real keepalive).
  await advanceInSteps(clock, 1000, 50);
  assert.deepEqual(failures(frames), [], 'keepalives on the simulated clock kept the request alive');
  assert.equal(serving.counts().inFlight, 1);

  // The call ends; the session then idles out when the simulated clock passes its idle limit.
  release();
  await eventually(() => answer(2) !== undefined, 2000, 'the answer to the gated call');
  await eventually(() => serving.counts().inFlight === 0, 2000, 'nothing in flight');
  assert.equal(serving.counts().sessions, 1);
  await advanceInSteps(clock, 1500, 100);
  assert.equal(serving.counts().sessions, 1, 'not idle for 2000 simulated ms yet');
  await advanceInSteps(clock, 1500, 100);
  await eventually(() => serving.counts().sessions === 0, 2000, 'the idle session to expire');

  await transport.close();
  await serving.close('end', { drainMs: 0 });
  assert.equal(clock.pending, 0, 'the client and the server cancelled their timers');
});
