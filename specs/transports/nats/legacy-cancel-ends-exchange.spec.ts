/**
 * A legacy session's cancelled request ends on both ends of the NATS binding: it gets no answer, so the server
 * stops tracking its exchange (no keepalives forever, not counted in flight, so the session can idle out) and
 * the client stops waiting for it (no silence error later).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundFrame } from '../../../core/transport.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { delay, eventually } from '../../support/harness.ts';
import { SERVER_NAME, natsFixture } from './nats-fixture.ts';

const KEEPALIVE_MS = 50;
const SILENCE_MS = 300;

test('nats binding - a cancelled legacy request ends its exchange on the server and on the client', async () => {
  await using fixture = await natsFixture();
  const { server, serving } = await fixture.serve({ bare: true, nats: { keepaliveMs: KEEPALIVE_MS, sessionRecords: false } });
  let aborted = 0;
  server.tool({ name: 'hangs' }, (_args, ctx) => new Promise((_resolve, reject) => {
    ctx.signal.addEventListener('abort', () => {
      aborted++;
      reject(new Error('aborted'));
    }, { once: true });
  }));
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: SILENCE_MS });
  const frames: InboundFrame[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));

  void transport.send({ payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '0' } } } });
  void transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hangs', arguments: {} } } });
  await eventually(() => serving.counts().inFlight === 1, 2000, 'the call to run');
  void transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'no longer needed' } } });
  await eventually(() => aborted === 1, 2000, 'the handler to be aborted');
  await eventually(() => serving.counts().inFlight === 0, 2000, 'the server to stop tracking the cancelled request');

  // Longer than the client's silence limit, with keepalives every 50 ms if the exchange were still open.
  await delay(SILENCE_MS * 2);
  assert.equal(serving.counts().inFlight, 0);
  assert.deepEqual(frames.filter((frame) => frame.type !== 'message'), [], 'the client does not wait for the cancelled request (no silence error)');
  const answers = frames.flatMap((frame) => (frame.type === 'message' ? [frame.payload as Record<string, unknown>] : [])).filter((message) => message['id'] === 2);
  assert.deepEqual(answers, [], 'a cancelled request gets no answer');
  await transport.close();
});
