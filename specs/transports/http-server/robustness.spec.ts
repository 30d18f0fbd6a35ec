/**
 * Clients that leave or stop reading: a disconnect mid-stream is reported to the session (and is no cancel in
 * the legacy era) and harms nothing; a slow reader gets flow control (the transport makes the session's writer
 * wait instead of buffering), and one that stops reading altogether is cut off and can resume.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InMemoryEventStore } from '../../../transports/http/index.ts';
import { delay, eventually } from '../../support/harness.ts';
import { RawMcp, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { TestClock } from '../../support/test-clock.ts';
import { answers, demoServer, isMethod, messagesOf, nextMessage, observingAcceptor, resultText, serve } from './fixtures.ts';

async function initialized(url: string): Promise<RawMcp> {
  const mcp = new RawMcp(url);
  await mcp.initialize();
  return mcp;
}

const call = (id: number, name: string, args: Record<string, unknown>): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('http server: clients that leave', () => {
  test('a disconnect mid-stream is reported as exchange-closed; the request runs on and the session stays healthy', async () => {
    const demo = demoServer();
    const observed = observingAcceptor(demo.server);
    await using served = await serve({ server: observed.acceptor }, demo);
    const mcp = await initialized(served.url);
    const post = asStream(await mcp.post(call(mcp.id(), 'wait', { key: 'leave' })));
    await post.next((event) => event.data.includes('waiting'));
    post.close();
    await eventually(() => observed.inbound.some((frame) => frame.type === 'exchange-closed'), 1000, 'the session heard of the disconnect');
    const session = [...demo.server.sessions][0];
    assert.equal(session?.state, 'operating');
    const before = observed.sends.length;
    served.gates.open('leave');
    await eventually(() => observed.sends.length >= before + 2, 1000, 'the request went on: its log and answer were sent');
    const { response } = await mcp.call('tools/call', { name: 'echo', arguments: { text: 'still here' } });
    assert.equal(resultText(response), 'echo: still here');
    assert.equal(served.http.sessionCount, 1);
    mcp.assertClean();
  });

  test('a JSON-mode client that leaves before its answer: the session hears of it, the answer is dropped, nothing breaks', async () => {
    const demo = demoServer();
    const observed = observingAcceptor(demo.server);
    await using served = await serve({ server: observed.acceptor, responseMode: 'json' }, demo);
    const mcp = await initialized(served.url);
    const abort = new AbortController();
    const pending = rawRequest(served.url, {
      method: 'POST',
      headers: mcp.sessionHeaders({ 'content-type': 'application/json', accept: 'application/json' }),
      body: JSON.stringify(call(mcp.id(), 'wait', { key: 'json' })),
      signal: abort.signal,
    }).catch((error: unknown) => error);
    await served.gates.started('json');
    abort.abort();
    assert.ok((await pending) instanceof Error);
    await eventually(() => observed.inbound.some((frame) => frame.type === 'exchange-closed'), 1000, 'the session heard of the disconnect');
    served.gates.open('json');
    const { response } = await mcp.call('tools/call', { name: 'echo', arguments: { text: 'after' } });
    assert.equal(resultText(response), 'echo: after');
    mcp.assertClean();
  });

  test('GET streams dropped over and over leave one healthy session behind', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    for (let round = 0; round < 10; round++) {
      let reply = await mcp.get();
      for (let attempt = 0; reply.status === 409 && attempt < 100; attempt++) {
        await delay(5);
        reply = await mcp.get();
      }
      const stream = asStream(reply);
      await stream.next();
      stream.close();
      await stream.done;
    }
    assert.equal(served.http.sessionCount, 1);
    assert.equal((await mcp.call('ping')).reply.status, 200);
    mcp.assertClean();
  });
});

describe('http server: flow control', () => {
  test('a slow reader makes the session wait (send returns a Promise) instead of piling events up; all arrive in order', async () => {
    const demo = demoServer();
    const observed = observingAcceptor(demo.server);
    await using served = await serve({ server: observed.acceptor, eventStore: new InMemoryEventStore({ maxCharsPerSession: 64 << 20, maxChars: 64 << 20 }) }, demo);
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const count = 400;
    const post = asStream(await mcp.post(call(id, 'flood', { count, size: 64 * 1024 })));
    post.pause();
    await eventually(() => observed.sends.includes('wait'), 2000, 'the transport reported backpressure');
    await delay(50);
    const handed = observed.sends.length;
    assert.ok(handed < count, `only ${handed} of ${count + 1} frames were handed over while the client read nothing`);
    post.resume();
    assert.equal(resultText(await nextMessage(post, answers(id), 10_000)), 'flooded');
    const indexes = messagesOf(post, isMethod('notifications/message')).map((message) => (message['params'] as { data: { index: number } }).data.index);
    assert.deepEqual(indexes, Array.from({ length: count }, (_, index) => index));
    mcp.assertClean();
  });

  test('a client that stops reading is cut off after drainTimeoutMs; it can resume and gets everything', async () => {
    const clock = new TestClock(Date.now());
    const demo = demoServer();
    const observed = observingAcceptor(demo.server);
    const store = new InMemoryEventStore({ maxCharsPerSession: 64 << 20, maxChars: 64 << 20 });
    await using served = await serve({ server: observed.acceptor, clock, eventStore: store, sse: { drainTimeoutMs: 1000, keepAliveMs: 0 } }, demo);
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const count = 400;
    const post = asStream(await mcp.post(call(id, 'flood', { count, size: 64 * 1024 })));
    post.pause();
    await eventually(() => observed.sends.includes('wait'), 2000, 'the transport reported backpressure');
    clock.advance(1000);
    post.resume();
    assert.equal(await post.done, 'closed', 'the server dropped the stalled connection');
    await eventually(() => observed.inbound.some((frame) => frame.type === 'exchange-closed'), 1000, 'reported as the client leaving');
    const lastSeen = post.parser.lastEventId;
    const resumed = asStream(await mcp.get({ 'last-event-id': lastSeen }));
    assert.equal(resultText(await nextMessage(resumed, answers(id), 10_000)), 'flooded');
    const indexes = [post, resumed].flatMap((stream) =>
      messagesOf(stream, isMethod('notifications/message')).map((message) => (message['params'] as { data: { index: number } }).data.index),
    );
    assert.deepEqual(indexes, Array.from({ length: count }, (_, index) => index), 'nothing lost, nothing twice');
    mcp.assertClean();
  });
});
