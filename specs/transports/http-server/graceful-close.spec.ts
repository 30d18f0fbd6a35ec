/**
 * Graceful close of a Streamable HTTP endpoint (`createStreamableHttpServer(...).close({ drainMs })`) over real
 * sockets: requests in flight are answered, streams end cleanly, and everything new is refused meanwhile.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { within } from '../../support/harness.ts';
import { RawMcp, asBody, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { type EventStore, InMemoryEventStore } from '../../../transports/http/index.ts';
import { answers, resultText, serve } from './fixtures.ts';

const waitCall = (id: number, key: string): Record<string, unknown> => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: { key } } });

describe('http server: graceful close', () => {
  test('close while requests run on POST streams: they are answered, streams end, new sessions get 503 and new requests a JSON-RPC refusal', async () => {
    await using served = await serve();
    const first = new RawMcp(served.url);
    const second = new RawMcp(served.url);
    await first.initialize();
    await second.initialize();
    const standalone = asStream(await first.get());
    const firstCall = asStream(await first.post(waitCall(first.id(), 'a')));
    const secondCall = asStream(await second.post(waitCall(second.id(), 'b')));
    await within(Promise.all([served.gates.started('a'), served.gates.started('b')]), 2000, 'both calls running');

    let closed = false;
    const closing = served.http.close({ drainMs: 10_000 }).then(() => (closed = true));

    // A new session: 503 with Retry-After and the reason.
    const refused = asBody(await new RawMcp(served.url).post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '0' } } }));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '5');
    assert.match(refused.text, /the server is shutting down/);
    // A GET (a new stream) on an open session: 503 too.
    assert.equal((await first.get()).status, 503);
    // A new request on an open session: its session refuses it in JSON-RPC.
    const late = await first.call('tools/call', { name: 'echo', arguments: { text: 'late' } });
    assert.match(String((late.response['error'] as { message?: unknown } | undefined)?.message), /shutting down/);
    assert.equal(closed, false, 'the close waits for the running calls');

    served.gates.open('a');
    served.gates.open('b');
    const [a, b] = await within(Promise.all([first.responseOf(firstCall), second.responseOf(secondCall)]), 2000, 'the answers');
    assert.equal(resultText(a as Record<string, unknown>), 'done a');
    assert.equal(resultText(b as Record<string, unknown>), 'done b');
    assert.equal(await within(firstCall.done, 2000, 'the first POST stream'), 'ended');
    assert.equal(await within(secondCall.done, 2000, 'the second POST stream'), 'ended');
    assert.equal(await within(standalone.done, 2000, 'the standalone GET stream'), 'ended', 'ended by the server, cleanly');
    await within(closing, 2000, 'the close');
    assert.equal(served.http.sessionCount, 0);
    first.assertClean();
    second.assertClean();
  });

  test('a call outlasting drainMs is answered with the shutdown error naming it and the deadline', async () => {
    await using served = await serve();
    const mcp = new RawMcp(served.url);
    await mcp.initialize();
    const id = mcp.id();
    const call = asStream(await mcp.post(waitCall(id, 'never')));
    await within(served.gates.started('never'), 2000, 'the call running');
    const started = Date.now();
    await within(served.http.close({ drainMs: 200 }), 5000, 'the close');
    assert.ok(Date.now() - started >= 190, 'the call had its drain time');
    assert.equal(await within(call.done, 2000, 'the POST stream'), 'ended');
    const answer = call.events.map((event) => JSON.parse(event.data || 'null') as Record<string, unknown> | null).find((message) => message !== null && answers(id)(message));
    assert.deepEqual(answer?.['error'], {
      code: -32603,
      message: `The server shut down before tools/call (request ${id}) finished: the shutdown deadline of 200 ms passed`,
      data: { shutdown: true, deadlineMs: 200 },
    });
    mcp.assertClean();
    // Nothing is served any more.
    const after = await rawRequest(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' }).catch(() => undefined);
    assert.ok(after === undefined || after.status === 503, 'the listener is closed, or refuses');
  });

  test('a GET stream still waiting for its event store when the endpoint closes is ended cleanly by the close', async () => {
    // The store answers the GET's priming append only when told: the close comes while the stream waits for it.
    const memory = new InMemoryEventStore();
    let hold = false;
    let asked!: () => void;
    const appendAsked = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const store: EventStore = {
      append(sessionId, streamId, message) {
        if (!hold) return memory.append(sessionId, streamId, message);
        asked();
        return released.then(() => memory.append(sessionId, streamId, message));
      },
      replayAfter: (sessionId, lastEventId) => memory.replayAfter(sessionId, lastEventId),
      dropSession: (sessionId) => memory.dropSession(sessionId),
    };
    await using served = await serve({ eventStore: store });
    const mcp = new RawMcp(served.url);
    await mcp.initialize();
    hold = true;
    const getting = mcp.get();
    await within(appendAsked, 2000, 'the GET asking the store for its priming id');
    const closing = served.http.close({ drainMs: 1000 });
    const standalone = asStream(await within(getting, 2000, 'the GET answered'));
    assert.equal(standalone.status, 200);
    assert.equal(await within(standalone.done, 2000, 'the standalone GET stream'), 'ended', 'ended by the server, cleanly, though its store had not answered');
    await within(closing, 2000, 'the close');
    // The store answers late: nothing is written on the ended stream, nothing throws.
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    mcp.assertClean();
  });
});
