/**
 * Interop the other way: OUR OAuth client (rxmcp/auth/client on the Streamable HTTP client transport) against a
 * server protected the SDK 1.x way (sdk-protected-server.ts: the SDK's `mcpAuthMetadataRouter` and
 * `requireBearerAuth`, a jose verifier trusting a real oidc-provider). The SDK's 401 challenge and its
 * path-aware protected-resource metadata lead our client to oidc-provider; the SDK handler sees the token's
 * subject, client and scopes. A stored token the SDK refuses (another audience) is dropped for a new login.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMemoryOAuthStore, createOAuthClient } from '../../auth/client/index.ts';
import { createClient } from '../../client/create-client.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/index.ts';
import { type OidcProviderHandle, authorize, startOidcProvider } from '../support/oidc-provider.ts';
import { type SdkProtectedServer, startSdkProtectedServer } from '../support/sdk-protected-server.ts';

describe('our OAuth client against the SDK 1.x protected server', () => {
  let op: OidcProviderHandle;
  let sdk: SdkProtectedServer;
  before(async () => {
    op = await startOidcProvider();
    sdk = await startSdkProtectedServer({
      issuer: op.issuer,
      jwksUri: op.jwksUri,
      requiredScopes: ['mcp:read'],
      scopesSupported: ['mcp:read', 'mcp:write'],
    });
    op.addResource(sdk.url, { scopes: ['mcp:read', 'mcp:write'] });
  });
  after(async () => {
    await sdk.close();
    await op.close();
  });

  test('401 from the SDK middleware, discovery, registration, PKCE login, then the SDK handler sees the caller', async () => {
    op.approval = { accountId: 'hopper' };
    const urls: URL[] = [];
    const store = createMemoryOAuthStore();
    const auth = createOAuthClient({
      redirectUri: 'http://127.0.0.1:9/callback',
      onAuthorizationUrl: async (url) => {
        urls.push(url);
        return (await authorize(url)).redirect;
      },
      store,
    });
    const session = await createClient({ name: 'rxmcp-vs-sdk', version: '1.0.0', era: 'legacy' }).connect(
      createStreamableHttpClientTransport(sdk.url, { auth }),
    );
    try {
      assert.equal(urls.length, 1);
      assert.equal(urls[0]?.searchParams.get('resource'), sdk.url);
      const result = await session.callTool('whoami');
      const me = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
      assert.equal(me['subject'], 'hopper');
      assert.equal(me['clientId'], (await store.loadClient(op.issuer))?.clientId);
      assert.deepEqual(me['scopes'], ['mcp:read']);
      assert.ok(sdk.served >= 2, 'the SDK server answered past its middleware');
    } finally {
      await session.close();
    }
  });

  test('a stored token for another resource is refused by the SDK (401 invalid_token) and replaced by a login', async () => {
    op.approval = { accountId: 'hopper' };
    const other = 'http://127.0.0.1:1/elsewhere';
    op.addResource(other, { scopes: ['mcp:read'] });
    const planted = await clientCredentialsToken(other);
    const store = createMemoryOAuthStore();
    // As if left by an earlier run: filed under this server, but minted for another audience.
    await store.saveTokens({ resource: sdk.url, issuer: op.issuer }, { accessToken: planted, tokenType: 'bearer', scope: 'mcp:read' });
    const urls: URL[] = [];
    const auth = createOAuthClient({
      redirectUri: 'http://127.0.0.1:9/callback',
      onAuthorizationUrl: async (url) => {
        urls.push(url);
        return (await authorize(url)).redirect;
      },
      store,
    });
    const session = await createClient({ name: 'rxmcp-vs-sdk', version: '1.0.0', era: 'legacy' }).connect(
      createStreamableHttpClientTransport(sdk.url, { auth }),
    );
    try {
      assert.equal(urls.length, 1, 'the refused token led to a login');
      const held = await store.loadTokens({ resource: sdk.url, issuer: op.issuer });
      assert.notEqual(held?.accessToken, planted);
      const me = JSON.parse(((await session.callTool('whoami')).content[0] as { text: string }).text) as Record<string, unknown>;
      assert.equal(me['subject'], 'hopper');
    } finally {
      await session.close();
    }
  });

  /** A client_credentials token for `resource` from a confidential client registered on the fly. */
  async function clientCredentialsToken(resource: string): Promise<string> {
    const registered = (await (
      await fetch(`${op.issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_post',
          scope: 'mcp:read',
        }),
      })
    ).json()) as { client_id: string; client_secret: string };
    const response = await fetch(op.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: registered.client_id, client_secret: registered.client_secret, resource, scope: 'mcp:read' }),
    });
    const body = (await response.json()) as { access_token?: string };
    assert.ok(typeof body.access_token === 'string');
    return body.access_token;
  }
});
