/**
 * The HTTP client transport's modern (2026-07-28) requests against the project's own server
 * (`createServer` + `createStreamableHttpServer`), served behind a recording loopback server so the specs also
 * see each POST's headers and whether the client left it: mirrored tool parameters accepted, progress over SSE,
 * the server's 400/404 errors delivered as its own, cancellation reaching the tool's abort signal, a listen stream
 * living through quiet periods, and a modern probe refused by a legacy-only server followed by the legacy
 * session on the same transport.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isLocalError, isWireError } from '../../../../core/errors.ts';
import type { JsonObject } from '../../../../core/jsonrpc.ts';
import { connectSession } from '../../../../client/connect-session.ts';
import { type McpServer, createServer } from '../../../../server/create-server.ts';
import { type StreamableHttpServerOptions, createStreamableHttpServer } from '../../../../transports/http/index.ts';
import { createStreamableHttpClientTransport } from '../../../../transports/http/client/index.ts';
import { MODERN, type RecordingServer, cancelled, delay, drive, modernRequest, startRecordingServer, until } from './harness.ts';

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

/** The project's server behind a recording front (the recorded body is handed on already parsed). */
async function serveProject(server: McpServer, options: Omit<StreamableHttpServerOptions, 'server'> = {}): Promise<RecordingServer> {
  const http = createStreamableHttpServer({ server, ...options });
  const front = await startRecordingServer((request, res, req) => http.handleNode(req, res, request.body));
  closers.push(() => server.close(), () => http.close(), () => front.close());
  return front;
}

const textOf = (result: JsonObject | undefined): string => ((result?.['content'] as Array<{ text?: string }> | undefined)?.[0]?.text ?? '');

function weatherServer(eras: 'both' | 'legacy' = 'both'): { server: McpServer; slow: { started: boolean; aborted: boolean } } {
  const server = createServer({ name: 'modern-http-spec', version: '1.0.0', eras });
  const slow = { started: false, aborted: false };
  server.tool(
    { name: 'weather', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } },
    (args) => ({ content: [{ type: 'text', text: `sunny in ${String((args as JsonObject)['region'])}` }] }),
  );
  server.tool({ name: 'count' }, async (_args, context) => {
    context.progress({ progress: 1, total: 2 });
    await delay(10);
    context.progress({ progress: 2, total: 2 });
    return { content: [{ type: 'text', text: 'counted' }] };
  });
  server.tool({ name: 'slow' }, (_args, context) => {
    slow.started = true;
    return new Promise((resolve) => {
      context.signal.addEventListener('abort', () => {
        slow.aborted = true;
        resolve({ content: [{ type: 'text', text: 'too late' }] });
      }, { once: true });
    });
  });
  return { server, slow };
}

test('http client, modern, project server - discover, a mirrored tool call, progress over SSE, and the server\'s 400/404 errors', async () => {
  const { server } = weatherServer();
  const front = await serveProject(server);
  const driven = drive(front.url);
  driven.send({ payload: modernRequest(1, 'server/discover') });
  driven.send({ payload: modernRequest(2, 'tools/call', { name: 'weather', arguments: { region: 'eu-west' } }), mirror: { 'Mcp-Param-Region': 'eu-west' } });
  driven.send({ payload: modernRequest(3, 'tools/call', { name: 'weather', arguments: { region: 'eu-west' } }) });
  driven.send({ payload: modernRequest(4, 'tools/call', { name: 'count' }, { progressToken: 'p' }) });
  driven.send({ payload: modernRequest(5, 'server/discover', {}, { 'io.modelcontextprotocol/protocolVersion': '2030-01-01' }) });
  driven.send({ payload: modernRequest(6, 'nope/nope') });
  await until(() => [1, 2, 3, 4, 5, 6].every((id) => driven.responseTo(id) !== undefined), 'every answer');

  assert.ok((driven.responseTo(1)?.result?.['supportedVersions'] as string[]).includes(MODERN));
  assert.equal(textOf(driven.responseTo(2)?.result), 'sunny in eu-west', 'the mirrored parameter satisfied the server');
  assert.equal(driven.responseTo(3)?.error?.code, -32020, 'without the mirror: the server\'s header mismatch error');
  assert.equal(textOf(driven.responseTo(4)?.result), 'counted');
  const progress = driven.messages().filter((message) => (message as { method?: string }).method === 'notifications/progress');
  assert.equal(progress.length, 2, 'the progress of the SSE answer was delivered');
  assert.equal(driven.responseTo(5)?.error?.code, -32022);
  assert.equal(driven.responseTo(6)?.error?.code, -32601);
  assert.deepEqual(driven.frames.filter((frame) => frame.type !== 'message'), []);
  assert.ok(front.requests.every((request) => request.headers['mcp-session-id'] === undefined));
  await driven.transport.close();
});

test('http client, modern, project server - through a session: errors are WireErrors, and aborting a call closes its POST so the tool sees its signal', async () => {
  const { server, slow } = weatherServer();
  const front = await serveProject(server);
  const transport = createStreamableHttpClientTransport(front.url);
  const session = await connectSession(transport, { era: 'modern', clientInfo: { name: 'spec', version: '1' }, capabilities: {}, initializeTimeoutMs: 2000 });
  closers.push(() => session.close());

  const missing: unknown = await session.request('nope/nope', {}).catch((error: unknown) => error);
  assert.ok(isWireError(missing) && missing.code === -32601, `the server's -32601 as a WireError, got ${String(missing)}`);

  const controller = new AbortController();
  const call = session.request('tools/call', { name: 'slow', arguments: {} }, { signal: controller.signal }).catch((error: unknown) => error);
  await until(() => slow.started, 'the tool to start');
  controller.abort();
  const outcome = await call;
  assert.ok(isLocalError(outcome), `the session failed the call locally, got ${String(outcome)}`);
  await until(() => slow.aborted, 'the tool to see its abort signal');
  const [post] = front.of('tools/call');
  await until(() => post?.over === true, 'the POST to end');
  assert.equal(post?.clientLeft, true, 'the client closed the POST');
  assert.deepEqual(front.of('notifications/cancelled'), [], 'no cancel notification over HTTP');
  assert.equal(session.state, 'operating');
  await session.close();
});

test('http client, modern, project server - a listen stream stays open through quiet periods and keep-alives, delivering changes until cancelled', async () => {
  const { server } = weatherServer();
  const front = await serveProject(server, { sse: { keepAliveMs: 15 } });
  const driven = drive(front.url);
  driven.send({ payload: modernRequest('listen', 'subscriptions/listen', { notifications: { toolsListChanged: true } }) });
  const changes = (): number => driven.messages().filter((message) => (message as { method?: string }).method === 'notifications/tools/list_changed').length;
  await until(() => driven.messages().length === 1, 'the acknowledgement');
  assert.equal((driven.messages()[0] as { method?: string }).method, 'notifications/subscriptions/acknowledged');
  await delay(150); // ten keep-alive periods without a change
  server.tool({ name: 'later-1' }, () => ({ content: [] }));
  await until(() => changes() === 1, 'the first change');
  await delay(100);
  server.tool({ name: 'later-2' }, () => ({ content: [] }));
  await until(() => changes() === 2, 'the second change');
  assert.deepEqual(driven.frames.filter((frame) => frame.type !== 'message'), [], 'keep-alive comments are no messages, and nothing failed');
  const [listen] = front.of('subscriptions/listen');
  assert.equal(listen?.over, false, 'still open');

  driven.send({ payload: cancelled('listen') });
  await until(() => listen?.over === true, 'the listen POST to close');
  assert.equal(listen?.clientLeft, true);
  await delay(20);
  assert.equal(driven.responseTo('listen'), undefined);
  assert.deepEqual(driven.frames.filter((frame) => frame.type !== 'message'), []);
  assert.equal(front.requests.length, 1, 'one POST, nothing else');
  await driven.transport.close();
});

test('http client, modern, project server - a legacy-only server refuses the modern probe; the legacy session follows on the same transport', async () => {
  const { server } = weatherServer('legacy');
  const front = await serveProject(server, { responseMode: 'json' });
  const transport = createStreamableHttpClientTransport(front.url);
  const session = await connectSession(transport, { era: 'auto', clientInfo: { name: 'spec', version: '1' }, capabilities: {}, initializeTimeoutMs: 2000, probeTimeoutMs: 2000 });
  closers.push(() => session.close());
  assert.equal(session.state, 'operating');
  const result = await session.request('tools/call', { name: 'weather', arguments: { region: 'north' } });
  assert.equal(textOf(result), 'sunny in north');
  assert.equal(transport.mode, 'streamable');
  await session.close();

  const [probe, ...legacy] = front.requests.filter((request) => request.method !== 'GET' && request.method !== 'DELETE');
  assert.equal(probe?.method, 'server/discover');
  assert.equal(probe?.headers['mcp-session-id'], undefined);
  assert.equal(probe?.headers['mcp-protocol-version'], MODERN);
  assert.deepEqual(legacy.map((request) => request.method), ['initialize', 'notifications/initialized', 'tools/call']);
  assert.equal(legacy[0]?.headers['mcp-session-id'], undefined);
  const sessionId = transport.sessionId;
  assert.ok(sessionId !== undefined);
  assert.ok(legacy.slice(1).every((request) => request.headers['mcp-session-id'] === sessionId), 'the session requests carry Mcp-Session-Id');
  assert.equal(front.of('DELETE').length, 1, 'the legacy session is ended on close');
});
