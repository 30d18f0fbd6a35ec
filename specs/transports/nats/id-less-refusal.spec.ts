/**
 * An error without an id ends the exchange it answers, on both ends of the NATS binding. A modern request that
 * reuses the id of a running request is refused with an id-less -32600 (it must not carry the running request's
 * id) on the second request's reply subject. That refusal is the second request's last word: the server must
 * stop tracking its exchange (no keepalives forever, no request counted in flight), and the client must stop
 * waiting for it (no silence error later), while the first request still gets its answer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InboundFrame } from '../../../core/transport.ts';
import { createNatsClientTransport } from '../../../transports/nats/index.ts';
import { delay, eventually } from '../../support/harness.ts';
import { SERVER_NAME, natsFixture } from './nats-fixture.ts';

const KEEPALIVE_MS = 50;
const SILENCE_MS = 300;
const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

test('nats binding - an id-less refusal (a duplicate request id) ends its exchange on the server and on the client', async () => {
  await using fixture = await natsFixture();
  const { server, serving } = await fixture.serve({ bare: true, nats: { keepaliveMs: KEEPALIVE_MS, sessionRecords: false } });
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  server.tool({ name: 'gated' }, async () => (await gate, 'done'));

  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: SILENCE_MS });
  const frames: InboundFrame[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));
  const messages = (): Array<Record<string, unknown>> => frames.flatMap((frame) => (frame.type === 'message' ? [frame.payload as Record<string, unknown>] : []));
  const request = { jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'gated', arguments: {}, _meta: envelope } } as const;

  void transport.send({ payload: request });
  await eventually(() => serving.counts().inFlight === 1, 2000, 'the first request to be running');
  void transport.send({ payload: request });
  await eventually(() => messages().some((message) => 'error' in message), 2000, 'the refusal of the duplicate');
  const [refusal] = messages();
  assert.equal((refusal?.['error'] as { code?: number } | undefined)?.code, -32600);
  assert.equal(refusal !== undefined && 'id' in refusal, false, 'the refusal carries no id');
  assert.equal(serving.counts().inFlight, 1, 'only the running request is still in flight on the server');

  release();
  await eventually(() => messages().some((message) => message['id'] === 'dup' && 'result' in message), 2000, 'the answer to the running request');
  await eventually(() => serving.counts().inFlight === 0, 2000, 'nothing in flight on the server');

  // Longer than the client's silence limit, with keepalives every 50 ms if anything were still open.
  await delay(SILENCE_MS * 2);
  assert.equal(serving.counts().inFlight, 0, 'the refused exchange is not kept alive');
  assert.deepEqual(frames.filter((frame) => frame.type !== 'message'), [], 'the client does not wait for the refused request (no silence error)');
  assert.equal(messages().length, 2, 'one refusal and one answer, nothing else');
  await transport.close();
});
