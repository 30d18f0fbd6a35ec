/**
 * DNS-rebinding protection on by default (FEATURES H2; conformance `dns-rebinding-protection`): foreign Host
 * and Origin values get 403 with an id-less JSON-RPC error before anything else happens; loopback names pass;
 * `listen` binds 127.0.0.1. Also the shared Host/Origin checks on their own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LOOPBACK_HOSTS, createHostCheck, createOriginCheck } from '../../../transports/http/index.ts';
import { parseHost } from '../../../engine.ts';
import { ACCEPT_BOTH, asBody, rawRequest } from '../../support/http-raw-client.ts';
import { validateMessage } from '../../support/schema-oracle.ts';
import { serve } from './fixtures.ts';

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

function post(url: string, headers: Record<string, string>): ReturnType<typeof rawRequest> {
  return rawRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: initialize });
}

const portOf = (url: string): string => new URL(url).port;

describe('http server: Host and Origin', () => {
  test('a foreign Host or Origin gets 403 with an id-less JSON-RPC error, and no session is created', async () => {
    await using served = await serve();
    const port = portOf(served.url);
    const cases: Array<Record<string, string>> = [
      { host: 'evil.example.com' },
      { host: `evil.example.com:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' },
      { host: `127.0.0.1:${port}`, origin: 'null' },
      { host: `127.0.0.1:${port}`, origin: `http://localhost.evil.example.com:${port}` },
    ];
    for (const headers of cases) {
      const reply = asBody(await post(served.url, headers));
      assert.equal(reply.status, 403, JSON.stringify(headers));
      const body = reply.json as { id?: unknown; error?: { message: string } };
      assert.equal('id' in body, false);
      assert.match(body.error?.message ?? '', /^Forbidden: the (Host|Origin)/);
      assert.deepEqual(validateMessage('2025-11-25', reply.json), []);
    }
    assert.equal(served.http.sessionCount, 0);
  });

  test('loopback hosts and origins pass on any port; a missing Origin passes', async () => {
    await using served = await serve();
    const port = portOf(served.url);
    const cases: Array<Record<string, string>> = [
      { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      { host: `[::1]:${port}`, origin: 'https://[::1]:8443' },
      { host: 'LOCALHOST' },
      { host: `127.0.0.1:${port}` },
    ];
    for (const headers of cases) {
      const reply = asBody(await post(served.url, headers));
      assert.equal(reply.status, 200, JSON.stringify(headers));
      assert.equal(typeof reply.headers['mcp-session-id'], 'string');
    }
  });

  test('the policies can be configured, or opened entirely for deployments behind a checking proxy', async () => {
    await using served = await serve({ allowedHosts: ['mcp.example.com', 'api.example.com:8443'], allowedOrigins: ['https://app.example.com'] });
    const ok = (reply: Awaited<ReturnType<typeof rawRequest>>): number => reply.status;
    assert.equal(ok(await post(served.url, { host: 'mcp.example.com:1234', origin: 'https://app.example.com' })), 200);
    assert.equal(ok(await post(served.url, { host: 'api.example.com:8443' })), 200);
    assert.equal(ok(await post(served.url, { host: 'api.example.com:9999' })), 403);
    assert.equal(ok(await post(served.url, { host: `127.0.0.1:${portOf(served.url)}` })), 403, 'loopback is no longer implied');
    assert.equal(ok(await post(served.url, { host: 'mcp.example.com', origin: 'http://app.example.com' })), 403, 'the scheme is part of the origin');
    assert.equal(ok(await post(served.url, { host: 'mcp.example.com', origin: 'https://app.example.com:444' })), 403);

    await using open = await serve({ allowedHosts: '*', allowedOrigins: '*' });
    assert.equal(ok(await post(open.url, { host: 'anything.example', origin: 'https://elsewhere.example' })), 200);
  });

  test('the checks run before anything else, on every path and method, legacy endpoints included', async () => {
    await using served = await serve({ legacySse: true });
    const evil = { host: 'evil.example.com', accept: ACCEPT_BOTH };
    for (const [path, method] of [['/mcp', 'GET'], ['/mcp', 'DELETE'], ['/nowhere', 'POST'], ['/sse', 'GET'], ['/messages', 'POST']] as const) {
      const reply = await rawRequest(served.url.replace(/\/mcp$/, path), { method, headers: evil });
      assert.equal(reply.status, 403, `${method} ${path}`);
    }
  });

  test('listen binds 127.0.0.1 unless told otherwise', async () => {
    await using served = await serve();
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });
});

describe('shared Host/Origin checks', () => {
  test('parseHost reads names, ports and bracketed IPv6, and rejects everything else', () => {
    assert.deepEqual(parseHost('Example.COM:8080'), { hostname: 'example.com', port: '8080' });
    assert.deepEqual(parseHost('[::1]:3000'), { hostname: '[::1]', port: '3000' });
    assert.deepEqual(parseHost('localhost.'), { hostname: 'localhost', port: undefined });
    for (const bad of ['', 'a b', 'user@host', 'host/path', '::1', 'host:port', 'host:123456']) assert.equal(parseHost(bad), undefined, bad);
  });

  test('host entries without a port admit any port; with one, only that port', () => {
    const check = createHostCheck(['example.com', 'pinned.example.com:443', ...LOOPBACK_HOSTS]);
    assert.equal(check('example.com:1'), true);
    assert.equal(check('pinned.example.com:443'), true);
    assert.equal(check('pinned.example.com'), false);
    assert.equal(check('[::1]'), true);
    assert.equal(check(undefined), false);
    assert.throws(() => createHostCheck(['not a host']), RangeError);
  });

  test('origin entries match scheme, host and port; `:*` admits any port', () => {
    const check = createOriginCheck(['https://app.example.com', 'http://localhost:*']);
    assert.equal(check('https://app.example.com'), true);
    assert.equal(check('https://app.example.com:443'), true, 'the default port is implied');
    assert.equal(check('https://app.example.com:8443'), false);
    assert.equal(check('http://localhost:5173'), true);
    assert.equal(check('https://localhost:5173'), false);
    assert.equal(check('null'), false);
    assert.equal(check('not a url'), false);
  });
});
