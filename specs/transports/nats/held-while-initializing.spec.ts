/**
 * Frames a client sends while its `initialize` is in flight wait for the session id and then go, in order, on
 * the session subject (issue 19): the `initialized` notification, requests made right after connect, and a
 * cancel of such a request. If the initialize fails, what waited fails with that reason and nothing hangs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalError } from '../../../core/errors.ts';
import { defaultLimits } from '../../../core/limits.ts';
import type { InboundFrame } from '../../../core/transport.ts';
import { type NatsClientTransport, createNatsClientTransport } from '../../../transports/nats/index.ts';
import { DEFAULT_PREFIX, serverSubjects } from '../../../transports/nats/subjects.ts';
import { eventually } from '../../support/harness.ts';
import { SERVER_NAME, demoTools, natsFixture } from './nats-fixture.ts';

const initialize = (id: number, params: Record<string, unknown> = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'held', version: '0' } }) => ({ jsonrpc: '2.0', id, method: 'initialize', params }) as const;

function collect(transport: NatsClientTransport) {
  const frames: InboundFrame[] = [];
  transport.incoming$.subscribe((frame) => frames.push(frame));
  const messages = (): Array<Record<string, unknown>> => frames.flatMap((frame) => (frame.type === 'message' ? [frame.payload as Record<string, unknown>] : []));
  const failed = (): Array<{ id: unknown; error: string }> => frames.flatMap((frame) => (frame.type === 'undeliverable' ? [{ id: (frame.payload as { id?: unknown }).id, error: frame.error.message }] : []));
  return { messages, failed };
}

test('nats client - requests and notifications sent while initialize is in flight go on the session once it exists', async () => {
  await using fixture = await natsFixture();
  const seen = { aborted: 0 };
  const { server } = await fixture.serve({ bare: true, nats: { sessionRecords: false } });
  demoTools(server, seen);
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 5000 });
  const { messages, failed } = collect(transport);

  void transport.send({ payload: initialize(1) });
  void transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after connect' } } } });
  void transport.send({ payload: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', arguments: { ms: 60_000 } } } });
  void transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'changed my mind' } } });

  await eventually(() => messages().some((message) => message['id'] === 2), 5000, 'the answer to the request made during initialize');
  assert.ok(transport.sessionId !== undefined, 'the initialize answer named a session');
  const echo = messages().find((message) => message['id'] === 2);
  assert.ok(echo !== undefined && 'result' in echo, `the echo is answered by the session, got ${JSON.stringify(echo)}`);
  assert.deepEqual((echo['result'] as { content: unknown }).content, [{ type: 'text', text: 'after connect' }]);
  await eventually(() => seen.aborted === 1, 5000, 'the held cancel to reach the held slow call');
  assert.deepEqual(failed(), []);
  await transport.close();
});

test('nats client - when initialize is refused, what waited for it fails with the reason', async () => {
  await using fixture = await natsFixture();
  await fixture.serve({ nats: { sessionRecords: false } });
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 5000 });
  const { messages, failed } = collect(transport);

  void transport.send({ payload: initialize(1, { capabilities: {} }) });
  void transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  await eventually(() => failed().some((entry) => entry.id === 2), 5000, 'the held request to fail');
  const refusal = messages().find((message) => message['id'] === 1);
  assert.ok(refusal !== undefined && 'error' in refusal, 'initialize was refused');
  assert.match(failed().find((entry) => entry.id === 2)?.error ?? '', /initialize.*(failed|refused)/i);
  assert.equal(transport.sessionId, undefined);
  assert.equal(messages().filter((message) => message['id'] === 2).length, 0, 'no sessionless answer for the held request');
  await transport.close();
});

test('nats client - when nobody serves the name, initialize and what waited for it fail at once', async () => {
  await using fixture = await natsFixture();
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 60_000 });
  const { failed } = collect(transport);

  void transport.send({ payload: initialize(1) });
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'ping' } });
  void transport.send({ payload: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
  await eventually(() => failed().length === 3, 5000, 'all three requests to fail');
  assert.deepEqual(failed().map((entry) => entry.id), [1, 2, 3]);
  for (const entry of failed()) assert.match(entry.error, /No MCP server answers/);
  await transport.close();
});

test('nats client - what waits for initialize is bounded: past the bound a request fails and a notification is refused', async () => {
  await using fixture = await natsFixture();
  const silent = await fixture.connection();
  // A "server" that takes initialize and never answers.
  silent.subscribe(serverSubjects(DEFAULT_PREFIX, SERVER_NAME).call('initialize') as string, { callback: () => undefined });
  await silent.flush();
  const transport = createNatsClientTransport({ connection: await fixture.connection(), name: SERVER_NAME, silenceMs: 60_000 });
  const { failed } = collect(transport);
  void transport.send({ payload: initialize(1) });
  for (let index = 0; index < defaultLimits.maxOutboundQueue; index++) await transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: index } } });
  await assert.rejects(async () => transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } }), (error: unknown) => error instanceof LocalError && error.code === 'QueueFull');
  void transport.send({ payload: { jsonrpc: '2.0', id: 2, method: 'ping' } });
  await eventually(() => failed().some((entry) => entry.id === 2), 2000, 'the request past the bound to fail');
  assert.match(failed()[0]?.error ?? '', /already wait for the answer to initialize/);
  await transport.close();
});
