/**
 * How answers travel (FEATURES H6, H7, H9, H10): SSE mode streams a request's related notifications and
 * requests before its response and then ends; JSON mode answers with one body, fails related server requests
 * at once and sends related notifications to the GET stream; the standalone GET stream carries what relates to
 * no request; one GET stream at a time; concurrent POSTs on one session.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RawMcp, asBody, asStream } from '../../support/http-raw-client.ts';
import { answers, isMethod, messagesOf, nextMessage, resultText, serve } from './fixtures.ts';

async function initialized(url: string): Promise<RawMcp> {
  const mcp = new RawMcp(url);
  await mcp.initialize();
  return mcp;
}

const callTool = (id: number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
});

describe('http server: SSE response mode', () => {
  test('a request streams its progress and logs, then its response, then the stream ends', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const progress = asStream(await mcp.post(callTool(mcp.id(), 'progress', {}, { progressToken: 'p' })));
    assert.equal(progress.headers['content-type'], 'text/event-stream');
    assert.equal(progress.headers['mcp-session-id'], mcp.sessionId);
    assert.equal(await progress.done, 'ended');
    const steps = messagesOf(progress, isMethod('notifications/progress')).map((message) => (message['params'] as { progress: number }).progress);
    assert.deepEqual(steps, [1, 2, 3]);
    const last = progress.messages().at(-1) as Record<string, unknown>;
    assert.equal(resultText(last), 'counted', 'the response comes last');

    const logged = asStream(await mcp.post(callTool(mcp.id(), 'log')));
    assert.equal(await logged.done, 'ended');
    assert.deepEqual(messagesOf(logged, isMethod('notifications/message')).map((message) => (message['params'] as { data: { step: string } }).data.step), ['started', 'working', 'finished']);
    mcp.assertClean();
  });

  test('a server request rides the POST stream and is answered by a later POST; the tool then completes', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const stream = asStream(await mcp.post(callTool(id, 'ask')));
    const elicit = await nextMessage(stream, isMethod('elicitation/create'));
    const ack = asBody(await mcp.post({ jsonrpc: '2.0', id: elicit['id'], result: { action: 'accept', content: { name: 'Ada' } } }));
    assert.equal(ack.status, 202);
    assert.equal(resultText(await nextMessage(stream, answers(id))), 'answered accept {"name":"Ada"}');
    assert.equal(await stream.done, 'ended');
    mcp.assertClean();
  });

  test('three concurrent POSTs on one session are all answered on their own streams', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const ids = [mcp.id(), mcp.id(), mcp.id()];
    const replies = await Promise.all(ids.map((id) => mcp.post(callTool(id, 'wait', { key: `k${id}` }))));
    for (const reply of replies) assert.equal(reply.status, 200);
    for (const id of ids.slice().reverse()) served.gates.open(`k${id}`);
    for (const [index, reply] of replies.entries()) {
      const stream = asStream(reply);
      assert.equal(resultText(await nextMessage(stream, answers(ids[index]))), `done k${ids[index]}`);
      assert.equal(await stream.done, 'ended');
      assert.ok(messagesOf(stream).every((message) => !('id' in message) || message['id'] === ids[index]), 'each stream carries only its own messages');
    }
    mcp.assertClean();
  });
});

describe('http server: a quiet stream', () => {
  // Without keep-alive comments nothing else would carry the headers: a stream's headers must not wait for its first event.
  test('a request stream with nothing to send yet has its headers at once (2025-03-26: no priming event)', { timeout: 5_000 }, async () => {
    await using served = await serve({ sse: { keepAliveMs: 0 } });
    let release: (text: string) => void = () => undefined;
    served.server.tool({ name: 'silent' }, () => new Promise<string>((resolve) => (release = resolve)));
    const mcp = new RawMcp(served.url);
    await mcp.initialize('2025-03-26');
    const id = mcp.id();
    const stream = asStream(await mcp.post(callTool(id, 'silent')));
    assert.equal(stream.status, 200);
    assert.equal(stream.events.length, 0, 'the headers came before any event');
    release('spoke at last');
    assert.equal(resultText(await nextMessage(stream, answers(id))), 'spoke at last');
    mcp.assertClean();
  });
});

describe('http server: JSON response mode', () => {
  test('requests are answered with one JSON body; notifications still get 202', async () => {
    await using served = await serve({ responseMode: 'json' });
    const mcp = await initialized(served.url);
    const { reply, response } = await mcp.call('tools/call', { name: 'echo', arguments: { text: 'json' } });
    const body = asBody(reply);
    assert.equal(body.status, 200);
    assert.equal(body.headers['content-type'], 'application/json');
    assert.equal(body.headers['mcp-session-id'], mcp.sessionId);
    assert.equal(resultText(response), 'echo: json');
    mcp.assertClean();
  });

  test('a server request related to a JSON-answered request fails at once (not by timeout) with a clear error', async () => {
    await using served = await serve({ responseMode: 'json' });
    const mcp = await initialized(served.url);
    const started = Date.now();
    const { response } = await mcp.call('tools/call', { name: 'ask', arguments: {} });
    assert.ok(Date.now() - started < 1000, 'no waiting for a request timeout');
    const result = response['result'] as { isError?: boolean };
    assert.equal(result.isError, true);
    assert.match(resultText(response), /plain JSON answer/);
    mcp.assertClean();
  });

  test('related notifications go to the GET stream when it is open (and are dropped otherwise)', async () => {
    await using served = await serve({ responseMode: 'json' });
    const mcp = await initialized(served.url);
    const dropped = await mcp.call('tools/call', { name: 'log', arguments: {} });
    assert.equal(resultText(dropped.response), 'logged');
    const stream = asStream(await mcp.get());
    const { response } = await mcp.call('tools/call', { name: 'log', arguments: {} });
    assert.equal(resultText(response), 'logged');
    for (const step of ['started', 'working', 'finished']) {
      const log = await nextMessage(stream, isMethod('notifications/message'));
      assert.deepEqual((log['params'] as { data: unknown }).data, { step });
    }
    stream.close();
    mcp.assertClean();
  });
});

describe('http server: the standalone GET stream', () => {
  test('carries notifications unrelated to any request, such as list_changed', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const stream = asStream(await mcp.get());
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['mcp-session-id'], mcp.sessionId);
    served.server.tool({ name: 'added', description: 'Appears later' }, () => 'new');
    await nextMessage(stream, isMethod('notifications/tools/list_changed'));
    served.server.notifyResourceUpdated('memo://a');
    await mcp.call('resources/subscribe', { uri: 'memo://a' });
    served.server.notifyResourceUpdated('memo://a');
    const updated = await nextMessage(stream, isMethod('notifications/resources/updated'));
    assert.deepEqual(updated['params'], { uri: 'memo://a' });
    stream.close();
    mcp.assertClean();
  });

  test('carries server requests made outside any request, answered by POST', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const stream = asStream(await mcp.get());
    const session = [...served.server.sessions][0];
    assert.ok(session !== undefined);
    const asked = session.request('elicitation/create', { message: 'Hello?', requestedSchema: { type: 'object', properties: {} } });
    const request = await nextMessage(stream, isMethod('elicitation/create'));
    assert.equal((await mcp.post({ jsonrpc: '2.0', id: request['id'], result: { action: 'decline' } })).status, 202);
    assert.deepEqual(await asked, { action: 'decline' });
    stream.close();
    mcp.assertClean();
  });

  test('without a GET stream, an unrelated server request fails at once', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const session = [...served.server.sessions][0];
    assert.ok(session !== undefined);
    await assert.rejects(session.request('elicitation/create', { message: 'Hello?', requestedSchema: { type: 'object', properties: {} } }), /No SSE stream/);
    mcp.assertClean();
  });

  test('one at a time: a second GET gets 409 until the first closes', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const first = asStream(await mcp.get());
    const second = asBody(await mcp.get());
    assert.equal(second.status, 409);
    first.close();
    await first.done;
    // The server notices the disconnect on its own schedule: retry until it has.
    let third = await mcp.get();
    for (let attempt = 0; third.status === 409 && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      third = await mcp.get();
    }
    assert.equal(asStream(third).status, 200);
    asStream(third).close();
    mcp.assertClean();
  });

  test('GET needs Accept: text/event-stream (406), and answers 405 when the standalone stream is disabled', async () => {
    await using served = await serve({ standaloneGet: false });
    const mcp = await initialized(served.url);
    assert.equal((await mcp.get({ accept: 'application/json' })).status, 406);
    const disabled = asBody(await mcp.get());
    assert.equal(disabled.status, 405);
    assert.equal(disabled.headers['allow'], 'POST, DELETE');
    mcp.assertClean();
  });
});
