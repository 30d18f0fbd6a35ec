/**
 * The grants of rxmcp/auth/client against a real authorization server (oidc-provider, specs/support/
 * oidc-grants-provider.ts): client credentials with a secret (basic, post) and with private_key_jwt (ES256 PEM,
 * RS256 CryptoKey), DPoP-bound tokens (with and without the server's nonce), workload identity (JWT bearer; a
 * refusal is one request, never retried), and the enterprise-managed flow (token exchange at an identity
 * provider for an ID-JAG, then JWT bearer at the authorization server).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import * as oauth from 'oauth4webapi';
import { clientCredentials, dpop, enterpriseManaged, jwtBearer } from '../../../auth/client/index.ts';
import type { GrantContext } from '../../../auth/client/grant.ts';
import { ID_JAG, JWT_BEARER, type RunningProvider, SCOPE, SECRET, startProvider, TOKEN_EXCHANGE, workloadAssertion } from '../../support/oidc-grants-provider.ts';

const RESOURCE = 'http://127.0.0.1:9/mcp';
const loopback = { [oauth.allowInsecureRequests]: true } as const;

async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  return oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { ...loopback, algorithm: 'oidc' }));
}

function context(as: oauth.AuthorizationServer, dpopHandle?: oauth.DPoPHandle, scope: string | undefined = SCOPE): GrantContext {
  // The client and its auth are the flow's; grants that bring their own identity ignore them.
  return { as, client: { client_id: 'unused' }, clientAuth: oauth.None(), resource: RESOURCE, scope, dpop: dpopHandle, http: loopback };
}

/** The OAuth error code of a token endpoint refusal (in the body, or in a 401's WWW-Authenticate challenge). */
async function rejection(promise: Promise<unknown>): Promise<{ readonly error: string | undefined }> {
  const error = await promise.then(
    () => assert.fail('the grant should have been refused'),
    (reason: unknown) => reason,
  );
  if (error instanceof oauth.WWWAuthenticateChallengeError) return { error: error.cause[0]?.parameters.error };
  assert.ok(error instanceof oauth.ResponseBodyError, `a token endpoint refusal, got ${String(error)}`);
  return error;
}

describe('grants against oidc-provider', () => {
  let provider: RunningProvider;
  let as: oauth.AuthorizationServer;
  let es256: jose.GenerateKeyPairResult;
  let rs256: jose.GenerateKeyPairResult;

  before(async () => {
    es256 = await jose.generateKeyPair('ES256', { extractable: true });
    rs256 = await jose.generateKeyPair('RS256', { extractable: true });
    const keyClient = async (clientId: string, key: jose.CryptoKey, alg: string): Promise<Record<string, unknown>> => ({
      client_id: clientId,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: SCOPE,
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: alg,
      jwks: { keys: [{ ...(await jose.exportJWK(key)), alg }] },
    });
    provider = await startProvider({ clients: [await keyClient('cc-es256', es256.publicKey, 'ES256'), await keyClient('cc-rs256', rs256.publicKey, 'RS256')] });
    as = await discover(provider.issuer);
  });
  after(() => provider.close());

  test('client credentials with client_secret_basic: a JWT access token for the resource', async () => {
    const grant = clientCredentials({ clientId: 'cc-basic', clientSecret: SECRET });
    assert.equal(grant.clientId, 'cc-basic');
    assert.equal(grant.final, false);
    const tokens = await grant(context(as));
    assert.equal(tokens.token_type, 'bearer');
    const claims = jose.decodeJwt(tokens.access_token);
    assert.equal(claims.aud, RESOURCE);
    assert.equal(claims['client_id'], 'cc-basic');
    assert.equal(claims['scope'], SCOPE);
    const request = provider.requests.at(-1);
    assert.equal(request?.grantType, 'client_credentials');
    assert.equal(request?.body.get('resource'), RESOURCE);
    assert.equal(request?.body.has('client_secret'), false);
    assert.equal(request?.authorization, `Basic ${Buffer.from(`cc-basic:${SECRET}`).toString('base64')}`);
  });

  test('client credentials with client_secret_post: the secret in the body', async () => {
    const tokens = await clientCredentials({ clientId: 'cc-post', clientSecret: SECRET, method: 'client_secret_post' })(context(as));
    assert.equal(jose.decodeJwt(tokens.access_token)['client_id'], 'cc-post');
    const request = provider.requests.at(-1);
    assert.equal(request?.body.get('client_secret'), SECRET);
    assert.equal(request?.authorization, undefined);
  });

  test('client credentials with a wrong secret is refused with invalid_client', async () => {
    const error = await rejection(clientCredentials({ clientId: 'cc-basic', clientSecret: 'wrong' })(context(as)));
    assert.equal(error.error, 'invalid_client');
  });

  test('private_key_jwt from an ES256 PKCS#8 PEM: iss = sub = client_id, aud = the issuer', async () => {
    const pem = await jose.exportPKCS8(es256.privateKey);
    const tokens = await clientCredentials({ clientId: 'cc-es256', privateKey: pem, algorithm: 'ES256' })(context(as));
    assert.equal(jose.decodeJwt(tokens.access_token)['client_id'], 'cc-es256');
    const request = provider.requests.at(-1);
    assert.equal(request?.body.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    const assertion = request?.body.get('client_assertion') ?? '';
    const { payload, protectedHeader } = await jose.jwtVerify(assertion, es256.publicKey, { audience: provider.issuer });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.iss, 'cc-es256');
    assert.equal(payload.sub, 'cc-es256');
  });

  test('private_key_jwt from an RS256 CryptoKey', async () => {
    const tokens = await clientCredentials({ clientId: 'cc-rs256', privateKey: rs256.privateKey })(context(as));
    assert.equal(jose.decodeJwt(tokens.access_token)['client_id'], 'cc-rs256');
    assert.equal(jose.decodeProtectedHeader(provider.requests.at(-1)?.body.get('client_assertion') ?? '').alg, 'RS256');
  });

  test('private_key_jwt signed by a key the server does not know is refused', async () => {
    const stranger = await jose.generateKeyPair('ES256');
    const error = await rejection(clientCredentials({ clientId: 'cc-es256', privateKey: stranger.privateKey })(context(as)));
    assert.equal(error.error, 'invalid_client');
  });

  test('DPoP: the token request carries a proof and the token is bound to its key', async () => {
    const binding = dpop();
    const handle = await binding.handle(as);
    const tokens = await clientCredentials({ clientId: 'cc-basic', clientSecret: SECRET })(context(as, handle));
    assert.equal(tokens.token_type, 'dpop');
    const claims = jose.decodeJwt(tokens.access_token);
    assert.deepEqual(claims['cnf'], { jkt: await handle.calculateThumbprint() });
    const proof = provider.requests.at(-1)?.dpop ?? '';
    assert.equal(jose.decodeProtectedHeader(proof).typ, 'dpop+jwt');
    assert.equal(jose.decodeJwt(proof)['htu'], `${provider.issuer}/token`);
  });

  test('workload identity: the platform JWT as the assertion, token endpoint auth none', async () => {
    const assertion = await workloadAssertion(provider, provider.issuer);
    const grant = jwtBearer({ clientId: 'workload', assertion });
    assert.equal(grant.final, true);
    assert.equal(grant.grantType, JWT_BEARER);
    const tokens = await grant(context(as));
    assert.equal(tokens.token_type, 'bearer');
    const request = provider.requests.at(-1);
    assert.equal(request?.grantType, JWT_BEARER);
    assert.equal(request?.body.get('assertion'), assertion);
    assert.equal(request?.body.get('client_id'), 'workload');
    assert.equal(request?.authorization, undefined);
    assert.equal(request?.body.get('resource'), RESOURCE);
  });

  test('workload identity: an expired or misaddressed assertion is refused once, with no retry', async () => {
    for (const assertion of [await workloadAssertion(provider, provider.issuer, '-60s'), await workloadAssertion(provider, 'https://elsewhere.test')]) {
      const before = provider.requests.length;
      let calls = 0;
      const grant = jwtBearer({
        clientId: 'workload',
        assertion: () => {
          calls += 1;
          return assertion;
        },
      });
      const error = await rejection(grant(context(as)));
      assert.equal(error.error, 'invalid_grant');
      assert.equal(provider.requests.length - before, 1, 'exactly one token request');
      assert.equal(calls, 1);
    }
  });

  test('workload identity: a scope the server refuses gives invalid_scope', async () => {
    const grant = jwtBearer({ clientId: 'workload', assertion: await workloadAssertion(provider, provider.issuer) });
    const error = await rejection(grant(context(as, undefined, 'admin')));
    assert.equal(error.error, 'invalid_scope');
  });
});

describe('DPoP nonces at the authorization server', () => {
  let provider: RunningProvider;
  let as: oauth.AuthorizationServer;
  before(async () => {
    provider = await startProvider({ requireDPoPNonce: true });
    as = await discover(provider.issuer);
  });
  after(() => provider.close());

  test('use_dpop_nonce is answered by one retry carrying the nonce', async () => {
    const handle = await dpop().handle(as);
    const tokens = await clientCredentials({ clientId: 'cc-basic', clientSecret: SECRET })(context(as, handle));
    assert.equal(tokens.token_type, 'dpop');
    const [first, second] = provider.requests.slice(-2);
    assert.equal(first?.status, 400);
    assert.equal(jose.decodeJwt(first?.dpop ?? '')['nonce'], undefined);
    assert.equal(typeof jose.decodeJwt(second?.dpop ?? '')['nonce'], 'string');
    assert.equal(second?.status, 200);
  });
});

describe('enterprise-managed authorization (ID-JAG)', () => {
  let idp: RunningProvider;
  let authorizationServer: RunningProvider;
  let as: oauth.AuthorizationServer;
  const sso = { issuer: 'https://sso.example.test' };
  let ssoKey: jose.GenerateKeyPairResult;

  before(async () => {
    ssoKey = await jose.generateKeyPair('ES256');
    idp = await startProvider({ identityProvider: { idTokenKey: ssoKey.publicKey, idTokenIssuer: sso.issuer, clientIdAtAs: 'xaa-client' } });
    authorizationServer = await startProvider({ idJagIssuer: { issuer: idp.issuer, key: idp.jagKey.publicKey } });
    as = await discover(authorizationServer.issuer);
  });
  after(async () => {
    await idp.close();
    await authorizationServer.close();
  });

  const idToken = (audience: string): Promise<string> =>
    new jose.SignJWT({ email: 'ada@example.test' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(sso.issuer)
      .setSubject('ada')
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(ssoKey.privateKey);

  test('token exchange at the IdP for an ID-JAG, then the JWT bearer grant at the authorization server', async () => {
    const grant = enterpriseManaged({
      idp: { issuer: idp.issuer },
      idpClient: { clientId: 'idp-client' },
      subjectToken: await idToken('idp-client'),
      client: { clientId: 'xaa-client', clientSecret: SECRET },
    });
    assert.equal(grant.clientId, 'xaa-client');
    const tokens = await grant(context(as));
    assert.equal(tokens.token_type, 'bearer');
    const exchange = idp.requests.at(-1);
    assert.equal(exchange?.grantType, TOKEN_EXCHANGE);
    assert.equal(exchange?.body.get('requested_token_type'), ID_JAG);
    assert.equal(exchange?.body.get('audience'), authorizationServer.issuer);
    assert.equal(exchange?.body.get('resource'), RESOURCE);
    assert.equal(exchange?.body.get('client_id'), 'idp-client');
    const bearer = authorizationServer.requests.at(-1);
    assert.equal(bearer?.grantType, JWT_BEARER);
    assert.equal(bearer?.authorization, `Basic ${Buffer.from(`xaa-client:${SECRET}`).toString('base64')}`);
    assert.equal(jose.decodeProtectedHeader(bearer?.body.get('assertion') ?? '').typ, 'oauth-id-jag+jwt');
  });

  test('an ID token the IdP does not accept stops the flow at the IdP', async () => {
    const before = authorizationServer.requests.length;
    const grant = enterpriseManaged({
      idp: { issuer: idp.issuer, tokenEndpoint: `${idp.issuer}/token` },
      idpClient: { clientId: 'idp-client' },
      subjectToken: () => idToken('another-client'),
      client: { clientId: 'xaa-client', clientSecret: SECRET },
    });
    const error = await rejection(grant(context(as)));
    assert.equal(error.error, 'invalid_grant');
    assert.equal(authorizationServer.requests.length, before, 'nothing reached the authorization server');
  });
});
