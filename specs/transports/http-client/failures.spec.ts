/**
 * What the HTTP client does when the server fails: statuses fail the request at once with a clear LocalError
 * (never a forged peer error), the server's own JSON-RPC errors pass through, and an expired session (404) is
 * renewed transparently (initialize replayed, the message retried once, the renewal reported).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, test } from 'node:test';
import { isLocalError, isWireError } from '../../../core/errors.ts';
import { createClient } from '../../../client/create-client.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/client/index.ts';
import { type Json, closeAllMockServers, startMockServer } from '../../support/http-mock-server.ts';
import { connect, finish, sumTool, textOf, until } from './helpers.ts';

after(closeAllMockServers);

const bodyOf = (body: unknown): Json => body as Json;

test('http client - an HTTP 500 for a request fails it at once with a LocalError naming the status and body', async () => {
  const mock = await startMockServer({
    tools: { add: sumTool },
    intercept: (request, response) => bodyOf(request.body)?.['method'] === 'tools/call' && (response.writeHead(500).end('database on fire'), true),
  });
  const connected = await connect(mock);
  const started = Date.now();
  const error: unknown = await connected.session.callTool('add', { a: 1, b: 2 }).catch((caught: unknown) => caught);
  assert.ok(isLocalError(error, 'TransportFailed'), `a TransportFailed LocalError, got ${String(error)}`);
  assert.match(error.message, /HTTP 500 Internal Server Error: database on fire/);
  assert.match(error.message, /tools\/call/);
  assert.ok(Date.now() - started < 1000, 'at once, not at the timeout');
  assert.equal(connected.session.session.state, 'operating', 'the session lives on');
  await connected.session.ping();
  await finish(mock, connected);
});

test('http client - a 4xx carrying the server\'s own JSON-RPC error for the request reaches the caller as that error', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => {
      const body = bodyOf(request.body);
      if (body?.['method'] !== 'tools/call') return false;
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body['id'], error: { code: -32602, message: 'bad arguments' } }));
      return true;
    },
  });
  const connected = await connect(mock);
  const error: unknown = await connected.session.callTool('x').catch((caught: unknown) => caught);
  assert.ok(isWireError(error) && error.code === -32602 && error.message === 'bad arguments', String(error));
  await finish(mock, connected);
});

test('http client - a malformed JSON answer, or one without the response, fails the request clearly', async () => {
  let calls = 0;
  const mock = await startMockServer({
    intercept: (request, response) => {
      if (bodyOf(request.body)?.['method'] !== 'tools/call') return false;
      calls++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(calls === 1 ? '{"jsonrpc": "2.0", "id":' : '{"jsonrpc":"2.0","id":999,"result":{}}');
      return true;
    },
  });
  const connected = await connect(mock);
  const diagnostics: string[] = [];
  connected.session.session.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic.type));
  await assert.rejects(connected.session.callTool('x'), (error: unknown) => isLocalError(error, 'TransportFailed') && /malformed/.test(error.message));
  await assert.rejects(connected.session.callTool('x'), (error: unknown) => isLocalError(error, 'TransportFailed') && /carried no response/.test(error.message));
  assert.deepEqual(diagnostics, ['dropped-response'], 'the stray response went to the session, which dropped it');
  await finish(mock, connected);
});

test('http client - 404 for our session id: initialize is replayed, the message retried once, the renewal reported', async () => {
  const mock = await startMockServer({ answer: 'sse', tools: { add: sumTool } });
  const connected = await connect(mock);
  const initialize = mock.posts('initialize')[0];
  await until(() => mock.posts('notifications/initialized').length === 1, 'the handshake to end');
  mock.expireSessions();
  const results = await Promise.all([connected.session.callTool('add', { a: 2, b: 3 }), connected.session.callTool('add', { a: 1, b: 1 })]);
  assert.deepEqual(results.map(textOf), ['5', '2'], 'both calls were retried under the new session');
  assert.equal(connected.transport.sessionId, 'session-2');
  assert.deepEqual(connected.events.filter((event) => event.type.startsWith('session')), [{ type: 'session-renewed', previousSessionId: 'session-1', sessionId: 'session-2' }], 'one renewal, shared');
  const initializes = mock.posts('initialize');
  assert.equal(initializes.length, 2);
  assert.deepEqual(initializes[1]?.body, initialize?.body, 'the same initialize request, replayed');
  assert.equal(initializes[1]?.headers['mcp-session-id'], undefined, 'without the expired id');
  assert.equal(mock.posts('notifications/initialized').length, 2);
  const retried = mock.posts('tools/call').filter((post) => post.headers['mcp-session-id'] === 'session-2');
  assert.equal(retried.length, 2);
  assert.equal(connected.session.session.state, 'operating');
  await finish(mock, connected);
});

test('http client - when re-initialization fails, the message fails clearly; renewSession: false fails at once', async () => {
  let refuse = false;
  const mock = await startMockServer({
    tools: { add: sumTool },
    intercept: (request, response) => refuse && bodyOf(request.body)?.['method'] === 'initialize' && (response.writeHead(503).end('maintenance'), true),
  });
  const connected = await connect(mock);
  mock.expireSessions();
  refuse = true;
  await assert.rejects(connected.session.callTool('add', { a: 1, b: 1 }), (error: unknown) =>
    isLocalError(error, 'TransportFailed') && /session session-1 expired \(HTTP 404\) and could not be renewed: initialize was answered HTTP 503 Service Unavailable: maintenance/.test(error.message));
  assert.equal(connected.events.find((event) => event.type === 'session-renewal-failed')?.type, 'session-renewal-failed');
  assert.equal(connected.transport.sessionId, 'session-1');
  refuse = false;
  assert.equal(textOf(await connected.session.callTool('add', { a: 1, b: 1 })), '2', 'the next 404 renews again');
  await connected.session.close();

  const second = await connect(mock, { transport: { renewSession: false } });
  mock.expireSessions();
  await assert.rejects(second.session.callTool('add', { a: 1, b: 1 }), (error: unknown) => isLocalError(error, 'TransportFailed') && /HTTP 404/.test(error.message));
  await finish(mock, second);
});

test('http client - a refused connection fails connect with a TransportFailed LocalError', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
  const transport = createStreamableHttpClientTransport(`http://127.0.0.1:${port}/mcp`, { mode: 'streamable' });
  const client = createClient({ era: 'legacy', name: 'c', version: '1' });
  await assert.rejects(client.connect(transport), (error: unknown) => isLocalError(error, 'TransportFailed') && /ECONNREFUSED/.test(error.message));
});

test('http client - an invalid Mcp-Session-Id fails the handshake', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => {
      const body = bodyOf(request.body);
      if (body?.['method'] !== 'initialize') return false;
      const result = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } };
      response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'bad id' }).end(JSON.stringify({ jsonrpc: '2.0', id: body['id'], result }));
      return true;
    },
  });
  await assert.rejects(connect(mock), (error: unknown) => isLocalError(error, 'ProtocolViolation') && /Mcp-Session-Id/.test(error.message));
  await until(() => true, 'nothing');
  await finish(mock);
});
