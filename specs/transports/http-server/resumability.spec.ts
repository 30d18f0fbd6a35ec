/**
 * Resumability and polling (FEATURES H7, H8, H11): events carry ids naming their stream; a dropped POST stream
 * is not a cancel, the request runs on and its events wait in the store; GET + Last-Event-ID replays that
 * stream only and carries it on; the 2025-11-25 priming event, `retry`, and server-closed request streams.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RawMcp, asBody, asStream } from '../../support/http-raw-client.ts';
import { TestClock } from '../../support/test-clock.ts';
import { answers, isMethod, messagesOf, nextMessage, resultText, serve } from './fixtures.ts';

async function initialized(url: string, protocolVersion = '2025-11-25'): Promise<RawMcp> {
  const mcp = new RawMcp(url);
  await mcp.initialize(protocolVersion);
  return mcp;
}

const waitCall = (id: number, key: string): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { key } } });
const streamOf = (eventId: string | undefined): string => (eventId ?? '').split('.')[0] ?? '';

describe('http server: resuming streams', () => {
  test('a dropped POST stream is no cancel: the request finishes and GET + Last-Event-ID delivers the rest', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const post = asStream(await mcp.post(waitCall(id, 'drop')));
    const priming = await post.next();
    assert.equal(priming.data, '', 'a 2025-11-25 stream starts with a priming event');
    const waiting = await post.next((event) => event.data.includes('waiting'));
    assert.match(waiting.id ?? '', /^p\d+\.\d+$/, 'event ids name their stream');
    post.close();
    assert.equal(await post.done, 'closed');
    await served.gates.started('drop');
    served.gates.open('drop');

    const resumed = asStream(await mcp.get({ 'last-event-id': waiting.id ?? '' }));
    assert.equal(resumed.status, 200);
    const released = await nextMessage(resumed, isMethod('notifications/message'));
    assert.deepEqual((released['params'] as { data: unknown }).data, { released: 'drop' });
    assert.equal(resultText(await nextMessage(resumed, answers(id))), 'done drop');
    assert.equal(await resumed.done, 'ended', 'a finished stream ends after its replay');
    assert.ok(resumed.events.every((event) => event.id === undefined || streamOf(event.id) === streamOf(waiting.id)));
    mcp.assertClean();
  });

  test('resuming a stream that still runs replays what was missed, then carries its live events on', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const post = asStream(await mcp.post(waitCall(id, 'live')));
    const priming = await post.next();
    await post.next((event) => event.data.includes('waiting'));
    post.close();
    await post.done;
    const resumed = asStream(await mcp.get({ 'last-event-id': priming.id ?? '' }));
    const missed = await nextMessage(resumed, isMethod('notifications/message'));
    assert.deepEqual((missed['params'] as { data: unknown }).data, { waiting: 'live' });
    served.gates.open('live');
    assert.equal(resultText(await nextMessage(resumed, answers(id))), 'done live');
    assert.equal(await resumed.done, 'ended');
    mcp.assertClean();
  });

  test("a replay holds only the named stream's events, never another stream's", async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const [a, b] = [mcp.id(), mcp.id()];
    const first = asStream(await mcp.post(waitCall(a, 'a')));
    const second = asStream(await mcp.post(waitCall(b, 'b')));
    const primingA = await first.next();
    await first.next((event) => event.data.includes('waiting'));
    first.close();
    served.gates.open('b');
    await nextMessage(second, answers(b));
    served.gates.open('a');
    const resumed = asStream(await mcp.get({ 'last-event-id': primingA.id ?? '' }));
    await resumed.done;
    const ids = messagesOf(resumed).map((message) => message['id']).filter((value) => value !== undefined);
    assert.deepEqual(ids, [a]);
    assert.ok(messagesOf(resumed).every((message) => !JSON.stringify(message).includes('"b"')));
    mcp.assertClean();
  });

  test('the standalone stream resumes too: events sent while it was down are replayed, then it goes on', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const get = asStream(await mcp.get());
    const priming = await get.next();
    assert.equal(priming.data, '');
    get.close();
    await get.done;
    served.server.tool({ name: 'later', description: 'Added while the stream was down' }, () => 'x');
    const resumed = asStream(await mcp.get({ 'last-event-id': priming.id ?? '' }));
    await nextMessage(resumed, isMethod('notifications/tools/list_changed'));
    served.server.tool({ name: 'later2', description: 'Added after the resume' }, () => 'y');
    await nextMessage(resumed, isMethod('notifications/tools/list_changed'));
    assert.equal(asBody(await mcp.get()).status, 409, 'the resumed connection is the standalone stream now');
    resumed.close();
    mcp.assertClean();
  });

  test('an unknown Last-Event-ID gets 400; sessions without a store send no ids and ignore it', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    assert.equal((await mcp.get({ 'last-event-id': 'p99.12345' })).status, 400);
    assert.equal((await mcp.get({ 'last-event-id': 'garbage' })).status, 400);
    mcp.assertClean();

    await using plain = await serve({ eventStore: false });
    const other = await initialized(plain.url);
    const { reply } = await other.call('tools/call', { name: 'log', arguments: {} });
    const stream = asStream(reply);
    await stream.done;
    assert.ok(stream.events.every((event) => event.id === undefined && event.data.length > 0), 'no ids, no priming');
    const get = asStream(await other.get({ 'last-event-id': 'p1.1' }));
    assert.equal(get.status, 200, 'Last-Event-ID is ignored: a plain standalone stream');
    get.close();
    other.assertClean();
  });
});

describe('http server: priming and polling (2025-11-25)', () => {
  test('only 2025-11-25 sessions are primed; older ones still get event ids', async () => {
    await using served = await serve();
    const old = await initialized(served.url, '2025-06-18');
    const { reply } = await old.call('tools/call', { name: 'echo', arguments: { text: 'x' } });
    const stream = asStream(reply);
    await stream.done;
    assert.equal(stream.events.length, 1);
    assert.match(stream.events[0]?.id ?? '', /^p\d+\.\d+$/);
    assert.notEqual(stream.events[0]?.data, '');
    old.assertClean();
  });

  test('polling: priming event with retry, the server closes the stream mid-call, GET + Last-Event-ID delivers the result', async () => {
    const clock = new TestClock(Date.now());
    await using served = await serve({ clock, sse: { retryMs: 500, closeRequestStreamsAfterMs: 1000, keepAliveMs: 0 } });
    const mcp = await initialized(served.url);
    // As the conformance scenario server-sse-polling does: the 2025-03-26 header on a 2025-11-25 session.
    const id = mcp.id();
    const post = asStream(await mcp.post(waitCall(id, 'poll'), { 'mcp-protocol-version': '2025-03-26', accept: 'text/event-stream, application/json' }));
    const priming = await post.next();
    assert.equal(priming.data, '');
    assert.equal(priming.retry, 500, 'retry comes with the priming event');
    assert.ok(priming.id !== undefined && priming.id.length > 0);
    await post.next((event) => event.data.includes('waiting'));
    clock.advance(1000);
    assert.equal(await post.done, 'ended', 'the server closed the stream before the result');
    assert.equal(messagesOf(post, answers(id)).length, 0);
    served.gates.open('poll');
    const resumed = asStream(await mcp.get({ 'last-event-id': post.parser.lastEventId, 'mcp-protocol-version': '2025-03-26' }));
    assert.equal(resumed.parser.retry ?? (await resumed.next()).retry, 500);
    assert.equal(resultText(await nextMessage(resumed, answers(id))), 'done poll');
    assert.equal(await resumed.done, 'ended');
    mcp.assertClean();
  });

  test('a resumed request stream is polled again: each connection is closed after the interval until the answer', async () => {
    const clock = new TestClock(Date.now());
    await using served = await serve({ clock, sse: { closeRequestStreamsAfterMs: 1000, keepAliveMs: 0 } });
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const post = asStream(await mcp.post(waitCall(id, 'twice')));
    const priming = await post.next();
    clock.advance(1000);
    await post.done;
    const again = asStream(await mcp.get({ 'last-event-id': priming.id ?? '' }));
    await nextMessage(again, isMethod('notifications/message'));
    clock.advance(1000);
    assert.equal(await again.done, 'ended');
    served.gates.open('twice');
    const last = asStream(await mcp.get({ 'last-event-id': again.parser.lastEventId }));
    assert.equal(resultText(await nextMessage(last, answers(id))), 'done twice');
    mcp.assertClean();
  });
});
