/**
 * rxmcp/auth/client's createOAuthClient where the conformance suite does not look: hostile metadata (wrong issuer,
 * non-HTTPS endpoints outside loopback, an oversized document, no PKCE S256) refused before any authorization
 * request; the limit on authorizations in a row; registrations and tokens kept per issuer when a server moves to
 * another authorization server; refresh before expiry; tokens from a persistent store reused without a new
 * authorization. A fake authorization server and a protected MCP mock on 127.0.0.1 (specs/support/oauth-fixture.ts).
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { AuthorizationError, createMemoryOAuthStore, createOAuthClient } from '../../auth/client/index.ts';
import { followAuthorizationRedirect } from '../../testing.ts';
import type { OAuthClientOptions, OAuthStore } from '../../auth/client/index.ts';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { isLocalError } from '../../core/errors.ts';
import { createFetchHttpClientTransport, createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { closeAllMockServers } from '../support/http-mock-server.ts';
import { type FakeAuthorizationServer, startAuthorizationServer, startProtectedServer } from '../support/oauth-fixture.ts';

after(closeAllMockServers);
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

const REDIRECT = 'http://127.0.0.1:9/callback';

async function pair(options: { readonly callScope?: string; readonly alwaysForbid?: boolean; readonly resource?: (url: string) => string; readonly legacy?: boolean } = {}) {
  const as = await startAuthorizationServer();
  open.push(as);
  let servers = [as.issuer];
  const fakes = [as];
  const accepts = (token: string): string | undefined => {
    for (const fake of fakes) if (fake.issued.has(token)) return fake.issued.get(token);
    return undefined;
  };
  const mcp = await startProtectedServer({ authorizationServers: () => servers, accepts, ...options });
  open.push(mcp);
  return {
    as,
    mcp,
    /** The PRM names another authorization server from now on. */
    moveTo(other: FakeAuthorizationServer) {
      fakes.push(other);
      servers = [other.issuer];
    },
  };
}

function provider(options: OAuthClientOptions = {}) {
  return createOAuthClient({ redirectUri: REDIRECT, onAuthorizationUrl: followAuthorizationRedirect(), ...options });
}

async function connect(url: string, auth: ReturnType<typeof provider>): Promise<ClientSession> {
  const transport = createStreamableHttpClientTransport(url, { auth, mode: 'streamable' });
  return createClient({ era: 'legacy', name: 'oauth-spec', version: '1.0.0' }).connect(transport, { initializeTimeoutMs: 10_000 });
}

/** The failure behind a rejected connect: the transport's Unauthorized error, caused by an AuthorizationError. */
async function refusal(promise: Promise<unknown>): Promise<AuthorizationError> {
  try {
    await promise;
  } catch (error) {
    let at: unknown = error;
    for (let depth = 0; depth < 5 && at !== undefined; depth++) {
      if (at instanceof AuthorizationError) return at;
      at = (at as { cause?: unknown }).cause;
    }
    assert.fail(`no AuthorizationError behind ${String(error)}`);
  }
  assert.fail('the connection was expected to fail');
}

describe('createOAuthClient', () => {
  it('runs the whole flow: PRM, metadata, registration, PKCE S256, resource on both legs, then Bearer', async () => {
    const { as, mcp } = await pair();
    const session = await connect(mcp.url, provider());
    await session.callTool('echo', { x: 1 });
    await session.close();
    const authorize = as.requests.find((request) => request.path === '/authorize');
    const token = as.requests.find((request) => request.path === '/token');
    assert.ok(authorize !== undefined && token !== undefined);
    assert.equal(authorize.query.get('code_challenge_method'), 'S256');
    assert.equal(authorize.query.get('resource'), mcp.url);
    assert.equal(token.form.get('resource'), mcp.url);
    assert.equal(authorize.query.get('scope'), 'mcp:read offline_access', 'PRM scopes, and offline_access because the AS lists it');
    const registration = as.requests.find((request) => request.path === '/register');
    assert.ok(registration !== undefined, 'registered dynamically');
    assert.ok(mcp.received.some((request) => typeof request.headers['authorization'] === 'string' && request.headers['authorization'].startsWith('Bearer at-')));
  });

  const hostile: ReadonlyArray<readonly [string, (as: FakeAuthorizationServer) => void, RegExp, string]> = [
    ['a wrong issuer', (as) => void (as.metadata = { issuer: 'https://attacker.example.com' }), /issuer/, 'server-metadata'],
    ['a non-HTTPS token endpoint outside loopback', (as) => void (as.metadata = { token_endpoint: 'http://tokens.example.com/token' }), /neither HTTPS nor loopback/, 'insecure-server'],
    ['a non-HTTPS authorization endpoint outside loopback', (as) => void (as.metadata = { authorization_endpoint: 'http://login.example.com/authorize' }), /neither HTTPS nor loopback/, 'insecure-server'],
    ['an oversized document', (as) => void (as.rawMetadata = JSON.stringify({ issuer: as.issuer, padding: 'x'.repeat(300 * 1024) })), /limit/, 'server-metadata'],
    ['no PKCE S256', (as) => void (as.metadata = { code_challenge_methods_supported: ['plain'] }), /S256/, 'insecure-server'],
  ];
  for (const [what, spoil, message, failure] of hostile) {
    it(`refuses authorization-server metadata with ${what}, before any authorization request`, async () => {
      const { as, mcp } = await pair();
      spoil(as);
      const error = await refusal(connect(mcp.url, provider()));
      assert.match(error.message, message);
      assert.equal(error.failure, failure);
      assert.ok(!as.paths().includes('GET /authorize'), 'no authorization request');
      assert.ok(!as.paths().includes('POST /token'), 'no token request');
    });
  }

  it('refuses protected-resource metadata for another resource before any request to the authorization server', async () => {
    const { as, mcp } = await pair({ resource: () => 'https://evil.example.com/mcp' });
    const error = await refusal(connect(mcp.url, provider()));
    assert.equal(error.failure, 'resource-metadata');
    assert.deepEqual(as.requests, []);
  });

  it('gives up after maxAuthorizations flows in a row that the server still refuses', async () => {
    const { as, mcp } = await pair({ alwaysForbid: true });
    const auth = provider({ maxAuthorizations: 2 });
    const transport = createStreamableHttpClientTransport(mcp.url, { auth, mode: 'streamable', maxAuthRetries: 10 });
    await assert.rejects(createClient({ era: 'legacy', name: 'oauth-spec', version: '1.0.0' }).connect(transport, { initializeTimeoutMs: 10_000 }), (error: unknown) => {
      assert.ok(isLocalError(error, 'Unauthorized') || /authorization/.test(String(error)), String(error));
      return true;
    });
    assert.equal(as.requests.filter((request) => request.path === '/authorize').length, 2, 'two authorizations, no third');
  });

  it('steps up on 403 insufficient_scope with the union of the scopes held and challenged', async () => {
    const { as, mcp } = await pair({ callScope: 'mcp:write' });
    const session = await connect(mcp.url, provider());
    await session.callTool('echo', {});
    await session.close();
    const scopes = as.requests.filter((request) => request.path === '/authorize').map((request) => request.query.get('scope'));
    assert.deepEqual(scopes, ['mcp:read offline_access', 'mcp:read offline_access mcp:write']);
  });

  it('keeps registrations and tokens per issuer: a server that moves is authorized afresh at the new one', async () => {
    const { as, mcp, moveTo } = await pair();
    const store = createMemoryOAuthStore();
    const auth = provider({ store });
    const session = await connect(mcp.url, auth);
    await session.callTool('echo', {});
    const other = await startAuthorizationServer();
    open.push(other);
    moveTo(other);
    as.issued.clear(); // the old server's tokens are no longer accepted: the next request gets a 401
    await session.callTool('echo', {});
    await session.close();
    const firstClient = as.requests.find((request) => request.path === '/authorize')?.query.get('client_id');
    const secondAuthorize = other.requests.find((request) => request.path === '/authorize');
    assert.ok(other.paths().includes('POST /register'), 're-registered at the new authorization server');
    assert.ok(firstClient !== undefined && firstClient !== null);
    assert.notEqual(secondAuthorize?.query.get('client_id'), firstClient, 'the old client id is not used at the new server');
    assert.ok(!other.requests.some((request) => request.form.get('client_id') === firstClient));
    assert.ok((await store.loadClient(as.issuer)) !== undefined && (await store.loadClient(other.issuer)) !== undefined, 'one registration per issuer');
    assert.ok((await store.loadTokens({ resource: mcp.url, issuer: other.issuer })) !== undefined);
  });

  it('refreshes a token about to expire before sending, with the resource', async () => {
    const { as, mcp } = await pair();
    as.expiresIn = 30; // inside the default 60 s refresh margin
    const session = await connect(mcp.url, provider());
    await session.callTool('echo', {});
    await session.close();
    const refresh = as.requests.find((request) => request.form.get('grant_type') === 'refresh_token');
    assert.ok(refresh !== undefined, 'refreshed');
    assert.equal(refresh.form.get('resource'), mcp.url);
    assert.equal(as.requests.filter((request) => request.path === '/authorize').length, 1, 'one authorization only');
  });

  it('concurrent refusals of one token share one cure: a single refresh, no new authorization', async () => {
    const { as, mcp } = await pair();
    const session = await connect(mcp.url, provider());
    await session.callTool('echo', {});
    as.issued.clear(); // every request now gets a 401
    await Promise.all(Array.from({ length: 6 }, (_, index) => session.callTool('echo', { index })));
    await session.close();
    assert.equal(as.requests.filter((request) => request.form.get('grant_type') === 'refresh_token').length, 1, 'one refresh');
    assert.equal(as.requests.filter((request) => request.path === '/authorize').length, 1, 'no second authorization');
  });

  it('runs over the fetch engine as over node:http', async () => {
    const { as, mcp } = await pair();
    const transport = createFetchHttpClientTransport(mcp.url, { auth: provider(), mode: 'streamable' });
    const session = await createClient({ era: 'legacy', name: 'oauth-spec', version: '1.0.0' }).connect(transport, { initializeTimeoutMs: 10_000 });
    await session.callTool('echo', {});
    await session.close();
    assert.equal(as.requests.filter((request) => request.path === '/token').length, 1);
  });

  it('authorizes the HTTP+SSE fallback once for the server: its stream and its POSTs to the named endpoint', async () => {
    const { as, mcp } = await pair({ legacy: true });
    const transport = createStreamableHttpClientTransport(mcp.url, { auth: provider(), mode: 'legacy-sse' });
    const session = await createClient({ era: 'legacy', name: 'oauth-spec', version: '1.0.0', protocolVersion: '2024-11-05' }).connect(transport, { initializeTimeoutMs: 10_000 });
    await session.callTool('echo', {});
    await session.close();
    assert.equal(as.requests.filter((request) => request.path === '/authorize').length, 1, 'one authorization for the server');
    const posts = mcp.received.filter((request) => request.method === 'POST');
    assert.ok(posts.length >= 2);
    for (const post of posts) assert.match(String(post.headers['authorization']), /^Bearer at-/, post.path);
  });

  it('reuses tokens a persistent store kept from an earlier run, without a new authorization', async () => {
    const { as, mcp } = await pair();
    const store: OAuthStore = createMemoryOAuthStore();
    const first = await connect(mcp.url, provider({ store }));
    await first.close();
    const second = await connect(mcp.url, provider({ store }));
    await second.callTool('echo', {});
    await second.close();
    assert.equal(as.requests.filter((request) => request.path === '/authorize').length, 1);
  });
});
