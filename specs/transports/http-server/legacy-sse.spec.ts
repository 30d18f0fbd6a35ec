/**
 * The 2024-11-05 HTTP+SSE endpoints (FEATURES X1, H15): GET /sse opens a session whose first event is
 * `endpoint` (the POST URL), POSTs there get 202, and every answer travels as a `message` event on the stream.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../support/harness.ts';
import { type SseReply, asBody, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { validateMessage } from '../../support/schema-oracle.ts';
import { answers, isMethod, nextMessage, resultText, serve } from './fixtures.ts';

interface LegacyClient {
  readonly stream: SseReply;
  readonly postUrl: string;
  post(message: unknown, headers?: Record<string, string>): ReturnType<typeof rawRequest>;
}

async function connect(baseUrl: string, headers: Record<string, string> = {}): Promise<LegacyClient> {
  const stream = asStream(await rawRequest(`${baseUrl}/sse`, { headers: { accept: 'text/event-stream', ...headers } }));
  const endpoint = await stream.next();
  assert.equal(endpoint.event, 'endpoint');
  const postUrl = new URL(endpoint.data, `${baseUrl}/sse`).toString();
  return {
    stream,
    postUrl,
    post: (message, extra = {}) => rawRequest(postUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, ...extra }, body: JSON.stringify(message) }),
  };
}

describe('http server: legacy HTTP+SSE (2024-11-05)', () => {
  test('a full round trip: endpoint event, initialize, a tool call with logs, all answers as message events', async () => {
    await using served = await serve({ legacySse: true });
    const base = served.url.replace(/\/mcp$/, '');
    const client = await connect(base);
    assert.match(client.postUrl, /\/messages\?sessionId=[\x21-\x7e]+$/);
    assert.equal(served.http.sessionCount, 1);

    const init = await client.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '0' } } });
    assert.equal(init.status, 202);
    assert.equal(asBody(init).text, '');
    const initialized = await nextMessage(client.stream, answers(1));
    assert.equal((initialized['result'] as { protocolVersion: string }).protocolVersion, '2024-11-05');
    assert.equal((await client.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);

    assert.equal((await client.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'log', arguments: {} } })).status, 202);
    const log = await nextMessage(client.stream, isMethod('notifications/message'));
    assert.deepEqual((log['params'] as { data: unknown }).data, { step: 'started' });
    assert.equal(resultText(await nextMessage(client.stream, answers(2))), 'logged');

    const requests = new Map<unknown, { method: string }>([[1, { method: 'initialize' }], [2, { method: 'tools/call' }]]);
    for (const event of client.stream.events.slice(1)) {
      assert.equal(event.event, 'message');
      assert.deepEqual(validateMessage('2024-11-05', JSON.parse(event.data), { requestFor: (id) => requests.get(id), role: 'server' }), []);
    }
    client.stream.close();
    await eventually(() => served.http.sessionCount === 0, 1000, 'closing the stream ended the session');
    assert.equal((await client.post({ jsonrpc: '2.0', id: 3, method: 'ping' })).status, 404);
  });

  test('server requests travel on the stream and are answered by POST', async () => {
    await using served = await serve({ legacySse: { ssePath: '/events', messagesPath: '/inbox' } });
    const base = served.url.replace(/\/mcp$/, '');
    const stream = asStream(await rawRequest(`${base}/events`, { headers: { accept: 'text/event-stream' } }));
    const endpoint = await stream.next();
    assert.match(endpoint.data, /^\/inbox\?sessionId=/);
    const postUrl = new URL(endpoint.data, base).toString();
    const post = (message: unknown): ReturnType<typeof rawRequest> =>
      rawRequest(postUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
    await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'old', version: '0' } } });
    await nextMessage(stream, answers(1));
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } });
    const elicit = await nextMessage(stream, isMethod('elicitation/create'));
    assert.equal((await post({ jsonrpc: '2.0', id: elicit['id'], result: { action: 'accept', content: { name: 'Old' } } })).status, 202);
    assert.equal(resultText(await nextMessage(stream, answers(2))), 'answered accept {"name":"Old"}');
    stream.close();
  });

  test('POST refusals: no or unknown sessionId, wrong content type, bad JSON; sessions bound to their principal', async () => {
    await using served = await serve({ legacySse: true, authenticate: (request) => request.header('x-user') });
    const base = served.url.replace(/\/mcp$/, '');
    const client = await connect(base, { 'x-user': 'dora' });
    // The session carries the principal of the GET that opened it (interceptors and sessions$ read it there).
    assert.deepEqual([...served.server.sessions].map((session) => session.principal), ['dora']);
    const json = { 'content-type': 'application/json' };
    assert.equal((await rawRequest(`${base}/messages`, { method: 'POST', headers: json, body: '{}' })).status, 400);
    assert.equal((await rawRequest(`${base}/messages?sessionId=nope`, { method: 'POST', headers: json, body: '{}' })).status, 404);
    assert.equal((await rawRequest(client.postUrl, { method: 'POST', headers: { ...json, 'x-user': 'eve' }, body: '{}' })).status, 404);
    assert.equal((await client.post({}, { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await rawRequest(client.postUrl, { method: 'POST', headers: { ...json, 'x-user': 'dora' }, body: '{' })).status, 400);
    assert.equal((await rawRequest(`${base}/sse`, { method: 'POST', headers: json, body: '{}' })).status, 405);
    assert.equal((await rawRequest(client.postUrl, { method: 'GET' })).status, 405);
    client.stream.close();
  });

  test('legacy sessions count toward maxSessions and are invisible to the Streamable endpoint', async () => {
    await using served = await serve({ legacySse: true, maxSessions: 1 });
    const base = served.url.replace(/\/mcp$/, '');
    const client = await connect(base);
    const second = await rawRequest(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(second.status, 503);
    const id = new URL(client.postUrl).searchParams.get('sessionId') ?? '';
    const streamable = await rawRequest(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(streamable.status, 404);
    client.stream.close();
  });
});
