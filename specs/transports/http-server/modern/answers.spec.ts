/**
 * Modern era (2026-07-28) over Streamable HTTP, real 127.0.0.1 sockets: how requests are answered (FEATURES
 * N2, N6, N8, N10, N11). Errors that end a request before any stream are plain JSON bodies with their HTTP
 * status (400 for -32602/-32020/-32021/-32022, 404 for -32601) echoing the request id; a quick result is one
 * JSON body; the first related notification (progress, a log line) turns the answer into an SSE stream that
 * ends with the response; a listen stays open on SSE; closing the connection cancels the request; a
 * notification POST is 202.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { eventually } from '../../../support/harness.ts';
import { type SseReply, asBody, asStream } from '../../../support/http-raw-client.ts';
import { type Json, META, ModernHttp, assertErrorReply, isJson, responseOf, serveModern, streamMessages, warmUp } from './modern-http.ts';

before(warmUp);

const isMethod = (method: string) => (message: Json): boolean => message['method'] === method;

async function nextMessage(stream: SseReply, match: (message: Json) => boolean): Promise<Json> {
  const event = await stream.next((candidate) => {
    if (candidate.event !== 'message' || candidate.data.length === 0) return false;
    const parsed = JSON.parse(candidate.data) as unknown;
    return isJson(parsed) && match(parsed);
  });
  return JSON.parse(event.data) as Json;
}

describe('modern HTTP answers: error statuses', () => {
  test('-32602 (bad envelope) is 400 and echoes the id', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const { [META.clientCapabilities]: _dropped, ...noCapabilities } = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} };
    const reply = await client.post('tools/list', {}, { id: 'env-1', rawParams: { _meta: noCapabilities } });
    assertErrorReply(reply, 400, -32602, 'env-1');
    client.assertClean();
  });

  test('an unknown resource is 400 -32602 with data.uri', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const error = assertErrorReply(await client.post('resources/read', { uri: 'memo://missing' }, { id: 11 }), 400, -32602, 11);
    assert.deepEqual(error['data'], { uri: 'memo://missing' });
    client.assertClean();
  });

  test('-32021 (an input the request did not declare) is 400 with requiredCapabilities', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const error = assertErrorReply(await client.post('tools/call', { name: 'ask', arguments: {} }, { id: 'cap' }), 400, -32021, 'cap');
    assert.deepEqual(error['data'], { requiredCapabilities: { elicitation: {} } });
    client.assertClean();
  });

  test('-32022 (unsupported version) is 400 with supported and requested', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const error = assertErrorReply(await client.post('tools/list', {}, { id: 0, version: '2027-01-01' }), 400, -32022, 0);
    assert.deepEqual(error['data'], { supported: ['2026-07-28'], requested: '2027-01-01' });
    client.assertClean();
  });

  test('-32601 (unknown or removed method) is 404 and echoes the id', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    assertErrorReply(await client.post('no/such-method', {}, { id: 'unknown' }), 404, -32601, 'unknown');
    assertErrorReply(await client.post('logging/setLevel', { level: 'info' }, { id: 'removed' }), 404, -32601, 'removed');
    assertErrorReply(await client.post('ping', {}, { id: 'ping' }), 404, -32601, 'ping');
    client.assertClean();
  });

  test('a tool failure is a 200 result with isError, not an HTTP error', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = asBody(await client.post('tools/call', { name: 'echo', arguments: { text: 5 } }));
    assert.equal(reply.status, 200);
    assert.equal(((reply.json as Json)['result'] as Json)['isError'], true);
    client.assertClean();
  });
});

describe('modern HTTP answers: JSON or SSE', () => {
  test('a quick result is one JSON body: 200, application/json, resultType, serverInfo, caching hints', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = asBody(await client.post('tools/list', {}, { id: 'list' }));
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^application\/json/);
    const response = reply.json as Json;
    assert.equal(response['id'], 'list');
    const result = response['result'] as Json;
    assert.equal(result['resultType'], 'complete');
    assert.equal(result['ttlMs'], 0);
    assert.equal(result['cacheScope'], 'private');
    assert.deepEqual((result['_meta'] as Json)[META.serverInfo], { name: 'http-spec', version: '1.0.0' });
    client.assertClean();
  });

  test('an input_required answer is a JSON body; the retry completes on another POST', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const capabilities = { elicitation: {} };
    const asked = asBody(await client.post('tools/call', { name: 'ask', arguments: {} }, { capabilities }));
    assert.equal(asked.status, 200);
    const result = (asked.json as Json)['result'] as Json;
    assert.equal(result['resultType'], 'input_required');
    assert.deepEqual(Object.keys(result['inputRequests'] as Json), ['elicitation-1']);
    const { response } = await client.call(
      'tools/call',
      { name: 'ask', arguments: {}, requestState: result['requestState'] as string, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } } },
      { capabilities },
    );
    assert.deepEqual(((response['result'] as Json)['content'] as Json[])[0], { type: 'text', text: 'answered accept {"name":"Ada"}' });
    client.assertClean();
  });

  test('a requestState is bound to the authenticated caller: another principal cannot continue it', async () => {
    await using served = await serveModern({ authenticate: (req) => req.header('x-user') });
    const client = new ModernHttp(served.url);
    const capabilities = { elicitation: {} };
    const asked = asBody(await client.post('tools/call', { name: 'ask', arguments: {} }, { capabilities, headers: { 'X-User': 'alice' } }));
    const state = ((asked.json as Json)['result'] as Json)['requestState'] as string;
    const retry = { name: 'ask', arguments: {}, requestState: state, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Eve' } } } };
    assertErrorReply(await client.post('tools/call', retry, { id: 'mallory', capabilities, headers: { 'X-User': 'mallory' } }), 400, -32602, 'mallory');
    assertErrorReply(await client.post('tools/call', retry, { id: 'anonymous', capabilities }), 400, -32602, 'anonymous');
    const done = asBody(await client.post('tools/call', retry, { capabilities, headers: { 'X-User': 'alice' } }));
    assert.equal(done.status, 200);
    assert.equal((((done.json as Json)['result'] as Json)['content'] as Json[])[0]?.['text'], 'answered accept {"name":"Eve"}');
    client.assertClean();
  });

  test('progress before the result makes an SSE stream: progress in order, then the response, then the end', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const stream = asStream(await client.post('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p1' } }, { id: 'prog' }));
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], 'text/event-stream');
    assert.equal(await stream.done, 'ended');
    const messages = streamMessages(stream);
    assert.deepEqual(messages.slice(0, 3).map((message) => (message['params'] as Json)['progress']), [1, 2, 3]);
    assert.ok(messages.slice(0, 3).every((message) => (message['params'] as Json)['progressToken'] === 'p1'));
    assert.equal(messages.length, 4);
    assert.equal(messages[3]?.['id'], 'prog');
    assert.equal(((messages[3]?.['result'] as Json)['content'] as Json[])[0]?.['text'], 'counted');
    client.assertClean();
  });

  test('logs only when the request asked for them: with a logLevel SSE, without one a JSON body', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const stream = asStream(await client.post('tools/call', { name: 'log', arguments: {} }, { logLevel: 'info' }));
    assert.equal(await stream.done, 'ended');
    const logs = streamMessages(stream).filter(isMethod('notifications/message'));
    assert.deepEqual(logs.map((message) => ((message['params'] as Json)['data'] as Json)['step']), ['started', 'working', 'finished']);
    const quiet = asBody(await client.post('tools/call', { name: 'log', arguments: {} }));
    assert.equal(quiet.status, 200);
    assert.equal((((quiet.json as Json)['result'] as Json)['content'] as Json[])[0]?.['text'], 'logged');
    const above = asBody(await client.post('tools/call', { name: 'log', arguments: {} }, { logLevel: 'error' }));
    assert.equal(above.status, 200, 'no message reaches "error", so nothing precedes the result');
    client.assertClean();
  });

  test('a client that accepts only JSON gets one JSON body even when progress was asked for', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = asBody(await client.post('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'p' } }, { headers: { Accept: 'application/json' } }));
    assert.equal(reply.status, 200);
    assert.equal((((reply.json as Json)['result'] as Json)['content'] as Json[])[0]?.['text'], 'counted');
    client.assertClean();
  });

  test('a client that accepts neither is 406', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    assert.equal((await client.post('tools/list', {}, { headers: { Accept: 'text/plain' } })).status, 406);
  });
});

describe('modern HTTP answers: listen streams', () => {
  test('a listen answers with SSE: the acknowledgement first, then list_changed after a registration', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const stream = asStream(await client.post('subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: true } }, { id: 'listen-1' }));
    assert.equal(stream.status, 200);
    const ack = await nextMessage(stream, () => true);
    assert.deepEqual(ack, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: { [META.subscriptionId]: 'listen-1' } },
    });
    served.server.tool({ name: 'registered-later' }, () => 'later');
    const changed = await nextMessage(stream, isMethod('notifications/tools/list_changed'));
    assert.deepEqual(changed['params'], { _meta: { [META.subscriptionId]: 'listen-1' } });
    assert.equal(stream.ended, false, 'the listen stays open');
    stream.close();
    // The listen ran on a pooled connection, which stays for the next POSTs: the listen itself has ended there.
    await eventually(() => [...served.server.sessions].every((session) => session.inFlight === 0), 1000, 'closing the stream ended the listen');
    served.server.tool({ name: 'after-close' }, () => 'x');
    client.assertClean();
  });

  test('resource updates reach a listen watching the URI', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const stream = asStream(await client.post('subscriptions/listen', { notifications: { resourceSubscriptions: ['memo://a'] } }, { id: 9 }));
    await nextMessage(stream, isMethod('notifications/subscriptions/acknowledged'));
    served.server.notifyResourceUpdated('memo://a');
    const updated = await nextMessage(stream, isMethod('notifications/resources/updated'));
    assert.deepEqual(updated['params'], { uri: 'memo://a', _meta: { [META.subscriptionId]: 9 } });
    stream.close();
    client.assertClean();
  });

  test(
    'on an endpoint configured with responseMode "json" a listen still streams its acknowledgement and changes',
    async () => {
      await using served = await serveModern({ responseMode: 'json' });
      const client = new ModernHttp(served.url);
      // Bounded: a listen that never answers fails here instead of hanging the run.
      const stream = asStream(await client.post('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'json-mode', signal: AbortSignal.timeout(500) }));
      await nextMessage(stream, isMethod('notifications/subscriptions/acknowledged'));
      served.server.tool({ name: 'registered-later' }, () => 'later');
      await nextMessage(stream, isMethod('notifications/tools/list_changed'));
      stream.close();
    },
  );

  test('server.close() ends a listen with its complete result, then the stream ends', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const stream = asStream(await client.post('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'bye' }));
    await nextMessage(stream, isMethod('notifications/subscriptions/acknowledged'));
    await served.server.close();
    const last = await responseOf(stream);
    assert.equal(last['id'], 'bye');
    assert.equal((last['result'] as Json)['resultType'], 'complete');
    assert.equal(((last['result'] as Json)['_meta'] as Json)[META.subscriptionId], 'bye');
    assert.equal(await stream.done, 'ended');
    client.assertClean();
  });

  test(
    'closing the HTTP server ends an open listen with its complete result too',
    async () => {
      await using served = await serveModern();
      const client = new ModernHttp(served.url);
      const stream = asStream(await client.post('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'http-bye' }));
      await nextMessage(stream, isMethod('notifications/subscriptions/acknowledged'));
      await served.http.close();
      await stream.done;
      const last = streamMessages(stream).at(-1);
      assert.equal(last?.['id'], 'http-bye');
      assert.equal((last?.['result'] as Json | undefined)?.['resultType'], 'complete');
    },
  );
});

describe('modern HTTP answers: cancellation and notifications', () => {
  test('closing the SSE stream of a running request cancels it: the handler signal aborts', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const stream = asStream(await client.post('tools/call', { name: 'watch', arguments: {} }, { logLevel: 'info' }));
    await nextMessage(stream, isMethod('notifications/message'));
    assert.equal(served.watched[0]?.aborted, false);
    stream.close();
    await eventually(() => served.watched[0]?.aborted === true, 1000, 'the handler signal aborted');
    await eventually(() => [...served.server.sessions].every((session) => session.inFlight === 0), 1000, 'the request ended on its pooled connection');
    client.assertClean();
  });

  test('dropping the connection before any answer started cancels the request too', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const abort = new AbortController();
    const pending = client.post('tools/call', { name: 'watch', arguments: {} }, { signal: abort.signal });
    pending.catch(() => undefined);
    await served.watchStarted();
    assert.equal(served.watched[0]?.aborted, false);
    abort.abort();
    await eventually(() => served.watched[0]?.aborted === true, 1000, 'the handler signal aborted');
    await assert.rejects(pending);
  });

  test('a notification POST is 202 with no body, whatever notification it is', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    for (const method of ['notifications/cancelled', 'notifications/initialized', 'notifications/roots/list_changed']) {
      const reply = asBody(await client.send({ jsonrpc: '2.0', method, params: { requestId: 1 } }, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method }));
      assert.equal(reply.status, 202, method);
      assert.equal(reply.text, '');
    }
  });

  test('a batch POSTed in the modern era is 400', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const batch = [{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} } } }];
    const reply = asBody(await client.send(batch, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' }));
    assert.equal(reply.status, 400);
    assert.equal(((reply.json as Json)['error'] as Json)['code'], -32600);
  });

  test('a JSON-RPC response POSTed by a modern client is 400', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = asBody(await client.send({ jsonrpc: '2.0', id: 1, result: {} }, { 'MCP-Protocol-Version': '2026-07-28' }));
    assert.equal(reply.status, 400);
  });

  test('modern POSTs share a pooled connection and leave nothing running once answered; no HTTP session is made', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    await Promise.all([client.call('tools/list'), client.call('tools/call', { name: 'echo', arguments: { text: 'x' } }), client.call('prompts/list')]);
    assert.equal(served.server.sessions.size, 1, 'one pooled connection served the three POSTs (their ids differ)');
    await eventually(() => [...served.server.sessions].every((session) => session.inFlight === 0), 1000, 'every request ended');
    assert.equal(served.http.sessionCount, 0, 'no HTTP session was created');
    client.assertClean();
  });
});
