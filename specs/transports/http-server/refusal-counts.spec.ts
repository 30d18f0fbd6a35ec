/**
 * Every refusal the Streamable HTTP endpoint makes before a session takes the request is counted by its session
 * host (`metrics().refused`, a `refused` event with the reason's kind and the status answered), wherever it
 * happens: the Host and Origin checks, CORS, authentication, paths and methods, body shape and size, headers,
 * session ids, resumption ids, the one GET stream, the modern era's own checks, the 2024-11-05 endpoints, the
 * host being full and the endpoint shutting down. A session the host refuses in `accept` is counted once. Answers
 * are not refusals: a request a session answered (an error included) counts nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LocalErrorCode } from '../../../core/errors.ts';
import { createServer } from '../../../server/create-server.ts';
import { type HostEvent, type SessionHost, createSessionHost } from '../../../server/session-host.ts';
import { type ListeningServer, type StreamableHttpServer, type StreamableHttpServerOptions, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { eventually } from '../../support/harness.ts';
import { ACCEPT_BOTH, RawMcp, type Reply, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { ModernHttp } from './modern/modern-http.ts';

type Refused = Extract<HostEvent, { type: 'refused' }>;

interface Endpoint {
  readonly host: SessionHost;
  readonly http: StreamableHttpServer;
  readonly listening: ListeningServer;
  readonly refusals: Refused[];
}

const endpoints: Endpoint[] = [];
const releases: Array<() => void> = [];

async function endpoint(options: Partial<StreamableHttpServerOptions> = {}, maxSessions = 100): Promise<Endpoint> {
  const server = createServer({ name: 'refusals', version: '1.0.0' });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `echo: ${String(args['text'])}`);
  // Runs until released (a request in flight keeps a shutting-down endpoint draining).
  server.tool({ name: 'wait' }, () => new Promise<string>((resolve) => releases.push(() => resolve('released'))));
  const host = createSessionHost(server, { maxSessions });
  const refusals: Refused[] = [];
  host.events$.subscribe((event) => {
    if (event.type === 'refused') refusals.push(event);
  });
  const http = createStreamableHttpServer({ server: host, ...options });
  const listening = await http.listen(0);
  const made = { host, http, listening, refusals };
  endpoints.push(made);
  return made;
}

after(async () => {
  for (const { listening, http, host } of endpoints) {
    await listening.close();
    await http.close();
    await host.close({ drainMs: 0 });
  }
});

/** Runs `provoke`, then checks that it was answered `status` and counted once, as a refusal of kind `kind`. */
async function assertRefused(at: Endpoint, status: number, kind: LocalErrorCode, provoke: () => Promise<Reply>): Promise<void> {
  const before = at.host.metrics().refused;
  const seen = at.refusals.length;
  const reply = await provoke();
  if (reply.kind === 'sse') reply.close();
  assert.equal(reply.status, status, `answered ${status}`);
  assert.equal(at.host.metrics().refused, before + 1, 'counted once');
  const event = at.refusals[seen];
  assert.equal(at.refusals.length, seen + 1, 'one refused event');
  assert.equal(event?.status, status);
  assert.equal(event?.reason.code, kind);
}

async function assertNotRefused(at: Endpoint, provoke: () => Promise<unknown>): Promise<void> {
  const before = at.host.metrics().refused;
  await provoke();
  assert.equal(at.host.metrics().refused, before, 'an answer is not a refusal');
}

const json = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
const ping = (id = 1): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('http server: the session host counts every refusal', () => {
  let main: Endpoint;
  let url: string;
  let mcp: RawMcp;

  before(async () => {
    main = await endpoint({
      maxBodyBytes: 1024,
      legacySse: true,
      cors: { origins: ['https://app.example.com'] },
      authenticate: (request) => {
        if (request.header('authorization') === 'Bearer bad') throw new Error('a token nobody issued');
        return undefined;
      },
    });
    url = main.listening.url;
    mcp = new RawMcp(url);
    await mcp.initialize();
  });

  test('the Host and Origin checks, CORS, authentication', async () => {
    await assertRefused(main, 403, 'Unauthorized', () => rawRequest(url, { method: 'POST', headers: { ...json, host: 'evil.example:80' }, body: ping() }));
    await assertRefused(main, 403, 'Unauthorized', () => rawRequest(url, { method: 'POST', headers: { ...json, origin: 'https://evil.example' }, body: ping() }));
    await assertRefused(main, 403, 'Unauthorized', () =>
      rawRequest(url, { method: 'OPTIONS', headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST' } }),
    );
    await assertRefused(main, 401, 'Unauthorized', () => rawRequest(url, { method: 'POST', headers: { ...json, authorization: 'Bearer bad' }, body: ping() }));
  });

  test('paths and methods', async () => {
    await assertRefused(main, 404, 'ProtocolViolation', () => rawRequest(url.replace('/mcp', '/nowhere')));
    await assertRefused(main, 405, 'ProtocolViolation', () => rawRequest(url, { method: 'PUT', headers: json, body: ping() }));
    await assertRefused(main, 405, 'ProtocolViolation', () => rawRequest(url.replace('/mcp', '/healthz'), { method: 'POST' }));
    await assertRefused(main, 405, 'ProtocolViolation', () => rawRequest(url.replace('/mcp', '/sse'), { method: 'POST', headers: json, body: ping() }));
  });

  test('bodies and headers of a POST', async () => {
    await assertRefused(main, 415, 'ProtocolViolation', () => mcp.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'content-type': 'text/plain' }));
    await assertRefused(main, 400, 'DecodeFailed', () => rawRequest(url, { method: 'POST', headers: mcp.sessionHeaders(json), body: '{not json' }));
    await assertRefused(main, 413, 'FrameTooLarge', () => rawRequest(url, { method: 'POST', headers: mcp.sessionHeaders(json), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2048) } }) }));
    await assertRefused(main, 406, 'ProtocolViolation', () => mcp.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'text/plain' }));
    await assertRefused(main, 400, 'ProtocolViolation', () => mcp.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' }));
  });

  test('session ids, resumption ids and the one GET stream', async () => {
    await assertRefused(main, 400, 'ProtocolViolation', () => rawRequest(url, { method: 'POST', headers: json, body: ping() }));
    await assertRefused(main, 404, 'ProtocolViolation', () => rawRequest(url, { method: 'POST', headers: { ...json, 'mcp-session-id': 'no-such-session' }, body: ping() }));
    await assertRefused(main, 404, 'ProtocolViolation', () => rawRequest(url, { method: 'DELETE', headers: { 'mcp-session-id': 'no-such-session' } }));
    await assertRefused(main, 406, 'ProtocolViolation', () => mcp.get({ accept: 'application/json' }));
    await assertRefused(main, 400, 'ProtocolViolation', () => mcp.get({ 'last-event-id': 'p99.99' }));
    const standalone = asStream(await mcp.get());
    await assertRefused(main, 409, 'ProtocolViolation', () => mcp.get());
    standalone.close();
  });

  test('the 2024-11-05 messages endpoint', async () => {
    const messages = url.replace('/mcp', '/messages');
    await assertRefused(main, 400, 'ProtocolViolation', () => rawRequest(messages, { method: 'POST', headers: json, body: ping() }));
    await assertRefused(main, 404, 'ProtocolViolation', () => rawRequest(`${messages}?sessionId=nobody`, { method: 'POST', headers: json, body: ping() }));
  });

  test('the modern era\'s own checks', async () => {
    const modern = new ModernHttp(url);
    await assertRefused(main, 400, 'ProtocolViolation', () => modern.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'MCP-Protocol-Version': '2026-07-28' }));
    await assertRefused(main, 400, 'ProtocolViolation', () => modern.post('tools/call', { name: 'echo', arguments: {} }, { headers: { 'Mcp-Name': 'other' } }));
    await assertRefused(main, 404, 'ProtocolViolation', () => modern.post('initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '0' } }));
  });

  test('answers are not refusals: a result, a notification, an error a session answered', async () => {
    await assertNotRefused(main, () => mcp.call('ping'));
    await assertNotRefused(main, () => mcp.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }));
    await assertNotRefused(main, () => mcp.call('tools/call', { name: 'no-such-tool', arguments: {} }));
    await assertNotRefused(main, () => new ModernHttp(url).call('tools/call', { name: 'no-such-tool', arguments: {} }));
  });
});

describe('http server: session limits and shutting down are counted once', () => {
  test('a full host: the initialize the endpoint refuses before accept is counted, once', async () => {
    const full = await endpoint({ legacySse: true }, 1);
    const first = new RawMcp(full.listening.url);
    await first.initialize();
    await assertRefused(full, 503, 'SessionLimit', () =>
      rawRequest(full.listening.url, { method: 'POST', headers: json, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } } }) }),
    );
    await assertRefused(full, 503, 'SessionLimit', () => rawRequest(full.listening.url.replace('/mcp', '/sse'), { headers: { accept: 'text/event-stream' } }));
    // A modern POST needs a pooled connection, which is a session of the host too.
    await assertRefused(full, 503, 'SessionLimit', () => new ModernHttp(full.listening.url).post('tools/call', { name: 'echo', arguments: { text: 'x' } }));
  });

  test('a stateless endpoint: GET, and a POST the full host refuses', async () => {
    const stateless = await endpoint({ stateless: true }, 1);
    await assertRefused(stateless, 405, 'ProtocolViolation', () => rawRequest(stateless.listening.url, { headers: { accept: 'text/event-stream' } }));
    const call = (name: string): string => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
    const running = asStream(await rawRequest(stateless.listening.url, { method: 'POST', headers: json, body: call('wait') }));
    await eventually(() => releases.length === 1, 5_000, 'the wait tool to run');
    await assertRefused(stateless, 503, 'SessionLimit', () => rawRequest(stateless.listening.url, { method: 'POST', headers: json, body: call('echo') }));
    for (const release of releases.splice(0)) release();
    await running.done;
  });

  test('an endpoint shutting down refuses new requests with 503, counted', async () => {
    const closing = await endpoint();
    const session = new RawMcp(closing.listening.url);
    await session.initialize();
    const running = asStream(await session.post({ jsonrpc: '2.0', id: session.id(), method: 'tools/call', params: { name: 'wait', arguments: {} } }));
    await running.next();
    const closed = closing.http.close({ drainMs: 5_000 });
    await assertRefused(closing, 503, 'SessionLimit', () => rawRequest(closing.listening.url, { method: 'POST', headers: json, body: ping() }));
    for (const release of releases.splice(0)) release();
    await closed;
  });
});
