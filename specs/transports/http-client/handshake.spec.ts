/**
 * The Streamable HTTP client over real sockets: the handshake and tool calls over JSON and SSE answers, the
 * headers every POST carries, server requests on a POST stream, the standalone GET stream (open or refused),
 * tolerated bodies, and the DELETE on close.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { OutboundFrame } from '../../../core/transport.ts';
import { type Json, closeAllMockServers, startMockServer } from '../../support/http-mock-server.ts';
import { connect, finish, methodsPosted, sumTool, textOf, until } from './helpers.ts';

after(closeAllMockServers);

for (const answer of ['json', 'sse'] as const) {
  test(`http client - handshake and tools/call with ${answer} answers`, async () => {
    const mock = await startMockServer({ answer, tools: { add: sumTool } });
    const connected = await connect(mock);
    const { session, transport } = connected;
    assert.equal(session.session.state, 'operating');
    assert.equal(transport.protocolVersion, '2025-11-25', 'the negotiated version is read from the initialize result');
    assert.equal(transport.sessionId, 'session-1');
    assert.equal(transport.mode, 'streamable');
    assert.deepEqual((await session.listTools()).map((tool) => tool.name), ['add']);
    assert.equal(textOf(await session.callTool('add', { a: 5, b: 3 })), '8');
    assert.deepEqual(methodsPosted(mock), ['initialize', 'notifications/initialized', 'tools/call', 'tools/list']);
    await finish(mock, connected);
  });
}

test('http client - every POST: content type, accept, custom headers; after initialize the session id and protocol version', async () => {
  const mock = await startMockServer({ answer: 'sse', tools: { add: sumTool } });
  const connected = await connect(mock, { transport: { headers: () => ({ Authorization: 'Bearer token-1' }) }, protocolVersion: '2025-06-18' });
  await connected.session.callTool('add', { a: 1, b: 2 });
  const [initialize, ...rest] = mock.posts();
  assert.ok(initialize !== undefined && rest.length === 2);
  for (const post of mock.posts()) {
    assert.equal(post.headers['content-type'], 'application/json');
    assert.equal(post.headers['accept'], 'application/json, text/event-stream');
    assert.equal(post.headers['authorization'], 'Bearer token-1');
  }
  assert.equal(initialize.headers['mcp-session-id'], undefined, 'initialize carries no session id');
  assert.equal(initialize.headers['mcp-protocol-version'], undefined, 'nor a protocol version');
  for (const post of rest) {
    assert.equal(post.headers['mcp-session-id'], 'session-1');
    assert.equal(post.headers['mcp-protocol-version'], '2025-06-18');
  }
  await finish(mock, connected);
});

test('http client - a server that negotiates 2025-03-26 (as the sse-retry conformance mock does): that version in the header', async () => {
  const mock = await startMockServer({ protocolVersion: '2025-03-26', tools: { add: sumTool } });
  const connected = await connect(mock);
  assert.equal(connected.transport.protocolVersion, '2025-03-26');
  assert.equal(connected.session.session.revision, '2025-03-26');
  await connected.session.callTool('add', { a: 1, b: 2 });
  assert.equal(mock.posts('tools/call')[0]?.headers['mcp-protocol-version'], '2025-03-26');
  await finish(mock, connected);
});

test('http client - a server without session ids: no session header, no DELETE on close', async () => {
  const mock = await startMockServer({ sessions: false, tools: { add: sumTool } });
  const connected = await connect(mock);
  assert.equal(connected.transport.sessionId, undefined);
  assert.equal(textOf(await connected.session.callTool('add', { a: 2, b: 2 })), '4');
  assert.ok(mock.posts().every((post) => post.headers['mcp-session-id'] === undefined));
  assert.equal(mock.posts('tools/call')[0]?.headers['mcp-protocol-version'], '2025-11-25');
  await connected.session.close();
  assert.equal(mock.received.filter((request) => request.method === 'DELETE').length, 0);
  await finish(mock);
});

test('http client - close sends DELETE with the session id, completes incoming$ and reports closed', async () => {
  const mock = await startMockServer({ tools: { add: sumTool } });
  const connected = await connect(mock);
  const statuses: string[] = [];
  connected.transport.status$.subscribe((status) => statuses.push(status.type));
  await connected.session.close();
  const deletes = mock.received.filter((request) => request.method === 'DELETE');
  assert.equal(deletes.length, 1);
  assert.equal(deletes[0]?.headers['mcp-session-id'], 'session-1');
  assert.equal(deletes[0]?.headers['mcp-protocol-version'], '2025-11-25');
  assert.deepEqual(statuses, ['open', 'closed']);
  await assert.rejects(Promise.resolve(connected.transport.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } })), { name: 'LocalError', code: 'ConnectionClosed' });
  await connected.transport.close(); // idempotent
  await finish(mock);
});

test('http client - a 405 answer to DELETE is fine', async () => {
  const mock = await startMockServer({
    intercept: (request, response) => request.method === 'DELETE' && (response.writeHead(405).end(), true),
  });
  const connected = await connect(mock);
  await connected.session.close();
  assert.equal(mock.received.filter((request) => request.method === 'DELETE').length, 1);
  await finish(mock);
});

test('http client - a 200 with an id-less result answering a notification is tolerated (conformance mock)', async () => {
  const mock = await startMockServer({ notificationBody: true, tools: { add: sumTool } });
  const connected = await connect(mock);
  const diagnostics: string[] = [];
  connected.session.session.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic.type));
  assert.equal(textOf(await connected.session.callTool('add', { a: 1, b: 1 })), '2');
  await until(() => connected.events.some((event) => event.type === 'ignored'), 'the ignored body');
  assert.deepEqual(diagnostics, [], 'the session never saw it');
  assert.deepEqual(methodsPosted(mock), ['initialize', 'notifications/initialized', 'tools/call'], 'nothing was sent back about it');
  await finish(mock, connected);
});

for (const status of [400, 404, 405]) {
  test(`http client - a ${status} refusal of the standalone GET is not fatal and not retried`, async () => {
    const mock = await startMockServer({ getStream: status, tools: { add: sumTool } });
    const connected = await connect(mock);
    await until(() => connected.events.some((event) => event.type === 'get-stream-refused'), 'the refusal');
    assert.deepEqual(connected.events, [{ type: 'get-stream-refused', status }]);
    assert.equal(textOf(await connected.session.callTool('add', { a: 4, b: 4 })), '8');
    const gets = mock.received.filter((request) => request.method === 'GET');
    assert.equal(gets.length, 1);
    assert.equal(gets[0]?.headers['accept'], 'text/event-stream');
    assert.equal(gets[0]?.headers['mcp-session-id'], 'session-1');
    await finish(mock, connected);
  });
}

test('http client - openGetStream: false opens no GET stream', async () => {
  const mock = await startMockServer({ getStream: 'open' });
  const connected = await connect(mock, { transport: { openGetStream: false } });
  await connected.session.ping();
  assert.equal(mock.received.filter((request) => request.method === 'GET').length, 0);
  await finish(mock, connected);
});

test('http client - the standalone GET stream opens after the handshake and is closed with the transport', async () => {
  const mock = await startMockServer({ getStream: 'open' });
  const connected = await connect(mock);
  await until(() => connected.events.some((event) => event.type === 'get-stream-opened'), 'the GET stream');
  await connected.session.close();
  assert.equal(mock.received.filter((request) => request.method === 'GET').length, 1, 'no reconnection after close');
  await finish(mock);
});

test('http client - a server request on the POST stream (elicitation) is answered by a POST', async () => {
  const mock = await startMockServer({
    answer: 'sse',
    tools: {
      ask: async (_args, ctx) => {
        const answer = await ctx.request('elicitation/create', {
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
        });
        const content = (answer['result'] as Json)['content'] as Json;
        return { content: [{ type: 'text', text: `Hello ${String(content['name'])}` }] };
      },
    },
  });
  const connected = await connect(mock, { client: { elicitation: { form: () => ({ action: 'accept', content: {} }) } } });
  assert.equal(textOf(await connected.session.callTool('ask')), 'Hello Ada');
  const answer = mock.posts().find((post) => (post.body as Json)['id'] === 's1' && !('method' in (post.body as Json)));
  assert.deepEqual((answer?.body as Json)['result'], { action: 'accept', content: { name: 'Ada' } });
  assert.equal(answer?.headers['mcp-session-id'], 'session-1');
  await finish(mock, connected);
});

test('http client - past maxPendingPosts unanswered POSTs, send reports backpressure until they drain', async () => {
  const mock = await startMockServer({ tools: { add: sumTool } });
  const connected = await connect(mock, { transport: { maxPendingPosts: 2 } });
  await connected.session.ping();
  await until(() => (connected.transport as unknown as { pendingPosts: number }).pendingPosts === 0, 'every POST to be answered');
  const statuses: string[] = [];
  connected.transport.status$.subscribe((status) => statuses.push(status.type));
  const ping = (id: number): OutboundFrame => ({ payload: { jsonrpc: '2.0', id: 1000 + id, method: 'ping' } });
  assert.equal(connected.transport.send(ping(1)), undefined, 'taken at once');
  const waited = connected.transport.send(ping(2));
  assert.ok(waited instanceof Promise, 'the second one waits');
  await waited;
  assert.deepEqual(statuses.slice(1), ['backpressure', 'drained'], 'after the current status');
  await finish(mock, connected);
});
