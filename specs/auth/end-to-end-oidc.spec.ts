/**
 * End to end, no browser, real parts only: our OAuth client (rxmcp/auth/client `createOAuthClient`, as the Streamable
 * HTTP client transport's `auth`) against our resource server (protected-rxmcp-server.ts: bearerAuth trusting a
 * real oidc-provider), in both eras:
 *   401 -> protected-resource metadata -> authorization-server metadata -> dynamic registration -> code + PKCE
 *   (login and consent completed headlessly) -> token (audience = the server's canonical URI) -> the call,
 * with the handler seeing the caller in `ctx.auth`; a token about to expire refreshed without a new login;
 * a tool needing `mcp:write` refused 403 insufficient_scope and the step-up login getting it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { type OAuthClientOptions, createMemoryOAuthStore, createOAuthClient } from '../../auth/client/index.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { createClient } from '../../client/create-client.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/index.ts';
import { type OidcProviderHandle, authorize, startOidcProvider } from '../support/oidc-provider.ts';
import { type ProtectedRxmcpServer, startProtectedRxmcpServer } from '../support/protected-rxmcp-server.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

interface Login {
  readonly urls: URL[];
  readonly store: ReturnType<typeof createMemoryOAuthStore>;
  connect(url: string, era: 'legacy' | 'modern'): Promise<ClientSession>;
}

/** Our client, its interactive step done by following the authorization URL through oidc-provider's headless login. */
function login(options: Partial<OAuthClientOptions> = {}): Login {
  const urls: URL[] = [];
  const store = createMemoryOAuthStore();
  const auth = createOAuthClient({
    redirectUri: REDIRECT_URI,
    onAuthorizationUrl: async (url) => {
      urls.push(url);
      return (await authorize(url)).redirect;
    },
    clientMetadata: { client_name: 'rxmcp e2e' },
    store,
    ...options,
  });
  return {
    urls,
    store,
    connect: (url, era) => createClient({ name: 'e2e', version: '1.0.0', era }).connect(createStreamableHttpClientTransport(url, { auth })),
  };
}

async function whoami(session: ClientSession): Promise<Record<string, unknown>> {
  const result = await session.callTool('whoami');
  return JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('our client, our resource server, a real oidc-provider', () => {
  let op: OidcProviderHandle;
  let server: ProtectedRxmcpServer;
  let shortLived: ProtectedRxmcpServer;
  before(async () => {
    op = await startOidcProvider();
    // The default response mode (SSE in the legacy era): a call lacking a scope is 403 before its stream opens.
    server = await startProtectedRxmcpServer(op);
    shortLived = await startProtectedRxmcpServer(op, { accessTokenTtlSeconds: 2, path: '/short/mcp' });
  });
  after(async () => {
    await shortLived.close();
    await server.close();
    await op.close();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: 401, discovery, registration, PKCE login, token for this resource, ctx.auth in the handler`, async () => {
      op.approval = { accountId: `ada-${era}` };
      const flow = login();
      const session = await flow.connect(server.url, era);
      try {
        assert.equal(flow.urls.length, 1, 'one interactive login');
        const asked = flow.urls[0];
        assert.equal(asked?.origin, op.issuer);
        assert.equal(asked?.searchParams.get('resource'), server.url);
        assert.equal(asked?.searchParams.get('code_challenge_method'), 'S256');
        assert.equal(asked?.searchParams.get('redirect_uri'), REDIRECT_URI);
        assert.match(asked?.searchParams.get('scope') ?? '', /\bmcp:read\b/);

        const me = await whoami(session);
        assert.equal(me['subject'], `ada-${era}`);
        assert.equal(me['issuer'], op.issuer);
        assert.ok(typeof me['clientId'] === 'string' && me['clientId'] !== '', 'a dynamically registered client');
        assert.ok((me['scopes'] as string[]).includes('mcp:read'));
        assert.ok(typeof me['expiresAt'] === 'number' && me['expiresAt'] > Date.now());

        const registration = await flow.store.loadClient(op.issuer);
        assert.equal(registration?.clientId, me['clientId']);
        const tokens = await flow.store.loadTokens({ resource: server.url, issuer: op.issuer });
        assert.equal(decodeJwt(tokens?.accessToken ?? '').aud, server.url, 'RFC 8707: the token names this server');
        // A second call needs no login.
        await whoami(session);
        assert.equal(flow.urls.length, 1);
      } finally {
        await session.close();
      }
    });

    test(`${era}: an expiring token is refreshed without a new login`, async () => {
      op.approval = { accountId: `grace-${era}` };
      const flow = login({ refreshSkewMs: 500 });
      const session = await flow.connect(shortLived.url, era);
      try {
        const first = await whoami(session);
        const issuedBefore = op.tokensIssued;
        // The token lives 2 s; within 0.5 s of its end the client refreshes before sending.
        await delay(1_700);
        const second = await whoami(session);
        assert.equal(second['subject'], `grace-${era}`);
        assert.ok((second['expiresAt'] as number) > (first['expiresAt'] as number), 'a newer token');
        assert.ok(op.tokensIssued > issuedBefore, 'the authorization server issued one');
        assert.equal(flow.urls.length, 1, 'no second login');
      } finally {
        await session.close();
      }
    });

    test(`${era}: a tool needing mcp:write answers 403 insufficient_scope; the step-up login gets it`, async () => {
      op.approval = { accountId: `lin-${era}` };
      const flow = login();
      const session = await flow.connect(server.url, era);
      try {
        assert.deepEqual((await whoami(session))['scopes'], ['mcp:read']);
        const names = async (): Promise<string[]> => (await session.listTools()).map((tool) => tool.name).sort();
        assert.deepEqual(await names(), ['whoami'], 'the list shows only what this caller may use');
        const result = await session.callTool('write-note', { text: `step-up ${era}` });
        assert.equal((result.content[0] as { text: string }).text, 'noted');
        assert.equal(flow.urls.length, 2, 'the login, then the step-up');
        const scopes = (flow.urls[1]?.searchParams.get('scope') ?? '').split(' ');
        assert.ok(scopes.includes('mcp:read') && scopes.includes('mcp:write'), 'asks for the union');
        assert.deepEqual(server.notes.at(-1), { text: `step-up ${era}`, principal: `lin-${era}` });
        assert.deepEqual(((await whoami(session))['scopes'] as string[]).slice().sort(), ['mcp:read', 'mcp:write']);
        assert.deepEqual(await names(), ['whoami', 'write-note']);
      } finally {
        await session.close();
      }
    });
  }
});
