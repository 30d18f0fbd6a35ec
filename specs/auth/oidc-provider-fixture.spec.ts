/**
 * The real authorization server the auth specs use (specs/support/oidc-provider.ts): discovery at both
 * locations, a client_credentials token for an MCP resource (basic and private_key_jwt), an authorization-code
 * token with PKCE and `resource` through the headless interaction, refresh, dynamic registration, denial, and
 * every access token verified with jose against the provider's JWKS (issuer, `aud` = the resource).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { authorize, type OidcProviderHandle, startOidcProvider } from '../support/oidc-provider.ts';

const RESOURCE = 'http://127.0.0.1:1/mcp';
const REDIRECT = 'http://127.0.0.1:2/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('oidc-provider fixture', () => {
  let op: OidcProviderHandle;
  let as: oauth.AuthorizationServer;
  const jwtKeys = generateKeyPair('ES256', { extractable: true });

  before(async () => {
    const keys = await jwtKeys;
    op = await startOidcProvider({
      resources: { [RESOURCE]: { scopes: ['mcp:read', 'mcp:write'] } },
      clients: [
        { client_id: 'public-app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        {
          client_id: 'robot',
          client_secret: 'robot-secret-robot-secret-robot-secret',
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: 'mcp:read',
        },
        {
          client_id: 'signed-robot',
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'ES256',
          jwks: { keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'robot-key', alg: 'ES256', use: 'sig' }] },
          scope: 'mcp:read mcp:write',
        },
      ],
    });
    as = await oauth.processDiscoveryResponse(
      new URL(op.issuer),
      await oauth.discoveryRequest(new URL(op.issuer), { algorithm: 'oauth2', ...insecure }),
    );
  });
  after(async () => op.close());

  async function verify(token: string): Promise<Record<string, unknown>> {
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(op.jwksUri)), {
      issuer: op.issuer,
      audience: RESOURCE,
    });
    return payload;
  }

  test('serves RFC 8414 and OpenID discovery with S256, resource-capable endpoints', async () => {
    assert.equal(as.issuer, op.issuer);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.ok(as.registration_endpoint?.startsWith(op.issuer));
    assert.ok(as.grant_types_supported?.includes('client_credentials'));
    assert.ok(as.dpop_signing_alg_values_supported?.includes('ES256'));
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    const openid = await oauth.processDiscoveryResponse(
      new URL(op.issuer),
      await oauth.discoveryRequest(new URL(op.issuer), { algorithm: 'oidc', ...insecure }),
    );
    assert.equal(openid.token_endpoint, as.token_endpoint);
  });

  test('client_credentials (client_secret_basic) gives a JWT for the resource, verified with jose', async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: 'robot' },
      oauth.ClientSecretBasic('robot-secret-robot-secret-robot-secret'),
      { resource: RESOURCE, scope: 'mcp:read' },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: 'robot' }, response);
    const claims = await verify(tokens.access_token);
    assert.equal(claims['client_id'], 'robot');
    assert.equal(claims['scope'], 'mcp:read');
  });

  test('client_credentials refuses a scope the client was not given and an unknown resource', async () => {
    const wrongScope = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: 'robot' },
      oauth.ClientSecretBasic('robot-secret-robot-secret-robot-secret'),
      { resource: RESOURCE, scope: 'mcp:write' },
      insecure,
    );
    await assert.rejects(oauth.processClientCredentialsResponse(as, { client_id: 'robot' }, wrongScope), {
      error: 'invalid_scope',
    });
    const unknown = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: 'robot' },
      oauth.ClientSecretBasic('robot-secret-robot-secret-robot-secret'),
      { resource: 'http://127.0.0.1:3/other', scope: 'mcp:read' },
      insecure,
    );
    await assert.rejects(oauth.processClientCredentialsResponse(as, { client_id: 'robot' }, unknown), {
      error: 'invalid_target',
    });
  });

  test('client_credentials with private_key_jwt', async () => {
    const { privateKey } = await jwtKeys;
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: 'signed-robot' },
      oauth.PrivateKeyJwt({ key: privateKey, kid: 'robot-key' }),
      { resource: RESOURCE, scope: 'mcp:read mcp:write' },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: 'signed-robot' }, response);
    assert.equal((await verify(tokens.access_token))['scope'], 'mcp:read mcp:write');
  });

  test('client_credentials with DPoP binds the token to the key (cnf.jkt)', async () => {
    const dpop = oauth.DPoP({}, await oauth.generateKeyPair('ES256'));
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: 'robot' },
      oauth.ClientSecretBasic('robot-secret-robot-secret-robot-secret'),
      { resource: RESOURCE, scope: 'mcp:read' },
      { DPoP: dpop, ...insecure },
    );
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: 'robot' }, response);
    assert.equal(tokens.token_type, 'dpop');
    const cnf = (await verify(tokens.access_token))['cnf'] as { jkt?: unknown } | undefined;
    assert.equal(typeof cnf?.jkt, 'string');
  });

  async function codeFlow(clientId: string, scope: string): Promise<oauth.TokenEndpointResponse> {
    const client: oauth.Client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope,
      state,
      resource: RESOURCE,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const { redirect } = await authorize(url);
    assert.equal(redirect.origin + redirect.pathname, REDIRECT);
    const params = oauth.validateAuthResponse(as, client, redirect, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
      additionalParameters: { resource: RESOURCE },
      ...insecure,
    });
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  test('authorization code + PKCE + resource through the headless interaction, then refresh', async () => {
    op.approval = { accountId: 'alice' };
    const tokens = await codeFlow('public-app', 'mcp:read');
    const claims = await verify(tokens.access_token);
    assert.equal(claims['sub'], 'alice');
    assert.equal(claims['scope'], 'mcp:read');
    assert.ok(typeof tokens.refresh_token === 'string');
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      { client_id: 'public-app' },
      await oauth.refreshTokenGrantRequest(as, { client_id: 'public-app' }, oauth.None(), tokens.refresh_token, {
        additionalParameters: { resource: RESOURCE },
        ...insecure,
      }),
    );
    assert.notEqual(refreshed.access_token, tokens.access_token);
    assert.equal((await verify(refreshed.access_token))['sub'], 'alice');
  });

  test('an authorization request without PKCE is refused', async () => {
    const url = new URL(as.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      client_id: 'public-app',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'mcp:read',
      resource: RESOURCE,
    }).toString();
    const { redirect } = await authorize(url);
    assert.equal(redirect.searchParams.get('error'), 'invalid_request');
    assert.match(redirect.searchParams.get('error_description') ?? '', /PKCE/);
  });

  test('dynamic registration, then the code flow; a denied consent answers access_denied', async () => {
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'] },
        insecure,
      ),
    );
    op.approval = { accountId: 'bob' };
    const tokens = await codeFlow(registered.client_id, 'mcp:read mcp:write');
    const claims = await verify(tokens.access_token);
    assert.equal(claims['sub'], 'bob');
    assert.equal(claims['scope'], 'mcp:read mcp:write');
    assert.equal(tokens.refresh_token, undefined, 'not allowed the refresh_token grant');

    op.approval = { deny: true };
    await assert.rejects(codeFlow(registered.client_id, 'mcp:read'), { error: 'access_denied' });
    op.approval = {};
  });

  test('with dpopNonces, the first DPoP token request is answered use_dpop_nonce, the retry succeeds', async () => {
    await using strict = await startOidcProvider({
      dpopNonces: true,
      resources: { [RESOURCE]: { scopes: ['mcp:read'] } },
      clients: [
        {
          client_id: 'robot',
          client_secret: 'robot-secret-robot-secret-robot-secret',
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: 'mcp:read',
        },
      ],
    });
    const strictAs = await oauth.processDiscoveryResponse(
      new URL(strict.issuer),
      await oauth.discoveryRequest(new URL(strict.issuer), { algorithm: 'oauth2', ...insecure }),
    );
    const dpop = oauth.DPoP({}, await oauth.generateKeyPair('ES256'));
    const request = async (): Promise<oauth.TokenEndpointResponse> =>
      oauth.processClientCredentialsResponse(
        strictAs,
        { client_id: 'robot' },
        await oauth.clientCredentialsGrantRequest(
          strictAs,
          { client_id: 'robot' },
          oauth.ClientSecretBasic('robot-secret-robot-secret-robot-secret'),
          { resource: RESOURCE, scope: 'mcp:read' },
          { DPoP: dpop, ...insecure },
        ),
      );
    const first = await request().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(oauth.isDPoPNonceError(first), 'the first request needs a nonce');
    assert.equal((await request()).token_type, 'dpop');
  });

  test('a token signed by another key is refused by the JWKS check', async () => {
    const { SignJWT } = await import('jose');
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({ scope: 'mcp:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'es256-1' })
      .setIssuer(op.issuer)
      .setAudience(RESOURCE)
      .setExpirationTime('5m')
      .sign(other.privateKey);
    await assert.rejects(verify(forged), /signature/);
  });
});
