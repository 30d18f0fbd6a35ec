/**
 * A request cancelled with `notifications/cancelled` (transports/http/server/held-streams.ts): no response
 * follows. Its SSE stream's connection stays open with nothing more on it, since every official client resumes a
 * stream that ends without its response (specs/interop/legacy-cancel-http.spec.ts shows them), until the client
 * closes it or the session ends; a session holds a bounded number of them. Resuming such a stream once nothing of
 * it is left to replay gets 204, its quiet end. A JSON answer is acknowledged with 202.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExchangeKey, SessionAcceptorPort, Transport } from '../../../core/transport.ts';
import { MAX_HELD } from '../../../transports/http/server/held-streams.ts';
import { eventually } from '../../support/harness.ts';
import { RawMcp, type SseReply, asBody, asStream } from '../../support/http-raw-client.ts';
import { answers, demoServer, messagesOf, serve } from './fixtures.ts';

/** Long enough for an ended stream to show as ended (it ends at once when it does). */
const SETTLE_MS = 300;

async function initialized(url: string): Promise<RawMcp> {
  const mcp = new RawMcp(url);
  await mcp.initialize('2025-11-25');
  return mcp;
}

const waitCall = (id: number, key: string): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { key } } });
const cancel = (mcp: RawMcp, id: number): Promise<unknown> => mcp.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'changed my mind' } });

async function settled(stream: SseReply): Promise<'ended' | 'closed' | 'open'> {
  return Promise.race([stream.done, new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), SETTLE_MS))]);
}

describe('http server: a cancelled request', () => {
  test('its SSE stream gets nothing more and stays open until the session ends', async () => {
    await using served = await serve({ sse: { keepAliveMs: 50 } });
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const stream = asStream(await mcp.post(waitCall(id, 'held')));
    await served.gates.started('held');
    const before = stream.events.length;
    assert.equal(((await cancel(mcp, id)) as { status: number }).status, 202);
    assert.equal(await settled(stream), 'open', 'the cancelled stream is not ended');
    assert.ok(stream.parser.comments > 0, 'keep-alive comments go on');
    assert.equal(stream.events.length, before, 'no event after the cancellation');
    served.gates.open('held');
    assert.equal(await settled(stream), 'open', 'the handler finishing writes nothing on it either');
    assert.equal(messagesOf(stream, answers(id)).length, 0, 'no response');
    await mcp.delete();
    assert.equal(await stream.done, 'ended', 'the session ending ends it');
    mcp.assertClean();
  });

  test('resuming it gets 204 once nothing of it is left to replay, and its replay first when something is', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const stream = asStream(await mcp.post(waitCall(id, 'resumed')));
    const priming = await stream.next();
    const waiting = await stream.next((event) => event.data.includes('waiting'));
    await cancel(mcp, id);
    stream.close();
    await stream.done;

    const replayed = asStream(await mcp.get({ 'last-event-id': priming.id ?? '' }));
    assert.equal(replayed.status, 200, 'an event after the client\'s last one is replayed');
    assert.equal((await replayed.next((event) => event.data.length > 0)).id, waiting.id);
    assert.equal(await replayed.done, 'ended');

    const over = asBody(await mcp.get({ 'last-event-id': waiting.id ?? '' }));
    assert.equal(over.status, 204, 'nothing left: the stream is over');
    assert.equal(over.text, '');
    assert.equal(over.headers['mcp-session-id'], mcp.sessionId);
    served.gates.open('resumed');
    mcp.assertClean();
  });

  test(`a session holds ${MAX_HELD} cancelled streams at most: one more ends the oldest`, async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const streams: SseReply[] = [];
    for (let index = 0; index <= MAX_HELD; index++) {
      const id = mcp.id();
      const stream = asStream(await mcp.post(waitCall(id, `bounded-${index}`)));
      await served.gates.started(`bounded-${index}`);
      await cancel(mcp, id);
      streams.push(stream);
    }
    assert.equal(await settled(streams[0] as SseReply), 'ended', 'the oldest ended');
    for (const stream of streams.slice(1)) assert.equal(stream.ended, false);
    for (let index = 0; index <= MAX_HELD; index++) served.gates.open(`bounded-${index}`);
    await mcp.delete();
    mcp.assertClean();
  });

  test('what the server still sends for it (sent before the cancellation reached it) goes nowhere, not on the GET stream', async () => {
    // The session's own frames for a cancelled request stop at once; a server behind `rxmcp gateway` sends on until
    // the cancellation reaches it over NATS, and the gateway's HTTP session forwards what it sends.
    const demo = demoServer();
    const seen: { transport?: Transport; exchange?: ExchangeKey } = {};
    const acceptor: SessionAcceptorPort = {
      accept: (transport, options) => {
        seen.transport = transport;
        return demo.server.accept(transport, options);
      },
    };
    await using served = await serve({ server: acceptor }, demo);
    const mcp = await initialized(served.url);
    const standalone = asStream(await mcp.get());
    await standalone.next();
    const id = mcp.id();
    const stream = asStream(await mcp.post(waitCall(id, 'late')));
    await served.gates.started('late');
    const logged = await stream.next((event) => event.data.includes('waiting'));
    seen.exchange = (logged.id ?? '').split('.')[0] ?? '';
    await cancel(mcp, id);
    const late = { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { progressToken: 'late', progress: 2 } };
    assert.equal(seen.transport?.send({ payload: late, exchange: seen.exchange as ExchangeKey }), undefined);
    const ping = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: 'unrelated' } };
    void seen.transport?.send({ payload: ping });
    await eventually(() => standalone.messages().length > 0, 2_000, 'the unrelated notification on the GET stream');
    assert.deepEqual(standalone.messages(), [ping], 'only what relates to no request');
    assert.equal(stream.messages().some((message) => (message as { method?: string }).method === 'notifications/progress'), false);
    served.gates.open('late');
    standalone.close();
    mcp.assertClean();
  });

  test('a JSON answer is acknowledged with 202 and an empty body', async () => {
    await using served = await serve({ responseMode: 'json' });
    const mcp = await initialized(served.url);
    const id = mcp.id();
    const pending = mcp.post(waitCall(id, 'json'));
    await served.gates.started('json');
    await cancel(mcp, id);
    const reply = asBody(await pending);
    assert.equal(reply.status, 202);
    assert.equal(reply.text, '');
    served.gates.open('json');
    mcp.assertClean();
  });
});
