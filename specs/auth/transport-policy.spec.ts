/**
 * One transport-security policy for both sides of the auth kit, refusal by refusal, each with its way out where
 * there is one:
 * - the loopback rule (http only to this machine) is the same for the OAuth client, the resource server and the
 *   command line, on case, IPv6, 127.0.0.0/8 and `localhost` (its subdomains are not loopback);
 * - `client_secret_basic` is encoded one way (RFC 6749 2.3.1 form encoding) at the introspection endpoint, the
 *   token endpoint and the revocation endpoint;
 * - JWT access tokens must be typed `at+jwt` (RFC 9068; `application/at+jwt` too) unless `accessTokenType: 'any'`;
 * - a token issued in the future beyond the clock tolerance is refused;
 * - introspection sends the token and the secret only to an HTTPS (or allowed loopback) endpoint, configured or
 *   discovered, and takes an answer without `aud` only with `requireAudience: false`;
 * - the protected-resource metadata is readable cross-origin (CORS), where the MCP endpoint refuses the origin.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type BearerAuthOptions, bearerAuth, isAuthRefusal } from '../../auth/index.ts';
import { AuthorizationError } from '../../auth/client/errors.ts';
import { clientAuthentication } from '../../auth/client/grants/client-auth.ts';
import { assertSecureUrl, oauthHttp } from '../../auth/client/http.ts';
import { settleClient } from '../../auth/client/registration.ts';
import { createMemoryOAuthStore } from '../../auth/client/store.ts';
import { TrustedIssuer } from '../../auth/issuers.ts';
import { basicAuthorization } from '../../auth/policy/client-secret-basic.ts';
import { isLoopbackHost } from '../../auth/policy/secure-url.ts';
import { authArgsOf } from '../../cli/auth-args.ts';
import { revokeStored } from '../../cli/client/login/revoke.ts';
import { createServer } from '../../server/create-server.ts';
import type { HttpRequestInfo } from '../../transports/http/index.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { type TestAuthorizationServer, signingKey, startAuthorizationServer } from './support.ts';

const RESOURCE = 'https://mcp.example.test/mcp';

/** What `authenticate` sees of a POST carrying `token`. */
function requestWith(token: string): HttpRequestInfo {
  return {
    method: 'POST',
    url: new URL(RESOURCE),
    header: (name) => (name.toLowerCase() === 'authorization' ? `Bearer ${token}` : undefined),
    native: { kind: 'fetch', request: new Request(RESOURCE, { method: 'POST' }) },
  };
}

/** The principal `authenticate` accepted, or the refusal's status and reason. */
async function judged(options: BearerAuthOptions, token: string): Promise<string> {
  try {
    const auth = await bearerAuth(options).authenticate(requestWith(token));
    return `accepted ${auth?.principal}`;
  } catch (error) {
    if (isAuthRefusal(error)) return `refused ${error.status}: ${error.message}`;
    throw error;
  }
}

const now = (): number => Math.floor(Date.now() / 1000);

describe('the loopback rule, one for every side', () => {
  const hosts: ReadonlyArray<readonly [string, boolean]> = [
    ['http://127.0.0.1:8080/', true],
    ['http://127.200.3.4/', true],
    ['http://127.1/', true],
    ['http://LOCALHOST:9/', true],
    ['http://LocalHost/', true],
    ['http://[::1]:9/', true],
    ['http://[0:0:0:0:0:0:0:1]/', true],
    ['http://auth.localhost/', false],
    ['http://localhost./', false],
    ['http://[::ffff:127.0.0.1]/', false],
    ['http://128.0.0.1/', false],
    ['http://10.0.0.1/', false],
    ['http://0.0.0.0/', false],
    ['http://127.0.0.1.example.test/', false],
    ['http://example.test/', false],
  ];

  test('http is allowed to exactly the same hosts by the OAuth client, the resource server and the command line', () => {
    for (const [raw, loopback] of hosts) {
      const url = new URL(raw);
      assert.equal(isLoopbackHost(url.hostname), loopback, raw);
      // The OAuth client.
      if (loopback) assert.equal(assertSecureUrl(raw, 'the endpoint').href, url.href);
      else assert.throws(() => assertSecureUrl(raw, 'the endpoint'), (error: unknown) => error instanceof AuthorizationError && error.failure === 'insecure-server' && /neither HTTPS nor loopback/.test(error.message), raw);
      // The resource server, with and without its opt-in.
      const allowing = new TrustedIssuer('https://as.example.test', { allowLoopbackHttp: true });
      const strict = new TrustedIssuer('https://as.example.test', { allowLoopbackHttp: false });
      if (loopback) allowing.checkTransport(url);
      else assert.throws(() => allowing.checkTransport(url), /neither HTTPS nor loopback/, raw);
      assert.throws(() => strict.checkTransport(url), loopback ? /allowed for loopback hosts only with allowLoopbackHttp/ : /neither HTTPS nor loopback/, raw);
      // The command line.
      const parse = (): unknown => authArgsOf('rxmcp serve', { 'auth-issuer': [raw], 'auth-allow-loopback-http': true });
      if (loopback) assert.ok(parse());
      else assert.throws(parse, /must be https \(plain http only to a loopback host/, raw);
      // HTTPS is fine everywhere.
      const secure = new URL(raw.replace('http:', 'https:'));
      assertSecureUrl(secure, 'the endpoint');
      strict.checkTransport(secure);
    }
    assert.equal(isLoopbackHost('127.0.0.256'), false, 'an octet past 255 is no address');
    assert.equal(isLoopbackHost('LOCALHOST'), true, 'case never matters');
    assert.throws(() => assertSecureUrl('ftp://127.0.0.1/', 'the endpoint'), /ftp: URL is neither HTTPS nor loopback/);
  });
});

describe('client_secret_basic, one encoder', () => {
  const clientId = 'rs:1 ü';
  const clientSecret = 'a+b/c d*e-f.g_h~%';
  // RFC 6749 2.3.1: each form-urlencoded (space as +, * - . _ kept), joined by ":", then base64.
  const expected = `Basic ${Buffer.from('rs%3A1+%C3%BC:a%2Bb%2Fc+d*e-f.g_h%7E%25').toString('base64')}`;

  test('the introspection request, a token request and a revocation request carry the same credentials', async () => {
    assert.equal(basicAuthorization(clientId, clientSecret), expected);
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')], { id: clientId, secret: clientSecret });
    as.introspected.set('opaque', { active: true, sub: 'lin', aud: RESOURCE, exp: now() + 300 });
    const verdict = await judged({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true, introspection: { clientId, clientSecret } }, 'opaque');
    assert.equal(verdict, 'accepted lin', 'the test server form-decodes the credentials and accepts them');
    assert.deepEqual(as.authorizations, [expected]);

    // Token requests: a grant's credentials and a pre-registered client's.
    const metadata = { issuer: as.issuer, token_endpoint: `${as.issuer}/token` };
    for (const clientAuth of [
      await clientAuthentication({ clientId, clientSecret })(metadata),
      (await settleClient(metadata, createMemoryOAuthStore(), { preRegistered: { clientId, clientSecret }, clientMetadata: {} }, oauthHttp({}))).clientAuth,
    ]) {
      const headers = new Headers();
      await clientAuth(metadata, { client_id: clientId }, new URLSearchParams(), headers);
      assert.equal(headers.get('authorization'), expected);
    }

    // `rxmcp logout` revoking with a kept confidential registration.
    const outcomes = await revokeStored({
      [`tokens ${RESOURCE} ${as.issuer}`]: { accessToken: 'at', tokenType: 'Bearer', refreshToken: 'rt' },
      [`client ${as.issuer}`]: { clientId, clientSecret, tokenEndpointAuthMethod: 'client_secret_basic' },
    });
    assert.deepEqual(outcomes, [{ issuer: as.issuer, revoked: true }]);
    assert.deepEqual(as.authorizations.slice(1), [expected, expected], 'the refresh token, then the access token');
  });
});

describe('JWT access tokens: the RFC 9068 profile', () => {
  const options = (as: TestAuthorizationServer, extra: Partial<BearerAuthOptions> = {}): BearerAuthOptions => ({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true, ...extra });
  const claims = (as: TestAuthorizationServer, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ iss: as.issuer, sub: 'ada', aud: RESOURCE, exp: now() + 300, iat: now(), ...extra });

  test('typ must be at+jwt (application/at+jwt too, in any case); accessTokenType "any" takes the others', async () => {
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT']) assert.equal(await judged(options(as), await as.mint(claims(as), { typ })), 'accepted ada', typ);
    for (const typ of ['JWT', 'jwt', null]) {
      const token = await as.mint(claims(as), { typ });
      assert.equal(await judged(options(as), token), 'refused 401: the token is not an access token (its typ header is not at+jwt, RFC 9068)', String(typ));
      assert.equal(await judged(options(as, { accessTokenType: 'any' }), token), 'accepted ada', `${String(typ)} with accessTokenType any`);
    }
    assert.throws(() => bearerAuth(options(as, { accessTokenType: 'JWT' as 'any' })), /accessTokenType is 'at\+jwt' or 'any', got "JWT"/);
  });

  test('a token issued 300 s in the future is refused; within the tolerance it is taken, and the tolerance is the knob', async () => {
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    const ahead = await as.mint(claims(as, { iat: now() + 300 }));
    assert.equal(await judged(options(as), ahead), 'refused 401: the token was issued in the future (iat)');
    assert.equal(await judged(options(as), await as.mint(claims(as, { iat: now() + 20 }))), 'accepted ada', 'within the default 30 s');
    assert.equal(await judged(options(as, { clockToleranceSec: 400 }), ahead), 'accepted ada');
  });
});

describe('introspection: the same transport rule, and an audience required', () => {
  test('a configured endpoint that is not https is refused when bearerAuth is made', async () => {
    const base = { resource: RESOURCE, authorizationServers: ['https://as.example.test'] };
    assert.throws(() => bearerAuth({ ...base, introspection: { clientId: 'rs', clientSecret: 's', endpoint: 'http://as.example.test/introspect' } }), /introspection\.endpoint: http:\/\/as\.example\.test is neither HTTPS nor loopback/);
    assert.throws(() => bearerAuth({ ...base, introspection: { clientId: 'rs', clientSecret: 's', endpoint: 'http://127.0.0.1:9/introspect' } }), /introspection\.endpoint: .*allowed for loopback hosts only with allowLoopbackHttp/);
    bearerAuth({ ...base, allowLoopbackHttp: true, introspection: { clientId: 'rs', clientSecret: 's', endpoint: 'http://127.0.0.1:9/introspect' } });
    bearerAuth({ ...base, introspection: { clientId: 'rs', clientSecret: 's', endpoint: 'https://as.example.test/introspect' } });
  });

  test('a discovered endpoint that is not https gets no token and no secret', async () => {
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    as.metadata['introspection_endpoint'] = 'http://introspection.example.test/introspect';
    as.introspected.set('opaque', { active: true, sub: 'lin', aud: RESOURCE, exp: now() + 300 });
    const verdict = await judged({ resource: RESOURCE, authorizationServers: [as.issuer], allowLoopbackHttp: true, introspection: { clientId: 'rs', clientSecret: 'rs-secret' } }, 'opaque');
    assert.equal(verdict, 'refused 401: the token could not be verified (the introspection endpoint is not https)');
    assert.deepEqual(as.authorizations, []);
  });

  test('an answer without aud is refused unless requireAudience is false; a wrong aud is refused either way', async () => {
    await using as = await startAuthorizationServer([await signingKey('ES256', 'k1')]);
    as.introspected.set('no-aud', { active: true, sub: 'lin', exp: now() + 300 });
    as.introspected.set('other-aud', { active: true, sub: 'lin', aud: 'https://other.example.test/mcp', exp: now() + 300 });
    const options = (requireAudience?: boolean): BearerAuthOptions => ({
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      allowLoopbackHttp: true,
      cache: { maxAgeMs: 0 },
      introspection: { clientId: 'rs', clientSecret: 'rs-secret', ...(requireAudience === undefined ? {} : { requireAudience }) },
    });
    assert.equal(await judged(options(), 'no-aud'), 'refused 401: the token names no audience (the introspection answer has no aud)');
    assert.equal(await judged(options(false), 'no-aud'), 'accepted lin');
    assert.equal(await judged(options(false), 'other-aud'), 'refused 401: the token is not for this resource (audience)');
  });
});

describe('the protected-resource metadata across origins', () => {
  test('a request with any Origin reads it (CORS, preflight too); the MCP endpoint still refuses that origin', async () => {
    const server = createServer({ name: 'p', version: '1' });
    const http = createStreamableHttpServer({ server, allowedOrigins: ['https://app.example.test'], ...bearerAuth({ resource: RESOURCE, authorizationServers: ['https://as.example.test'] }) });
    const { url } = await http.listen();
    try {
      const origin = 'https://elsewhere.example.test';
      const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', url);
      const read = await fetch(metadataUrl, { headers: { origin } });
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('access-control-allow-origin'), '*');
      assert.equal(((await read.json()) as { resource?: string }).resource, RESOURCE);
      const preflight = await fetch(metadataUrl, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version, bad header' } });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD');
      assert.equal(preflight.headers.get('access-control-allow-headers'), 'mcp-protocol-version', 'only header names are echoed');
      assert.equal(preflight.headers.get('access-control-allow-credentials'), null);
      const mcp = await fetch(url, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(mcp.status, 403);
      assert.match(((await mcp.json()) as { error: { message: string } }).error.message, /Origin "https:\/\/elsewhere\.example\.test" is not allowed/);
    } finally {
      await http.close();
      await server.close();
    }
  });
});
