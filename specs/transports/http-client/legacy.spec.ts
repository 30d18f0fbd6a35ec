/**
 * The 2024-11-05 HTTP+SSE fallback: in `auto` mode a refused first POST leads to a GET expecting an `endpoint`
 * event; messages then go to that endpoint and answers come on the SSE stream.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isLocalError, isWireError } from '../../../core/errors.ts';
import type { TransportStatus } from '../../../core/transport.ts';
import { type Json, closeAllMockServers, startMockServer } from '../../support/http-mock-server.ts';
import { connect, finish, sumTool, textOf, until } from './helpers.ts';

after(closeAllMockServers);

test('http client - auto mode falls back to HTTP+SSE when the first POST is refused: a full round trip', async () => {
  const mock = await startMockServer({ legacy: true, protocolVersion: '2024-11-05', tools: { add: sumTool } });
  const connected = await connect(mock, { transport: { headers: { authorization: 'Bearer legacy' } } });
  const { session, transport } = connected;
  assert.equal(transport.mode, 'legacy');
  assert.equal(transport.protocolVersion, '2024-11-05');
  assert.equal(session.session.state, 'operating');
  assert.deepEqual(connected.events, [{ type: 'legacy-fallback', endpoint: mock.url.replace('/mcp', '/messages?session=legacy-1') }]);
  assert.equal(textOf(await session.callTool('add', { a: 20, b: 22 })), '42');
  const [refused, ...rest] = mock.received;
  assert.equal(refused?.method, 'POST');
  assert.equal(refused?.path, '/mcp', 'the first POST went to the URL and was refused');
  assert.equal(rest[0]?.method, 'GET');
  assert.equal(rest[0]?.headers['accept'], 'text/event-stream');
  const posts = rest.filter((request) => request.method === 'POST');
  assert.deepEqual(posts.map((post) => (post.body as Json)['method']), ['initialize', 'notifications/initialized', 'tools/call']);
  for (const post of [...posts, ...rest]) {
    assert.equal(post.headers['authorization'], 'Bearer legacy');
    assert.equal(post.headers['mcp-session-id'], undefined);
    assert.equal(post.headers['mcp-protocol-version'], undefined);
  }
  assert.ok(posts.every((post) => post.path === '/messages?session=legacy-1'));
  await session.close();
  assert.equal(mock.received.filter((request) => request.method === 'DELETE').length, 0, 'no DELETE in the legacy transport');
  await until(() => mock.connections() === 0, 'the SSE stream to be closed');
  await finish(mock);
});

test('http client - mode legacy-sse goes straight to the SSE stream', async () => {
  const mock = await startMockServer({ legacy: true, protocolVersion: '2024-11-05', tools: { add: sumTool } });
  const connected = await connect(mock, { transport: { mode: 'legacy-sse' } });
  assert.equal(textOf(await connected.session.callTool('add', { a: 1, b: 2 })), '3');
  assert.equal(mock.received[0]?.method, 'GET');
  assert.equal(mock.posts().filter((post) => post.path === '/mcp').length, 0);
  await finish(mock, connected);
});

test('http client - the legacy stream ending closes the transport and the session', async () => {
  const mock = await startMockServer({ legacy: true, protocolVersion: '2024-11-05' });
  const connected = await connect(mock);
  const statuses: TransportStatus[] = [];
  connected.transport.status$.subscribe((status) => statuses.push(status));
  await mock.close();
  await connected.session.session.closed;
  assert.equal(connected.session.session.state, 'closed');
  await until(() => statuses.some((status) => status.type === 'closed'), 'the closed status');
  const closed = statuses.find((status) => status.type === 'closed');
  assert.ok(closed?.type === 'closed' && isLocalError(closed.reason, 'TransportFailed') && /legacy HTTP\+SSE stream ended/.test(closed.reason.message));
});

test('http client - when the fallback fails too, connect fails with both reasons', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => (response.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${request.method} here`), true),
  });
  await assert.rejects(connect(mock), (error: unknown) =>
    isLocalError(error, 'TransportFailed') && /HTTP 404 Not Found \(no POST here\), and the HTTP\+SSE fallback failed: GET .* answered HTTP 404 Not Found \(text\/plain\): no GET here/.test(error.message));
  await finish(mock);
});

test('http client - a 400 with a JSON-RPC error is a Streamable server speaking: no fallback', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => {
      const id = (request.body as Json | undefined)?.['id'];
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Unsupported protocol version' } }));
      return true;
    },
  });
  await assert.rejects(connect(mock), (error: unknown) => isWireError(error) && error.message === 'Unsupported protocol version');
  assert.equal(mock.received.filter((request) => request.method === 'GET').length, 0);
  await finish(mock);
});

test('http client - mode streamable never falls back', async () => {
  const mock = await startMockServer({ legacy: true });
  await assert.rejects(connect(mock, { transport: { mode: 'streamable' } }), (error: unknown) => isLocalError(error, 'TransportFailed') && /HTTP 405/.test(error.message));
  assert.equal(mock.received.filter((request) => request.method === 'GET').length, 0);
  await finish(mock);
});

test('http client - an endpoint on another origin is refused', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => {
      if (request.method === 'POST') return (response.writeHead(405).end(), true);
      response.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: http://evil.example.com/messages\n\n');
      return true;
    },
  });
  await assert.rejects(connect(mock), (error: unknown) => isLocalError(error, 'TransportFailed') && /not on the server's origin/.test(error.message));
  await finish(mock);
});
