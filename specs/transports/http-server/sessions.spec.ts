/**
 * Streamable HTTP sessions (FEATURES H12, H13, H14): ids issued on initialize and required afterwards, 404 for
 * unknown, ended, expired or someone else's sessions, DELETE, the MCP-Protocol-Version header, the session
 * limit and idle expiry. Real sockets on 127.0.0.1; every server message is checked by the schema oracle.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../support/harness.ts';
import { ACCEPT_BOTH, RawMcp, asBody, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { TestClock } from '../../support/test-clock.ts';
import { demoServer, observingAcceptor, resultText, serve } from './fixtures.ts';

const initialize = (id = 1, protocolVersion = '2025-11-25'): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

function errorOf(json: unknown): { code: number; message: string } {
  const body = json as { jsonrpc?: string; id?: unknown; error?: { code: number; message: string } };
  assert.equal(body.jsonrpc, '2.0');
  assert.equal('id' in body, false, 'HTTP-level refusals carry an id-less JSON-RPC error');
  assert.ok(body.error !== undefined);
  return body.error;
}

describe('http server: sessions', () => {
  test('initialize answers with a fresh Mcp-Session-Id of visible ASCII; later requests use it', async () => {
    await using served = await serve();
    const first = new RawMcp(served.url);
    const second = new RawMcp(served.url);
    await first.initialize();
    await second.initialize();
    assert.match(first.sessionId ?? '', /^[\x21-\x7e]{32,}$/);
    assert.notEqual(first.sessionId, second.sessionId);
    assert.equal(served.http.sessionCount, 2);
    const { response } = await first.call('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    assert.equal(resultText(response), 'echo: hi');
    first.assertClean();
    second.assertClean();
  });

  test('a request without Mcp-Session-Id gets 400, an unknown id 404, both with an id-less error body', async () => {
    await using served = await serve();
    const mcp = new RawMcp(served.url);
    await mcp.initialize();
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
    const missing = asBody(await rawRequest(served.url, { method: 'POST', headers, body: JSON.stringify(ping) }));
    assert.equal(missing.status, 400);
    assert.match(errorOf(missing.json).message, /Mcp-Session-Id/);
    const unknown = asBody(await rawRequest(served.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': 'nope' }, body: JSON.stringify(ping) }));
    assert.equal(unknown.status, 404);
    assert.equal(errorOf(unknown.json).code, -32600);
    for (const method of ['GET', 'DELETE']) {
      assert.equal((await rawRequest(served.url, { method, headers: { accept: 'text/event-stream' } })).status, 400, `${method} without a session id`);
      assert.equal((await rawRequest(served.url, { method, headers: { accept: 'text/event-stream', 'mcp-session-id': 'nope' } })).status, 404);
    }
    mcp.assertClean();
  });

  test('DELETE ends the session: 200, its streams end, and its id answers 404 from then on', async () => {
    await using served = await serve();
    const mcp = new RawMcp(served.url);
    await mcp.initialize();
    const stream = asStream(await mcp.get());
    assert.equal(stream.status, 200);
    const sessions = [...served.server.sessions];
    assert.equal(sessions.length, 1);
    const deleted = await mcp.delete();
    assert.equal(deleted.status, 200);
    assert.equal(await stream.done, 'ended');
    await eventually(() => sessions[0]?.state === 'closed', 1000, 'the session closed');
    assert.equal(served.http.sessionCount, 0);
    assert.equal((await mcp.post({ jsonrpc: '2.0', id: 3, method: 'ping' })).status, 404);
    assert.equal((await mcp.delete()).status, 404);
    mcp.assertClean();
  });

  test('MCP-Protocol-Version: absent is taken as 2025-03-26, any supported revision is accepted on any session, others get 400', async () => {
    await using served = await serve();
    const mcp = new RawMcp(served.url);
    await mcp.initialize('2025-11-25');
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const { reply, response } = await mcp.call('ping', undefined, { 'mcp-protocol-version': version });
      assert.equal(reply.status, 200, version);
      assert.deepEqual(response['result'], {});
    }
    const absent = await rawRequest(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': mcp.sessionId ?? '' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 50, method: 'ping' }),
    });
    assert.equal(absent.status, 200);
    for (const version of ['2026-07-28', '1999-01-01', 'latest']) {
      const refused = asBody(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'ping' }, { 'mcp-protocol-version': version }));
      assert.equal(refused.status, 400, version);
      assert.match(errorOf(refused.json).message, /MCP-Protocol-Version/);
    }
    assert.equal((await mcp.get({ 'mcp-protocol-version': 'bogus' })).status, 400);
    mcp.assertClean();
  });

  test('maxSessions: one initialize too many gets a clear 503 with a JSON-RPC error body; a freed slot can be reused', async () => {
    await using served = await serve({ maxSessions: 2 });
    const [a, b, c] = [new RawMcp(served.url), new RawMcp(served.url), new RawMcp(served.url)];
    await a.initialize();
    await b.initialize();
    const refused = asBody(await c.post(initialize()));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '30');
    const error = errorOf(refused.json);
    assert.equal(error.code, -32603);
    assert.match(error.message, /maximum of 2 sessions/);
    assert.equal((await a.delete()).status, 200);
    await c.initialize();
    assert.equal(served.http.sessionCount, 2);
    for (const client of [a, b, c]) client.assertClean();
  });

  test('idle sessions expire after idleTimeoutMs without requests; an open stream keeps a session alive', async () => {
    const clock = new TestClock(Date.now());
    await using served = await serve({ idleTimeoutMs: 60_000, clock, sse: { keepAliveMs: 0 } });
    const idle = new RawMcp(served.url);
    const watched = new RawMcp(served.url);
    await idle.initialize();
    await watched.initialize();
    const stream = asStream(await watched.get());
    clock.advance(59_000);
    assert.equal((await idle.call('ping')).reply.status, 200, 'a request resets the idle clock');
    clock.advance(59_000);
    assert.equal(served.http.sessionCount, 2);
    clock.advance(2_000);
    assert.equal(served.http.sessionCount, 1, 'the idle session expired; the one with an open stream did not');
    assert.equal((await idle.post({ jsonrpc: '2.0', id: 9, method: 'ping' })).status, 404);
    assert.equal((await watched.call('ping')).reply.status, 200);
    stream.close();
    await stream.done;
    await eventually(() => clock.pending > 0, 1000, 'the idle timer rearmed once the stream closed');
    clock.advance(60_001);
    assert.equal(served.http.sessionCount, 0);
    idle.assertClean();
    watched.assertClean();
  });

  test('sessions belong to the principal that opened them: another principal gets 404, a throwing authenticate 401', async () => {
    await using served = await serve({
      authenticate: (request) => {
        const token = request.header('authorization');
        if (token === 'Bearer bad') throw new Error('rejected');
        return token?.replace(/^Bearer /, '');
      },
    });
    const alice = new RawMcp(served.url, { headers: { authorization: 'Bearer alice' } });
    await alice.initialize();
    const sessionId = alice.sessionId ?? '';
    const as = (authorization?: string): RawMcp => {
      const client = new RawMcp(served.url, authorization === undefined ? {} : { headers: { authorization } });
      client.sessionId = sessionId;
      client.revision = '2025-11-25';
      return client;
    };
    assert.equal((await as('Bearer mallory').post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status, 404);
    assert.equal((await as().post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status, 404, 'anonymous is a different principal');
    assert.equal((await as('Bearer mallory').delete()).status, 404);
    assert.equal((await as('Bearer bad').post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status, 401);
    assert.equal((await alice.call('ping')).reply.status, 200);
    alice.assertClean();
  });

  test('the principal reaches the session as the origin of every message frame', async () => {
    const demo = demoServer();
    const { acceptor, inbound: frames } = observingAcceptor(demo.server);
    await using served = await serve({ server: acceptor, authenticate: (request) => request.header('x-user') }, demo);
    const mcp = new RawMcp(served.url, { headers: { 'x-user': 'carol' } });
    await mcp.initialize();
    await mcp.call('ping');
    const messages = frames.filter((frame) => frame.type === 'message');
    assert.equal(messages.length, 3);
    for (const frame of messages) assert.deepEqual(frame.type === 'message' ? frame.origin : undefined, { principal: 'carol' });
    mcp.assertClean();
  });

  test('a failed initialize leaves no session behind', async () => {
    await using served = await serve();
    const bad = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } };
    const reply = await rawRequest(served.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH }, body: JSON.stringify(bad) });
    const sessionId = String(reply.headers['mcp-session-id']);
    const stream = asStream(reply);
    const response = JSON.parse((await stream.next()).data) as { error?: { code: number } };
    assert.equal(response.error?.code, -32602);
    await eventually(() => served.http.sessionCount === 0, 1000, 'the session was dropped');
    const retry = await rawRequest(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    assert.equal(retry.status, 404);
  });
});
