/**
 * SSE resumption: a stream that ends before the responses it owes is resumed by a GET with `Last-Event-ID`
 * after the server's `retry:` (measured on the real clock once, stepped on a simulated clock otherwise);
 * streams without an event id, and reconnections that keep failing, fail their requests clearly.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isLocalError } from '../../../core/errors.ts';
import { type Json, closeAllMockServers, startMockServer } from '../../support/http-mock-server.ts';
import { TestClock } from '../../support/test-clock.ts';
import { connect, finish, textOf, until } from './helpers.ts';

after(closeAllMockServers);

const result = (text: string): Json => ({ content: [{ type: 'text', text }] });
const gets = (received: readonly { readonly method: string }[]): number => received.filter((request) => request.method === 'GET').length;

test('http client - resumption on the real clock: GET with Last-Event-ID after the server retry (500 ms), result delivered', async () => {
  const mock = await startMockServer({
    answer: 'sse',
    tools: {
      slow: async (_args, ctx) => {
        ctx.disconnect(500);
        await new Promise((resolve) => setTimeout(resolve, 100));
        return result('done after the reconnection');
      },
    },
  });
  const connected = await connect(mock);
  assert.equal(textOf(await connected.session.callTool('slow')), 'done after the reconnection');
  const dropped = mock.marks.get('stream-dropped');
  const resumed = mock.marks.get('resumed');
  assert.ok(dropped !== undefined && resumed !== undefined);
  const delay = resumed - dropped;
  assert.ok(delay >= 450 && delay <= 700, `reconnected ${delay.toFixed(0)} ms after the stream ended (450-700 expected)`);
  const get = mock.received.find((request) => request.method === 'GET' && request.headers['last-event-id'] !== undefined);
  assert.equal(get?.headers['last-event-id'], 'e2', 'the priming event id (e1 carried the initialize result)');
  assert.equal(get?.headers['accept'], 'text/event-stream');
  assert.equal(get?.headers['mcp-session-id'], 'session-1');
  assert.equal(get?.headers['mcp-protocol-version'], '2025-11-25');
  assert.deepEqual(connected.events.filter((event) => event.type === 'reconnecting'), [{ type: 'reconnecting', lastEventId: 'e2', delayMs: 500, attempt: 1 }]);
  await finish(mock, connected);
});

test('http client - resumption on a simulated clock: exactly the retry, then the default 1000 ms when the server sent none', async () => {
  const clock = new TestClock();
  let release: () => void = () => undefined;
  const mock = await startMockServer({
    answer: 'sse',
    tools: {
      slow: async (args, ctx) => {
        ctx.disconnect(args['retry'] === undefined ? undefined : Number(args['retry']));
        await new Promise<void>((resolve) => (release = resolve));
        return result(`done ${String(args['retry'])}`);
      },
    },
  });
  const connected = await connect(mock, { transport: { clock } });
  for (const [retry, expected] of [[300, 300], [undefined, 1000]] as const) {
    const call = connected.session.callTool('slow', retry === undefined ? {} : { retry });
    await until(() => connected.events.filter((event) => event.type === 'reconnecting').length === (retry === undefined ? 2 : 1), 'the stream to end');
    const before = gets(mock.received);
    clock.advance(expected - 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(gets(mock.received), before, `no GET before ${expected} ms`);
    clock.advance(1);
    await until(() => gets(mock.received) === before + 1, 'the resuming GET');
    release();
    assert.equal(textOf(await call), `done ${String(retry)}`);
  }
  assert.equal(clock.pending, 0, 'no reconnection timer left');
  await finish(mock, connected);
});

test('http client - a stream that ends without any event id fails its request at once', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => {
      if ((request.body as Json | undefined)?.['method'] !== 'tools/call') return false;
      response.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing to see\n\n');
      return true;
    },
  });
  const connected = await connect(mock);
  await assert.rejects(connected.session.callTool('x'), (error: unknown) =>
    isLocalError(error, 'TransportFailed') && /request 2 \(tools\/call\).*no event id to resume it from/.test(error.message));
  assert.equal(mock.received.filter((request) => request.headers['last-event-id'] !== undefined).length, 0, 'no resumption attempt');
  await finish(mock, connected);
});

test('http client - failing reconnections back off, then the request fails; a 4xx to the resuming GET fails it at once', async () => {
  const clock = new TestClock();
  let status = 503;
  const mock = await startMockServer({
    answer: 'sse',
    tools: { slow: (_args, ctx) => (ctx.disconnect(100), new Promise<Json>(() => undefined)) },
    intercept: (request, response) => request.method === 'GET' && request.headers['last-event-id'] !== undefined && (response.writeHead(status).end(), true),
  });
  const connected = await connect(mock, { transport: { clock, reconnect: { maxAttempts: 3, growFactor: 2 } } });
  const failed = connected.session.callTool('slow').catch((error: unknown) => error);
  for (let attempt = 1; attempt <= 3; attempt++) {
    await until(() => connected.events.filter((event) => event.type === 'reconnecting').length === attempt, `reconnection ${attempt}`);
    const due = clock.nextDue;
    assert.ok(due !== undefined);
    clock.advance(due - clock.now());
  }
  const error = await failed;
  assert.ok(isLocalError(error, 'TransportFailed') && /could not be resumed \(3 reconnections brought nothing\)/.test(error.message), String(error));
  assert.deepEqual(connected.events.filter((event) => event.type === 'reconnecting').map((event) => event.type === 'reconnecting' && event.delayMs), [100, 200, 400]);

  status = 404;
  const refused = connected.session.callTool('slow').catch((error: unknown) => error);
  await until(() => connected.events.filter((event) => event.type === 'reconnecting').length === 4, 'the next reconnection');
  clock.advance(100);
  const refusal = await refused;
  assert.ok(isLocalError(refusal, 'TransportFailed') && /answered HTTP 404/.test(refusal.message), String(refusal));
  assert.equal(clock.pending, 0);
  await finish(mock, connected);
});

test('http client - a cancelled request is no longer resumed', async () => {
  const clock = new TestClock();
  const mock = await startMockServer({ answer: 'sse', tools: { slow: (_args, ctx) => (ctx.disconnect(100), new Promise<Json>(() => undefined)) } });
  const connected = await connect(mock, { transport: { clock } });
  const controller = new AbortController();
  const call = connected.session.callTool('slow', {}, { signal: controller.signal }).catch((error: unknown) => error);
  await until(() => connected.events.some((event) => event.type === 'reconnecting'), 'the stream to end');
  controller.abort();
  assert.ok(isLocalError(await call, 'RequestAborted'));
  await until(() => clock.pending === 0, 'the reconnection to be called off');
  assert.equal(gets(mock.received.filter((request) => request.headers['last-event-id'] !== undefined)), 0);
  await finish(mock, connected);
});

test('http client - a resumption answered 204 (the stream is over) fails its request at once, without trying again', async () => {
  const clock = new TestClock();
  const mock = await startMockServer({
    answer: 'sse',
    tools: { slow: (_args, ctx) => (ctx.disconnect(100), new Promise<Json>(() => undefined)) },
    intercept: (request, response) => request.method === 'GET' && request.headers['last-event-id'] !== undefined && (response.writeHead(204).end(), true),
  });
  const connected = await connect(mock, { transport: { clock } });
  const failed = connected.session.callTool('slow').catch((error: unknown) => error);
  await until(() => connected.events.some((event) => event.type === 'reconnecting'), 'the stream to end');
  clock.advance(100);
  const error = await failed;
  assert.ok(isLocalError(error, 'TransportFailed') && /the SSE stream is over \(204\)/.test(error.message), String(error));
  assert.equal(connected.events.filter((event) => event.type === 'reconnecting').length, 1, 'no second attempt');
  assert.equal(clock.pending, 0);
  await finish(mock, connected);
});

test('http client - the standalone GET stream is reconnected with Last-Event-ID when the server closes it', async () => {
  const clock = new TestClock();
  let opened = 0;
  const mock = await startMockServer({
    intercept: (request, response) => {
      if (request.method !== 'GET') return false;
      opened++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (opened === 1) response.end(`id: g1\nretry: 250\ndata:\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n`);
      else response.write(': open\n\n');
      return true;
    },
  });
  const connected = await connect(mock, { transport: { clock } });
  const changes: string[] = [];
  connected.session.listChanged$.subscribe((change) => changes.push(change));
  await until(() => connected.events.some((event) => event.type === 'reconnecting'), 'the GET stream to end');
  assert.deepEqual(connected.events.filter((event) => event.type === 'reconnecting'), [{ type: 'reconnecting', lastEventId: 'g1', delayMs: 250, attempt: 1 }]);
  clock.advance(250);
  await until(() => opened === 2, 'the reconnection');
  assert.equal(mock.received.filter((request) => request.method === 'GET')[1]?.headers['last-event-id'], 'g1');
  await until(() => changes.length === 1, 'the notification from the GET stream');
  await finish(mock, connected);
});
