/**
 * `bearerAuth` on a real Streamable HTTP endpoint (127.0.0.1), against a JWKS and metadata served by a small
 * node:http authorization server, with tokens minted by jose: the caller reaches handlers as `ctx.auth` in both
 * eras; the protected-resource metadata is served; every bad token is refused with its status, its challenge
 * and a clear reason, never a crash.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearerAuth } from '../../auth/index.ts';
import { createClient } from '../../client/create-client.ts';
import type { AuthInfo } from '../../core/auth.ts';
import { createServer } from '../../server/create-server.ts';
import { type StreamableHttpServer, createStreamableHttpClientTransport, createStreamableHttpFetchHandler, createStreamableHttpServer } from '../../transports/http/index.ts';
import { type SigningKey, type TestAuthorizationServer, athOf, dpopKey, signingKey, startAuthorizationServer } from './support.ts';

const RESOURCE = 'https://mcp.example.test/mcp';
const METADATA_URL = 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp';

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('bearerAuth over Streamable HTTP', () => {
  let key: SigningKey;
  let otherKey: SigningKey;
  let as: TestAuthorizationServer;
  let http: StreamableHttpServer;
  let url: string;
  const seen: Array<AuthInfo | undefined> = [];
  const server = createServer({ name: 'protected', version: '1' });
  server.tool({ name: 'whoami' }, (_args, ctx) => JSON.stringify({ principal: ctx.auth?.principal, clientId: ctx.auth?.clientId, scopes: ctx.auth?.scopes }));
  server.use((request, next) => {
    seen.push(request.session.auth);
    return next(request);
  });

  before(async () => {
    key = await signingKey('ES256', 'k1');
    // Same kid, another key: what a forger would publish nowhere.
    otherKey = await signingKey('ES256', 'k1');
    as = await startAuthorizationServer([key, await signingKey('PS256', 'k2')]);
    const auth = bearerAuth({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true, scopesSupported: ['mcp:tools', 'mcp:admin'], requiredScopes: ['mcp:tools'], algorithms: ['ES256'] });
    http = createStreamableHttpServer({ server, ...auth });
    ({ url } = await http.listen());
  });
  after(async () => {
    await http.close();
    await server.close();
    await as[Symbol.asyncDispose]();
  });

  const claims = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    iss: as.issuer,
    sub: 'ada',
    aud: RESOURCE,
    client_id: 'app-1',
    scope: 'mcp:tools',
    exp: Math.floor(Date.now() / 1000) + 300,
    iat: Math.floor(Date.now() / 1000),
    ...extra,
  });
  const post = (headers: Record<string, string> = {}, body: unknown = initialize): Promise<Response> =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  test('the protected-resource metadata is served at the root and path-suffixed well-known URLs, without credentials', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await fetch(new URL(path, url));
      assert.equal(response.status, 200, path);
      const document = (await response.json()) as Record<string, unknown>;
      assert.equal(document['resource'], RESOURCE);
      assert.deepEqual(document['authorization_servers'], [as.issuer]);
      assert.deepEqual(document['scopes_supported'], ['mcp:tools', 'mcp:admin']);
      assert.deepEqual(document['bearer_methods_supported'], ['header']);
    }
  });

  test('no token: 401 with the challenge naming the metadata and the scopes, no error code', async () => {
    const response = await post();
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), `Bearer resource_metadata="${METADATA_URL}", scope="mcp:tools"`);
    await response.body?.cancel();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`a valid token: the ${era}-era handler and interceptors see the caller`, async () => {
      const token = await as.mint(claims());
      seen.length = 0;
      const transport = createStreamableHttpClientTransport(url, { headers: { authorization: `Bearer ${token}` } });
      const client = await createClient({ name: 'c', version: '1', era }).connect(transport);
      try {
        const result = await client.callTool('whoami');
        assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), { principal: 'ada', clientId: 'app-1', scopes: ['mcp:tools'] });
        const last = seen.at(-1);
        assert.equal(last?.principal, 'ada');
        assert.equal(last?.issuer, as.issuer);
        assert.ok(!JSON.stringify(last).includes(token), 'the token itself is not passed on');
      } finally {
        await client.close();
      }
    });
  }

  const refusals: Array<[string, () => Promise<string>, RegExp]> = [
    ['forged (signed by a key the issuer does not publish)', () => as.mint(claims(), { key: otherKey }), /signature is invalid/],
    ['expired', () => as.mint(claims({ exp: Math.floor(Date.now() / 1000) - 120 })), /expired/],
    ['for another audience', () => as.mint(claims({ aud: 'https://other.example.test/mcp' })), /not for this resource/],
    ['from an untrusted issuer', () => as.mint(claims({ iss: 'https://evil.example.test' })), /not issued by an authorization server this resource trusts/],
    ['signed with an algorithm not accepted', async () => as.mint(claims(), { key: await signingKey('PS256', 'k2') }), /algorithm not accepted/],
    ['without an expiry', () => as.mint(claims({ exp: undefined })), /"exp" claim|no expiry/],
    ['not a JWT at all', async () => 'opaque-garbage-token', /not a JWT/],
  ];
  for (const [name, mint, reason] of refusals) {
    test(`a token ${name}: 401 invalid_token with a clear reason`, async () => {
      const response = await post({ authorization: `Bearer ${await mint()}` });
      assert.equal(response.status, 401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer resource_metadata="[^"]+", scope="mcp:tools", error="invalid_token", error_description="[^"]+"$/);
      assert.match(challenge, reason);
      const body = (await response.json()) as { error: { message: string } };
      assert.match(body.error.message, reason);
    });
  }

  test('a malformed Authorization header: 401 invalid_request', async () => {
    for (const header of ['Bearer', 'Basic abc', 'Bearer a b', `Bearer ${'x'.repeat(10_000)}`]) {
      const response = await post({ authorization: header });
      assert.equal(response.status, 401, header.slice(0, 20));
      assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
      await response.body?.cancel();
    }
  });

  test('a token without the required scope: 403 insufficient_scope naming it', async () => {
    const response = await post({ authorization: `Bearer ${await as.mint(claims({ scope: 'mcp:other' }))}` });
    assert.equal(response.status, 403);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="[^"]+", scope="mcp:tools", error="insufficient_scope"/);
    await response.body?.cancel();
  });

  test('a verified token is remembered: the JWKS is not read again, and 200 requests succeed', async () => {
    const token = await as.mint(claims({ sub: 'cached' }));
    const first = await post({ authorization: `Bearer ${token}` });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const jwksReads = as.hits.get('/jwks');
    for (let index = 0; index < 200; index++) {
      const response = await post({ authorization: `Bearer ${token}` });
      assert.equal(response.status, 200);
      await response.body?.cancel();
    }
    assert.equal(as.hits.get('/jwks'), jwksReads);
  });
});

describe('bearerAuth: DPoP-bound tokens (RFC 9449)', () => {
  let as: TestAuthorizationServer;
  let http: StreamableHttpServer;
  let url: string;
  const server = createServer({ name: 'dpop', version: '1' });
  server.tool({ name: 'whoami' }, (_args, ctx) => ctx.auth?.principal ?? 'nobody');

  before(async () => {
    as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    http = createStreamableHttpServer({ server, ...bearerAuth({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true, dpop: {} }) });
    ({ url } = await http.listen());
  });
  after(async () => {
    await http.close();
    await server.close();
    await as[Symbol.asyncDispose]();
  });

  const post = (headers: Record<string, string>): Promise<Response> =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });

  async function bound(): Promise<{ token: string; key: Awaited<ReturnType<typeof dpopKey>> }> {
    const key = await dpopKey();
    const now = Math.floor(Date.now() / 1000);
    const token = await as.mint({ iss: as.issuer, sub: 'grace', aud: RESOURCE, exp: now + 300, cnf: { jkt: key.jkt } });
    return { token, key };
  }

  test('a fresh proof for this request is accepted; the same proof again is a replay', async () => {
    const { token, key } = await bound();
    const proof = await key.proof({ htm: 'POST', htu: RESOURCE, ath: await athOf(token) });
    const first = await post({ authorization: `DPoP ${token}`, dpop: proof });
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const again = await post({ authorization: `DPoP ${token}`, dpop: proof });
    assert.equal(again.status, 401);
    assert.match(again.headers.get('www-authenticate') ?? '', /^DPoP error="invalid_dpop_proof", error_description="the proof was already used \(replay\)"/);
    await again.body?.cancel();
  });

  const bad: Array<[string, (token: string, key: Awaited<ReturnType<typeof dpopKey>>) => Promise<Record<string, string>>, RegExp]> = [
    ['a bound token sent as a bearer token', async (token) => ({ authorization: `Bearer ${token}` }), /DPoP-bound token sent as a bearer token/],
    ['no proof', async (token) => ({ authorization: `DPoP ${token}` }), /needs a DPoP proof/],
    ['a proof for another method', async (token, key) => ({ authorization: `DPoP ${token}`, dpop: await key.proof({ htm: 'GET', htu: RESOURCE, ath: await athOf(token) }) }), /another HTTP method/],
    ['a proof for another URL', async (token, key) => ({ authorization: `DPoP ${token}`, dpop: await key.proof({ htm: 'POST', htu: 'https://elsewhere.example.test/mcp', ath: await athOf(token) }) }), /another URL/],
    ['an old proof', async (token, key) => ({ authorization: `DPoP ${token}`, dpop: await key.proof({ htm: 'POST', htu: RESOURCE, ath: await athOf(token), iat: Math.floor(Date.now() / 1000) - 600 }) }), /not fresh/],
    ['a proof for another token', async (token, key) => ({ authorization: `DPoP ${token}`, dpop: await key.proof({ htm: 'POST', htu: RESOURCE, ath: await athOf('another') }) }), /another access token/],
    ['a proof signed by another key', async (token) => ({ authorization: `DPoP ${token}`, dpop: await (await dpopKey()).proof({ htm: 'POST', htu: RESOURCE, ath: await athOf(token) }) }), /key the token is not bound to/],
    ['a proof with an algorithm not accepted', async (token) => ({ authorization: `DPoP ${token}`, dpop: await (await dpopKey('ES512')).proof({ htm: 'POST', htu: RESOURCE, ath: await athOf(token) }) }), /algorithm not accepted/],
  ];
  for (const [name, headersFor, reason] of bad) {
    test(`${name}: 401 with a clear reason`, async () => {
      const { token, key } = await bound();
      const response = await post(await headersFor(token, key));
      assert.equal(response.status, 401);
      assert.match(response.headers.get('www-authenticate') ?? '', reason);
      await response.body?.cancel();
    });
  }

  test('an unbound token with the DPoP scheme is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await as.mint({ iss: as.issuer, sub: 'grace', aud: RESOURCE, exp: now + 300 });
    const response = await post({ authorization: `DPoP ${token}`, dpop: await (await dpopKey()).proof({ htm: 'POST', htu: RESOURCE, ath: await athOf(token) }) });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /needs a DPoP-bound token/);
    await response.body?.cancel();
  });
});

describe('bearerAuth: opaque tokens by introspection (RFC 7662)', () => {
  test('an active answer for this resource is the caller, remembered; inactive, foreign or expired ones are refused', async () => {
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    const server = createServer({ name: 'introspected', version: '1' });
    server.tool({ name: 'whoami' }, (_args, ctx) => ctx.auth?.principal ?? 'nobody');
    const http = createStreamableHttpServer({ server, ...bearerAuth({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true, introspection: { clientId: 'rs', clientSecret: 'rs-secret' } }) });
    const { url } = await http.listen();
    const exp = Math.floor(Date.now() / 1000) + 300;
    as.introspected.set('good-token', { active: true, sub: 'lin', aud: RESOURCE, scope: 'mcp:tools', exp, client_id: 'app' });
    as.introspected.set('foreign-token', { active: true, sub: 'lin', aud: 'https://other.example.test', exp });
    as.introspected.set('expired-token', { active: true, sub: 'lin', aud: RESOURCE, exp: exp - 1000 });
    const post = (token: string): Promise<Response> =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: JSON.stringify(initialize) });
    try {
      for (let index = 0; index < 3; index++) {
        const response = await post('good-token');
        assert.equal(response.status, 200);
        await response.body?.cancel();
      }
      assert.equal(as.hits.get('/introspect'), 1, 'one introspection for three requests');
      for (const [token, reason] of [['inactive-token', /not active/], ['foreign-token', /not for this resource/], ['expired-token', /expired/]] as const) {
        const response = await post(token);
        assert.equal(response.status, 401, token);
        assert.match(response.headers.get('www-authenticate') ?? '', reason);
        await response.body?.cancel();
      }
    } finally {
      await http.close();
      await server.close();
    }
  });
});

describe('bearerAuth: the fetch handler (edge runtimes) answers the same way', () => {
  test('metadata, the 401 challenge, and a verified caller reaching the handler', async () => {
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    const server = createServer({ name: 'edge', version: '1' });
    const endpoint = createStreamableHttpFetchHandler({ server, stateless: true, responseMode: 'json', ...bearerAuth({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true }) });
    server.tool({ name: 'whoami' }, (_args, ctx) => ctx.auth?.principal ?? 'nobody');
    const origin = 'http://127.0.0.1:8080';
    try {
      const metadata = await endpoint.handleFetch(new Request(`${origin}/.well-known/oauth-protected-resource/mcp`, { headers: { host: '127.0.0.1:8080' } }));
      assert.equal(metadata.status, 200);
      assert.equal(((await metadata.json()) as { resource: string }).resource, RESOURCE);
      const call = (authorization?: string): Request =>
        new Request(`${origin}/mcp`, {
          method: 'POST',
          headers: { host: '127.0.0.1:8080', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(authorization === undefined ? {} : { authorization }) },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
        });
      const refused = await endpoint.handleFetch(call());
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${METADATA_URL}"`);
      const token = await as.mint({ iss: as.issuer, sub: 'edge-user', aud: RESOURCE, exp: Math.floor(Date.now() / 1000) + 60 });
      const answered = await endpoint.handleFetch(call(`Bearer ${token}`));
      assert.equal(answered.status, 200);
      const body = (await answered.json()) as { result: { content: Array<{ text: string }> } };
      assert.equal(body.result.content[0]?.text, 'edge-user');
    } finally {
      await endpoint.close();
      await server.close();
    }
  });
});
