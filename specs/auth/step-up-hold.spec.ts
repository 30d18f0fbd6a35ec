/**
 * Step-up when the acceptor cannot check scopes beforehand (no `missingScopes`, as the gateway in front of NATS
 * servers): a lone legacy request's SSE answer waits for the request's first message. Its -32043 answer becomes
 * 403 with the `insufficient_scope` challenge; any other first message opens the stream as before; a request
 * that says nothing gets its stream after HOLD_MS (the endpoint's clock, a test clock here); a caller that leaves
 * while held is a caller that left. Endpoints without `authenticate`, and acceptors that can check, hold nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuthInfo } from '../../core/auth.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import type { SessionAcceptorPort } from '../../core/transport.ts';
import { createServer } from '../../server/create-server.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { HOLD_MS } from '../../transports/http/server/step-up-hold.ts';
import { ACCEPT_BOTH, RawMcp, asBody, asStream, rawRequest } from '../support/http-raw-client.ts';
import { TestClock } from '../support/test-clock.ts';

const grace: AuthInfo = { principal: 'grace', subject: 'grace', scopes: ['mcp:tools'], claims: { sub: 'grace' } };
const authenticate = (request: { header(name: string): string | undefined }): AuthInfo | undefined => (request.header('authorization') === 'Bearer grace' ? grace : undefined);
const protectedResource = { metadata: { resource: 'https://mcp.example.test/mcp', authorization_servers: ['https://as.example.test'] } };

/** A server whose scope rules only it knows: the acceptor in front of it has no `missingScopes`. */
function opaqueServer(): { acceptor: SessionAcceptorPort; release: () => void; close: () => Promise<void> } {
  let release = (): void => undefined;
  const server = createServer({ name: 'opaque', version: '1' });
  server.tool({ name: 'admin', requires: ['mcp:admin'] }, () => 'admin');
  server.tool({ name: 'public' }, () => 'public');
  server.tool({ name: 'quiet' }, () => new Promise<string>((resolve) => (release = () => resolve('finally'))));
  server.tool({ name: 'chatty' }, (_args, ctx) => {
    ctx.progress?.({ progress: 1, total: 2 });
    return 'chatted';
  });
  const acceptor: SessionAcceptorPort = { eras: 'legacy', accept: (transport, options) => server.accept(transport, options) };
  return { acceptor, release: () => release(), close: () => server.close() };
}

const stillHeld = (reply: Promise<unknown>): Promise<boolean> =>
  Promise.race([reply.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 150))]);

describe('step-up held until the first message', () => {
  test('the refusal is 403 with the challenge; other first messages open the stream; silence opens it after HOLD_MS', async () => {
    const clock = new TestClock(Date.now());
    const served = opaqueServer();
    const http = createStreamableHttpServer({ server: served.acceptor, authenticate, protectedResource, clock });
    const { url } = await http.listen();
    try {
      const client = new RawMcp(url, { headers: { authorization: 'Bearer grace' } });
      await client.initialize('2025-06-18');
      const id = client.id();
      const refused = asBody(await client.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'admin', arguments: {} } }));
      assert.equal(refused.status, 403);
      assert.match(String(refused.headers['www-authenticate']), /^Bearer resource_metadata="[^"]+", scope="mcp:admin", error="insufficient_scope"/);
      assert.equal(refused.headers['mcp-session-id'], client.sessionId);
      assert.deepEqual(refused.json, { jsonrpc: '2.0', id, error: { code: ErrorCode.InsufficientScope, message: 'Insufficient scope: tool "admin" needs the scope(s) mcp:admin', data: { requiredScopes: ['mcp:admin'] } } });

      const result = await client.call('tools/call', { name: 'public', arguments: {} });
      assert.equal(asStream(result.reply).status, 200, 'a result first: the stream, as before');
      const chatty = await client.call('tools/call', { name: 'chatty', arguments: {}, _meta: { progressToken: 'c' } });
      assert.ok(asStream(chatty.reply).events.some((event) => event.data.includes('notifications/progress')), 'progress first: the stream');

      const quiet = client.post({ jsonrpc: '2.0', id: client.id(), method: 'tools/call', params: { name: 'quiet', arguments: {} } });
      assert.equal(await stillHeld(quiet), true, 'nothing said yet: the 200 waits');
      clock.advance(HOLD_MS);
      const stream = asStream(await quiet);
      assert.equal(stream.status, 200, 'after HOLD_MS the stream opens');
      served.release();
      await stream.done;
      assert.ok(stream.events.some((event) => event.data.includes('finally')));
      client.assertClean();
    } finally {
      await http.close();
      await served.close();
    }
  });

  test('a caller that leaves while held is gone; the session serves the next request', async () => {
    const served = opaqueServer();
    const http = createStreamableHttpServer({ server: served.acceptor, authenticate, protectedResource });
    const { url } = await http.listen();
    try {
      const client = new RawMcp(url, { headers: { authorization: 'Bearer grace' } });
      await client.initialize('2025-06-18');
      const leaving = new AbortController();
      const body = JSON.stringify({ jsonrpc: '2.0', id: client.id(), method: 'tools/call', params: { name: 'quiet', arguments: {} } });
      const quiet = rawRequest(url, { method: 'POST', headers: client.sessionHeaders({ 'content-type': 'application/json', accept: ACCEPT_BOTH }), body, signal: leaving.signal });
      assert.equal(await stillHeld(quiet), true);
      leaving.abort();
      await quiet.catch(() => undefined);
      served.release();
      const next = await client.call('tools/call', { name: 'public', arguments: {} });
      assert.deepEqual((next.response['result'] as { content: unknown[] }).content, [{ type: 'text', text: 'public' }]);
    } finally {
      await http.close();
      await served.close();
    }
  });

  test('without authenticate nothing is held: the -32043 comes inside the stream', async () => {
    const served = opaqueServer();
    const http = createStreamableHttpServer({ server: served.acceptor });
    const { url } = await http.listen();
    try {
      const client = new RawMcp(url);
      await client.initialize('2025-06-18');
      const quiet = client.post({ jsonrpc: '2.0', id: client.id(), method: 'tools/call', params: { name: 'quiet', arguments: {} } });
      assert.equal(asStream(await quiet).status, 200, 'the stream opened at once');
      served.release();
      const plain = await client.call('tools/call', { name: 'admin', arguments: {} });
      assert.equal(asStream(plain.reply).status, 200);
      assert.equal((plain.response['error'] as { code: number }).code, ErrorCode.InsufficientScope);
    } finally {
      await http.close();
      await served.close();
    }
  });
});
