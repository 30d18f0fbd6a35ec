/**
 * The HTTP client transport and modern (2026-07-28) requests, against a hand-written loopback server that shows
 * exactly what goes over the wire: the headers of a modern POST, how JSON, SSE and error answers reach the
 * session, that a broken stream loses its request at once (no resumption), that a cancellation or close() aborts
 * the POST instead of sending anything, and that legacy traffic still works on the same transport instance.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isLocalError } from '../../../../core/errors.ts';
import { base64HeaderValue } from '../../../../core/protocol/header-mirror.ts';
import {
  MODERN,
  type RecordingServer,
  cancelled,
  delay,
  drive,
  idOf,
  json,
  modernRequest,
  sse,
  startRecordingServer,
  until,
} from './harness.ts';

const servers: RecordingServer[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

async function serve(...args: Parameters<typeof startRecordingServer>): Promise<RecordingServer> {
  const server = await startRecordingServer(...args);
  servers.push(server);
  return server;
}

const toolResult = (text: string): object => ({ content: [{ type: 'text', text }], resultType: 'complete' });

test('http client, modern - one POST per request with the standard and mirrored headers, no session id; the JSON answer is delivered', async () => {
  const server = await serve((request, res) => json(res, 200, { jsonrpc: '2.0', id: idOf(request), result: toolResult(request.method) }));
  const driven = drive(server.url, {
    headers: { authorization: 'Bearer t', 'Mcp-Session-Id': 'stale', 'mcp-param-stray': 'x', 'Mcp-Method': 'wrong' },
  });
  driven.send({ payload: modernRequest(1, 'tools/call', { name: 'weather', arguments: { region: 'eu-west', days: 3 } }), mirror: { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Days': '3' } });
  driven.send({ payload: modernRequest(2, 'resources/read', { uri: 'file:///tmp/ä.txt' }) });
  driven.send({ payload: modernRequest(3, 'tasks/get', { taskId: 'task-9' }) });
  driven.send({ payload: modernRequest(4, 'server/discover') });
  await until(() => [1, 2, 3, 4].every((id) => driven.responseTo(id) !== undefined), 'the four answers');

  const [call] = server.of('tools/call');
  assert.ok(call !== undefined);
  assert.equal(call.headers['mcp-protocol-version'], MODERN, 'MCP-Protocol-Version repeats the _meta version');
  assert.equal(call.headers['mcp-method'], 'tools/call');
  assert.equal(call.headers['mcp-name'], 'weather');
  assert.equal(call.headers['mcp-param-region'], 'eu-west');
  assert.equal(call.headers['mcp-param-days'], '3');
  assert.equal(call.headers['mcp-param-stray'], undefined, 'Mcp-Param-* headers come from the frame mirror only');
  assert.equal(call.headers['mcp-session-id'], undefined, 'never a session id');
  assert.equal(call.headers['authorization'], 'Bearer t', 'the caller\'s own headers go along');
  assert.equal(call.headers['accept'], 'application/json, text/event-stream');
  assert.equal(call.headers['content-type'], 'application/json');
  assert.equal(server.of('resources/read')[0]?.headers['mcp-name'], base64HeaderValue('file:///tmp/ä.txt'), 'a non-ASCII name is encoded');
  assert.equal(server.of('tasks/get')[0]?.headers['mcp-name'], 'task-9');
  const discover = server.of('server/discover')[0];
  assert.equal(discover?.headers['mcp-name'], undefined, 'no Mcp-Name for a method without one');
  assert.equal(discover?.headers['mcp-method'], 'server/discover');
  assert.deepEqual(driven.responseTo(1)?.result, toolResult('tools/call'));
  assert.equal(driven.transport.sessionId, undefined);
  assert.equal(driven.transport.mode, 'probing', 'modern requests leave the legacy mode undecided');
  await driven.transport.close();
  assert.deepEqual(server.requests.map((request) => request.method).sort(), ['resources/read', 'server/discover', 'tasks/get', 'tools/call'], 'no GET stream, no DELETE');
});

test('http client, modern - an SSE answer delivers its notifications, then the response; comments and event ids change nothing', async () => {
  const server = await serve((request, res) => {
    const write = sse(res);
    res.write(': keep-alive\n\n');
    write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } });
    res.write(': keep-alive\n\nid: 42\nretry: 5\n\n');
    setTimeout(() => {
      write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2 } });
      write({ jsonrpc: '2.0', id: idOf(request), result: toolResult('done') });
      res.end();
    }, 30);
  });
  const driven = drive(server.url);
  driven.send({ payload: modernRequest('a', 'tools/call', { name: 'slow' }, { progressToken: 'p' }) });
  await until(() => driven.responseTo('a') !== undefined, 'the response');
  const methods = driven.messages().map((message) => (message as { method?: string }).method ?? 'response');
  assert.deepEqual(methods, ['notifications/progress', 'notifications/progress', 'response']);
  assert.deepEqual(driven.frames.filter((frame) => frame.type !== 'message'), [], 'nothing malformed, nothing failed');
  await delay(30);
  assert.equal(server.requests.length, 1, 'no GET follows');
  await driven.transport.close();
});

test('http client, modern - 4xx JSON-RPC errors reach the session as the server\'s; other statuses fail clearly; nothing is retried', async () => {
  const server = await serve((request, res) => {
    const id = idOf(request);
    switch (id) {
      case 1:
        return json(res, 400, { jsonrpc: '2.0', id, error: { code: -32020, message: 'Header mismatch: Mcp-Param-Region header is required' } });
      case 2:
        return json(res, 404, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found: nope' } });
      case 3:
        return json(res, 400, { jsonrpc: '2.0', id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN], requested: '2030-01-01' } } });
      case 4:
        return void res.writeHead(502).end();
      case 5:
        return json(res, 400, { jsonrpc: '2.0', error: { code: -32600, message: 'Bad Request: the Mcp-Session-Id header is required' } });
      case 6:
        return void res.writeHead(202).end();
      default:
        return json(res, 200, { jsonrpc: '2.0', id: 999, result: {} });
    }
  });
  const driven = drive(server.url);
  driven.send({ payload: modernRequest(1, 'tools/call', { name: 'weather' }) });
  driven.send({ payload: modernRequest(2, 'nope') });
  driven.send({ payload: modernRequest(3, 'server/discover', {}, { 'io.modelcontextprotocol/protocolVersion': '2030-01-01' }) });
  driven.send({ payload: modernRequest(4, 'tools/list') });
  driven.send({ payload: modernRequest(5, 'server/discover') });
  driven.send({ payload: modernRequest(6, 'prompts/list') });
  driven.send({ payload: modernRequest(7, 'resources/list') });
  const settled = (id: number): boolean => driven.responseTo(id) !== undefined || driven.failureOf(id) !== undefined;
  await until(() => [1, 2, 3, 4, 5, 6, 7].every(settled), 'every request to settle');

  assert.equal(driven.responseTo(1)?.error?.code, -32020);
  assert.equal(driven.responseTo(2)?.error?.code, -32601);
  assert.deepEqual(driven.responseTo(3)?.error?.data, { supported: [MODERN], requested: '2030-01-01' });
  assert.equal(server.of('server/discover')[0]?.headers['mcp-protocol-version'], '2030-01-01', 'the header follows the body version');
  const bad = driven.failureOf(4)?.error;
  assert.ok(isLocalError(bad, 'TransportFailed') && /HTTP 502 Bad Gateway/.test(bad.message) && /tools\/list/.test(bad.message), String(bad));
  const anonymous = driven.failureOf(5)?.error;
  assert.ok(isLocalError(anonymous, 'TransportFailed') && /HTTP 400 Bad Request/.test(anonymous.message), 'an error for no request is not forged into the request\'s');
  assert.match(driven.failureOf(6)?.error.message ?? '', /HTTP 202 Accepted and no response/);
  assert.match(driven.failureOf(7)?.error.message ?? '', /carried no response to it/);
  assert.equal(driven.responseTo(4), undefined);
  assert.equal(driven.responseTo(5), undefined);
  await delay(20);
  assert.equal(server.requests.length, 7, 'one POST each: no renewal, no fallback GET, no retry');
  assert.deepEqual(driven.events.filter((event) => event.type !== 'ignored'), []);
  await driven.transport.close();
});

test('http client, modern - a broken SSE stream fails its request at once and is never resumed', async () => {
  const server = await serve((request, res) => {
    if (request.method === 'GET') return void res.writeHead(405).end();
    const write = sse(res);
    res.write('id: 7\nretry: 5\ndata:\n\n');
    write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    if (idOf(request) === 'broken') setTimeout(() => res.socket?.destroy(), 20);
    else setTimeout(() => res.end(), 20);
  });
  const driven = drive(server.url);
  const started = Date.now();
  driven.send({ payload: modernRequest('broken', 'tools/call', { name: 'slow' }) });
  driven.send({ payload: modernRequest('ended', 'tools/call', { name: 'slow' }) });
  await until(() => driven.failureOf('broken') !== undefined && driven.failureOf('ended') !== undefined, 'both requests to fail');
  assert.ok(Date.now() - started < 1000, 'at once');
  const broken = driven.failureOf('broken')?.error;
  assert.ok(isLocalError(broken, 'TransportFailed'), String(broken));
  assert.match(broken.message, /request "broken" \(tools\/call\): the SSE stream broke before the response/);
  assert.match(broken.message, /must be retried/);
  assert.match(driven.failureOf('ended')?.error.message ?? '', /the server ended the SSE stream before the response/);
  assert.equal(driven.messages().length, 2, 'the notifications before the break were delivered');
  await delay(60);
  assert.deepEqual(server.requests.map((request) => request.method), ['tools/call', 'tools/call'], 'no Last-Event-ID GET, no second POST');
  assert.equal(driven.events.some((event) => event.type === 'reconnecting'), false);
  await driven.transport.close();
});

test('http client, modern - cancelling an in-flight modern request closes its POST; the notification is not sent', async () => {
  const server = await serve((request, res) => {
    if (request.method === 'notifications/cancelled') return void res.writeHead(202).end();
    if (idOf(request) === 'streaming') sse(res)({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    if (idOf(request) === 'after') json(res, 200, { jsonrpc: '2.0', id: 'after', result: {} });
    // Anything else is left hanging: only the client can end it.
  });
  const driven = drive(server.url, { maxPendingPosts: 2 });
  assert.equal(driven.transport.send({ payload: modernRequest('waiting', 'tools/call', { name: 'slow' }) }), undefined);
  driven.send({ payload: modernRequest('streaming', 'tools/call', { name: 'slow' }) });
  await until(() => server.requests.length === 2 && driven.messages().length === 1, 'both POSTs to arrive, one streaming');
  assert.equal(driven.transport.send({ payload: cancelled('waiting') }), undefined);
  assert.equal(driven.transport.send({ payload: cancelled('streaming') }), undefined);
  await until(() => server.requests.every((request) => request.clientLeft), 'the server to see the client leave both');
  // The abandoned POSTs no longer count against backpressure (two pending would make `send` ask to wait).
  await delay(20);
  assert.equal(driven.transport.send({ payload: modernRequest('after', 'ping') }), undefined);
  await until(() => driven.responseTo('after') !== undefined, 'the next request to be answered');
  await delay(20);
  assert.deepEqual(server.of('notifications/cancelled'), [], 'nothing was POSTed for the cancellation');
  assert.deepEqual(driven.frames.filter((frame) => frame.type === 'undeliverable'), [], 'the session decides a cancelled request\'s outcome');
  await driven.transport.close();
});

test('http client, modern - a cancellation of a modern request whose POST already finished is not POSTed either', async () => {
  const server = await serve((request, res) => {
    if (request.method === 'notifications/cancelled') return void res.writeHead(202).end();
    json(res, 200, { jsonrpc: '2.0', id: idOf(request), result: toolResult('done') });
  });
  const driven = drive(server.url);
  driven.send({ payload: modernRequest('finished', 'tools/call', { name: 'quick' }) });
  await until(() => driven.responseTo('finished') !== undefined, 'the answer');
  // The session raced the answer with a cancellation: it has no POST to close, and none is made for it.
  assert.equal(driven.transport.send({ payload: cancelled('finished') }), undefined);
  await delay(30);
  assert.deepEqual(server.of('notifications/cancelled'), [], 'nothing was POSTed for the late cancellation');
  assert.ok(driven.events.some((event) => event.type === 'ignored' && /finished/.test(event.reason)), 'the transport says it let it go');
  // A cancellation naming a request this transport never sent as modern still goes out (the legacy way).
  driven.send({ payload: cancelled('legacy-7') });
  await until(() => server.of('notifications/cancelled').length === 1, 'the legacy cancellation');
  await driven.transport.close();
});

test('http client, modern - close() aborts every open modern POST and reports nothing about them', async () => {
  const server = await serve((request, res) => {
    if (idOf(request) === 'streaming') sse(res)({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
  });
  const driven = drive(server.url);
  driven.send({ payload: modernRequest('waiting', 'tools/call', { name: 'slow' }) });
  driven.send({ payload: modernRequest('streaming', 'subscriptions/listen', { notifications: { toolsListChanged: true } }) });
  await until(() => server.requests.length === 2 && driven.messages().length === 1, 'both POSTs open');
  await driven.transport.close();
  await until(() => server.requests.every((request) => request.clientLeft), 'the server to see both POSTs closed');
  assert.deepEqual(driven.frames.filter((frame) => frame.type !== 'message'), []);
  assert.ok(driven.completed(), 'incoming$ completed');
  assert.equal(server.requests.length, 2, 'no DELETE: there is no session');
});

test('http client, modern - a mirror entry that is not an encoded Mcp-Param-* header fails the request without a POST', async () => {
  const server = await serve((request, res) => json(res, 200, { jsonrpc: '2.0', id: idOf(request), result: {} }));
  const driven = drive(server.url);
  driven.send({ payload: modernRequest(1, 'tools/call', { name: 'x' }), mirror: { 'Mcp-Method': 'tools/list' } });
  driven.send({ payload: modernRequest(2, 'tools/call', { name: 'x' }), mirror: { 'Mcp-Param-Note': 'line\nbreak' } });
  await until(() => driven.failureOf(1) !== undefined && driven.failureOf(2) !== undefined, 'both to fail');
  assert.match(driven.failureOf(1)?.error.message ?? '', /"Mcp-Method" is not an Mcp-Param-\* header name/);
  assert.match(driven.failureOf(2)?.error.message ?? '', /Mcp-Param-Note value is not an encoded header value/);
  assert.equal(server.requests.length, 0);
  await driven.transport.close();
});

test('http client, modern - a refused modern probe, then legacy traffic on the same transport with its session id', async () => {
  const server = await serve((request, res) => {
    const body = request.body as { id?: number; method?: string };
    if (request.method === 'GET') return void res.writeHead(405).end();
    if (request.method === 'DELETE') return void res.writeHead(200).end();
    if (request.headers['mcp-session-id'] === undefined && body.method !== 'initialize') {
      return json(res, 400, { jsonrpc: '2.0', error: { code: -32600, message: 'Bad Request: no session' } });
    }
    if (body.method === 'initialize') {
      res.setHeader('mcp-session-id', 'S1');
      return json(res, 200, { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'legacy', version: '1' } } });
    }
    if (body.id === undefined) return void res.writeHead(202).end();
    json(res, 200, { jsonrpc: '2.0', id: body.id, result: { tools: [] } });
  });
  const driven = drive(server.url);
  driven.send({ payload: modernRequest(1, 'server/discover') });
  await until(() => driven.failureOf(1) !== undefined, 'the probe to be refused');
  assert.match(driven.failureOf(1)?.error.message ?? '', /HTTP 400 Bad Request/);
  driven.send({ payload: { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } });
  await until(() => driven.responseTo(2) !== undefined, 'initialize');
  driven.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  driven.send({ payload: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
  await until(() => driven.responseTo(3) !== undefined, 'tools/list');
  // A modern request sent later still goes without the session.
  driven.send({ payload: modernRequest(4, 'server/discover') });
  await until(() => driven.failureOf(4) !== undefined, 'the second probe');
  assert.equal(driven.transport.mode, 'streamable');
  assert.equal(driven.transport.sessionId, 'S1');
  await driven.transport.close();

  const posts = server.requests.filter((request) => request.method !== 'GET' && request.method !== 'DELETE');
  assert.deepEqual(posts.map((request) => [request.method, request.headers['mcp-session-id'] ?? null, request.headers['mcp-protocol-version'] ?? null]), [
    ['server/discover', null, MODERN],
    ['initialize', null, null],
    ['notifications/initialized', 'S1', '2025-11-25'],
    ['tools/list', 'S1', '2025-11-25'],
    ['server/discover', null, MODERN],
  ]);
  assert.equal(server.of('DELETE').length, 1, 'the legacy session is ended on close');
});
