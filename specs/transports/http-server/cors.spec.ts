/**
 * CORS as an option of the endpoint, on both adapters with a real HTTP client on 127.0.0.1: off by default
 * (OPTIONS 405, no CORS header); on, an allowed origin's preflight is answered with the endpoint's methods, the
 * MCP request headers (and the Mcp-Param-* ones it asks for), a max-age, and its answers expose the MCP
 * response headers; any other origin gets no CORS header; the CORS origins pass the Origin check. The browser
 * itself is in specs/browser/cors.spec.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { ACCEPT_BOTH, type RawReply, RawMcp, asBody, rawRequest } from '../../support/http-raw-client.ts';
import { ADAPTERS, type AdapterName, type EndpointOptions, serveThrough } from './adapters.ts';
import { demoServer } from './fixtures.ts';

const APP = 'https://app.example.com';

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '0' } } });

function preflight(url: string, origin: string, method: string, requestHeaders?: string): Promise<RawReply> {
  const headers: Record<string, string> = { origin, 'access-control-request-method': method };
  if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
  return rawRequest(url, { method: 'OPTIONS', headers }).then(asBody);
}

function postInitialize(url: string, origin: string): Promise<RawReply> {
  return rawRequest(url, { method: 'POST', headers: { origin, 'content-type': 'application/json', accept: 'application/json' }, body: initialize }).then(asBody);
}

const corsHeadersOf = (reply: RawReply): string[] => Object.keys(reply.headers).filter((name) => name.startsWith('access-control-'));

async function served(adapter: AdapterName, options: EndpointOptions = {}) {
  const demo = demoServer();
  const endpoint = await serveThrough(adapter, demo.server, options);
  return {
    ...demo,
    endpoint,
    async [Symbol.asyncDispose]() {
      await endpoint.close();
      await demo.server.close();
    },
  };
}

for (const adapter of ADAPTERS) {
  describe(`CORS (${adapter} adapter)`, () => {
    test(`${adapter} - off by default: a preflight gets 405 and answers carry no CORS header`, async () => {
      await using it = await served(adapter);
      const origin = `http://localhost:${new URL(it.endpoint.origin).port}`;
      const refused = await preflight(it.endpoint.url, origin, 'POST', 'content-type');
      assert.equal(refused.status, 405);
      assert.deepEqual(corsHeadersOf(refused), []);
      const answered = await postInitialize(it.endpoint.url, origin);
      assert.equal(answered.status, 200);
      assert.deepEqual(corsHeadersOf(answered), []);
    });

    test(`${adapter} - an allowed origin's preflight: 204, its origin, the methods, the MCP headers and the Mcp-Param-* asked for, a max-age`, async () => {
      await using it = await served(adapter, { cors: { origins: [APP] } });
      const reply = await preflight(it.endpoint.url, APP, 'POST', 'content-type,mcp-protocol-version,mcp-method,mcp-name,mcp-param-region,x-not-mcp');
      assert.equal(reply.status, 204);
      assert.equal(reply.headers['access-control-allow-origin'], APP);
      assert.equal(reply.headers['access-control-allow-methods'], 'GET, POST, DELETE');
      const allowed = String(reply.headers['access-control-allow-headers']).split(', ').map((name) => name.toLowerCase());
      for (const name of ['content-type', 'accept', 'authorization', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'mcp-method', 'mcp-name', 'mcp-param-region']) {
        assert.ok(allowed.includes(name), `${name} is allowed: ${allowed.join(', ')}`);
      }
      assert.equal(allowed.includes('x-not-mcp'), false, 'a header outside the list is not echoed');
      assert.equal(reply.headers['access-control-max-age'], '600');
      assert.equal(reply.headers['access-control-allow-credentials'], undefined);
      assert.match(String(reply.headers['vary']), /Origin/);
      assert.equal(it.endpoint.sessionCount, 0, 'a preflight opens nothing');
    });

    test(`${adapter} - an allowed origin reads every answer: its origin back, the MCP headers exposed, Vary: Origin`, async () => {
      await using it = await served(adapter, { cors: { origins: [APP], credentials: true, exposeHeaders: ['X-Trace-Id'] } });
      const answered = await postInitialize(it.endpoint.url, APP);
      assert.equal(answered.status, 200);
      assert.equal(answered.headers['access-control-allow-origin'], APP);
      assert.equal(answered.headers['access-control-allow-credentials'], 'true');
      assert.equal(answered.headers['access-control-expose-headers'], 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-Trace-Id');
      assert.equal(answered.headers['vary'], 'Origin');
      // A refusal is readable too (here an unknown session: 404), so a page can tell why.
      const unknown = asBody(await rawRequest(it.endpoint.url, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': 'nope', 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) }));
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers['access-control-allow-origin'], APP);
      // So are event streams.
      const mcp = new RawMcp(it.endpoint.url, { headers: { origin: APP } });
      await mcp.initialize();
      const stream = await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'progress', arguments: {} } });
      assert.equal(stream.kind, 'sse');
      assert.equal(stream.headers['access-control-allow-origin'], APP);
      await mcp.responseOf(stream);
      mcp.assertClean();
    });

    test(`${adapter} - other origins get no CORS header: refused by the Origin check, or allowed by it but not for CORS`, async () => {
      await using it = await served(adapter, { cors: { origins: [APP] } });
      const foreign = await preflight(it.endpoint.url, 'https://evil.example.com', 'POST', 'content-type');
      assert.equal(foreign.status, 403);
      assert.deepEqual(corsHeadersOf(foreign), []);
      const foreignPost = await postInitialize(it.endpoint.url, 'https://evil.example.com');
      assert.equal(foreignPost.status, 403);
      assert.deepEqual(corsHeadersOf(foreignPost), []);
      // A loopback page passes the default Origin check (same-origin use) but is not a CORS origin here.
      const loopback = `http://localhost:${new URL(it.endpoint.origin).port}`;
      const notCors = await preflight(it.endpoint.url, loopback, 'POST', 'content-type');
      assert.equal(notCors.status, 403);
      assert.deepEqual(corsHeadersOf(notCors), []);
      const sameOrigin = await postInitialize(it.endpoint.url, loopback);
      assert.equal(sameOrigin.status, 200);
      assert.deepEqual(corsHeadersOf(sameOrigin), []);
      assert.equal(sameOrigin.headers['vary'], 'Origin');
    });

    test(`${adapter} - a CORS origin passes an explicit Origin check that does not list it; a predicate works as a list does`, async () => {
      await using listed = await served(adapter, { allowedOrigins: ['https://other.example.com'], cors: { origins: [APP] } });
      assert.equal((await postInitialize(listed.endpoint.url, APP)).status, 200);
      assert.equal((await postInitialize(listed.endpoint.url, 'https://other.example.com')).status, 200);
      assert.equal((await postInitialize(listed.endpoint.url, 'https://third.example.com')).status, 403);

      await using predicate = await served(adapter, { cors: { origins: (origin) => origin.endsWith('.tenant.example.com'), maxAgeSeconds: 60 } });
      const ok = await preflight(predicate.endpoint.url, 'https://a.tenant.example.com', 'DELETE');
      assert.equal(ok.status, 204);
      assert.equal(ok.headers['access-control-allow-origin'], 'https://a.tenant.example.com');
      assert.equal(ok.headers['access-control-max-age'], '60');
      assert.equal((await preflight(predicate.endpoint.url, 'https://tenant.example.org', 'DELETE')).status, 403);
    });

    test(`${adapter} - a stateless endpoint's preflight offers POST only; HTTP+SSE paths offer theirs`, async () => {
      await using stateless = await served(adapter, { stateless: true, cors: { origins: [APP] } });
      assert.equal((await preflight(stateless.endpoint.url, APP, 'POST')).headers['access-control-allow-methods'], 'POST');
      await using legacy = await served(adapter, { legacySse: true, cors: { origins: [APP] } });
      assert.equal((await preflight(`${legacy.endpoint.origin}/sse`, APP, 'GET')).headers['access-control-allow-methods'], 'GET');
      assert.equal((await preflight(`${legacy.endpoint.origin}/messages`, APP, 'POST')).headers['access-control-allow-methods'], 'POST');
    });

    test(`${adapter} - while shutting down, a preflight is still answered and the request it announces gets a readable 503`, async () => {
      await using it = await served(adapter, { cors: { origins: [APP] } });
      const mcp = new RawMcp(it.endpoint.url);
      await mcp.initialize();
      const running = await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'wait', arguments: { key: 'drain' } } });
      await it.gates.started('drain');
      const closing = it.endpoint.close({ drainMs: 5_000 });
      assert.equal((await preflight(it.endpoint.url, APP, 'POST', 'content-type')).status, 204);
      const refused = await postInitialize(it.endpoint.url, APP);
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['access-control-allow-origin'], APP);
      it.gates.open('drain');
      await mcp.responseOf(running);
      await closing;
    });
  });
}

test('CORS - wildcard or malformed origins, a bad max-age and bad header names are refused at construction', () => {
  const { server } = demoServer();
  assert.throws(() => createStreamableHttpServer({ server, cors: { origins: ['*'] } }), /not an origin entry/);
  assert.throws(() => createStreamableHttpServer({ server, cors: { origins: ['app.example.com'] } }), /not an origin entry/);
  assert.throws(() => createStreamableHttpServer({ server, cors: { origins: [APP], maxAgeSeconds: -1 } }), /maxAgeSeconds/);
  assert.throws(() => createStreamableHttpServer({ server, cors: { origins: [APP], allowHeaders: ['X-Bad\r\nInjected: 1'] } }), /not an HTTP header name/);
});
