/**
 * A real authorization server for the grant and DPoP specs: oidc-provider on 127.0.0.1 with client credentials,
 * private_key_jwt, DPoP (optionally demanding nonces) and resource indicators (JWT access tokens bound to their
 * resource), plus the two grants oidc-provider leaves to its host, registered with its `registerGrantType`:
 * - JWT bearer (RFC 7523): a workload assertion signed by `workloadIssuer`, or an ID-JAG signed by an identity
 *   provider the caller names (the enterprise-managed flow), both checked with jose;
 * - token exchange (RFC 8693) on an identity provider instance: an ID token for an ID-JAG.
 * The grants' tokens are oidc-provider's own ClientCredentials tokens. Every request is recorded (grant type,
 * parameters, client authentication, DPoP header) for the specs to assert on.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
export const SCOPE = 'mcp:tools';

/** What the specs read back of one token request. */
export interface RecordedTokenRequest {
  readonly grantType: string | undefined;
  readonly body: URLSearchParams;
  readonly authorization: string | undefined;
  readonly dpop: string | undefined;
  status?: number;
}

interface OidcContext {
  readonly oidc: {
    readonly client: { readonly clientId: string };
    readonly params: Record<string, string | undefined>;
    readonly provider: { ClientCredentials: new (init: { client: unknown; scope?: string }) => { save(): Promise<string>; setAudience(aud: string): void; readonly expiration: number } };
  };
  body: unknown;
}
type GrantHandler = (ctx: OidcContext) => Promise<void>;
interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  registerGrantType(name: string, handler: GrantHandler, params: readonly string[]): void;
}
interface ProviderModule {
  readonly default: new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;
  readonly errors: Record<'InvalidGrant' | 'InvalidScope' | 'UnauthorizedClient' | 'InvalidRequest', new (description?: string) => Error>;
}

export interface ProviderOptions {
  /** Answer token requests' DPoP proofs without a nonce with `use_dpop_nonce`. */
  readonly requireDPoPNonce?: boolean;
  /** Clients beyond the defaults (oidc-provider client metadata). */
  readonly clients?: readonly Record<string, unknown>[];
  /** The identity provider whose ID-JAGs the jwt-bearer grant accepts: its issuer and public key. */
  readonly idJagIssuer?: { readonly issuer: string; readonly key: jose.CryptoKey };
  /** An identity provider instead: the token exchange grant, issuing ID-JAGs for `idTokenIssuer`'s ID tokens. */
  readonly identityProvider?: { readonly idTokenKey: jose.CryptoKey; readonly idTokenIssuer: string; readonly clientIdAtAs: string };
}

export interface RunningProvider {
  readonly issuer: string;
  readonly requests: RecordedTokenRequest[];
  /** Signs workload assertions (aud must be this issuer to pass). */
  readonly workloadKey: jose.CryptoKey;
  readonly workloadIssuer: string;
  /** This instance's ID-JAG signing key (identity providers only). */
  readonly jagKey: jose.GenerateKeyPairResult;
  close(): Promise<void>;
}

/** A client secret the default clients share. */
export const SECRET = 'a-secret-long-enough-for-oidc-provider-0123456789';

export async function startProvider(options: ProviderOptions = {}): Promise<RunningProvider> {
  const moduleName: string = 'oidc-provider';
  const { default: Provider, errors } = (await import(moduleName)) as ProviderModule;
  const requests: RecordedTokenRequest[] = [];
  // The provider needs its issuer (our port) before it exists: requests reach it through this slot.
  const slot: { handler?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/token') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const recorded: RecordedTokenRequest = {
          grantType: body.get('grant_type') ?? undefined,
          body,
          authorization: req.headers.authorization,
          dpop: typeof req.headers.dpop === 'string' ? req.headers.dpop : undefined,
        };
        requests.push(recorded);
        res.on('finish', () => (recorded.status = res.statusCode));
      });
    }
    slot.handler?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signing = await jose.generateKeyPair('ES256', { extractable: true });
  const rsa = await jose.generateKeyPair('RS256', { extractable: true });
  const workload = await jose.generateKeyPair('ES256');
  const jagKey = await jose.generateKeyPair('ES256');
  const workloadIssuer = 'https://workload-issuer.test';
  const grantTypes = ['client_credentials', JWT_BEARER];
  const provider = new Provider(issuer, {
    clients: [
      { client_id: 'cc-basic', client_secret: SECRET, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPE },
      { client_id: 'cc-post', client_secret: SECRET, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPE, token_endpoint_auth_method: 'client_secret_post' },
      { client_id: 'workload', grant_types: [JWT_BEARER], redirect_uris: [], response_types: [], scope: SCOPE, token_endpoint_auth_method: 'none' },
      { client_id: 'xaa-client', client_secret: SECRET, grant_types: [JWT_BEARER], redirect_uris: [], response_types: [], scope: SCOPE },
      ...(options.identityProvider === undefined ? [] : [{ client_id: 'idp-client', grant_types: [TOKEN_EXCHANGE], redirect_uris: [], response_types: [], token_endpoint_auth_method: 'none' }]),
      ...(options.clients ?? []),
    ],
    jwks: { keys: [{ ...(await jose.exportJWK(signing.privateKey)), alg: 'ES256', use: 'sig', kid: 'es' }, { ...(await jose.exportJWK(rsa.privateKey)), alg: 'RS256', use: 'sig', kid: 'rs' }] },
    scopes: [SCOPE],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => options.requireDPoPNonce === true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({ scope: SCOPE, audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
      },
    },
  });

  // JWT bearer: a workload's platform token, or an ID-JAG from the configured identity provider.
  provider.registerGrantType(
    JWT_BEARER,
    async (ctx) => {
      const { client, params } = ctx.oidc;
      const assertion = params['assertion'];
      if (assertion === undefined) throw new errors.InvalidRequest('missing assertion');
      const scope = params['scope'];
      if (scope !== undefined && scope.split(' ').some((s) => s !== SCOPE)) throw new errors.InvalidScope('requested scope is not allowed');
      if (client.clientId === 'xaa-client') {
        const jag = options.idJagIssuer;
        if (jag === undefined) throw new errors.UnauthorizedClient('no identity provider is trusted');
        const { payload } = await jose
          .jwtVerify(assertion, jag.key, { issuer: jag.issuer, audience: issuer, typ: 'oauth-id-jag+jwt' })
          .catch(() => Promise.reject(new errors.InvalidGrant('ID-JAG rejected')));
        if (payload['client_id'] !== client.clientId) throw new errors.InvalidGrant('ID-JAG was issued to another client');
        if (params['resource'] !== undefined && payload['resource'] !== params['resource']) throw new errors.InvalidGrant('ID-JAG is for another resource');
      } else {
        await jose.jwtVerify(assertion, workload.publicKey, { issuer: workloadIssuer, audience: issuer }).catch(() => Promise.reject(new errors.InvalidGrant('assertion rejected')));
      }
      const token = new ctx.oidc.provider.ClientCredentials(scope === undefined ? { client } : { client, scope });
      ctx.body = { access_token: await token.save(), token_type: 'Bearer', expires_in: token.expiration, ...(scope === undefined ? {} : { scope }) };
    },
    ['assertion', 'scope', 'resource'],
  );
  // Token exchange at an identity provider: the user's ID token for an ID-JAG naming the audience and resource.
  if (options.identityProvider !== undefined) {
    const idp = options.identityProvider;
    grantTypes.push(TOKEN_EXCHANGE);
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const { client, params } = ctx.oidc;
        if (params['requested_token_type'] !== ID_JAG) throw new errors.InvalidRequest('only ID-JAGs are issued here');
        if (params['subject_token_type'] !== 'urn:ietf:params:oauth:token-type:id_token') throw new errors.InvalidRequest('the subject must be an ID token');
        const audience = params['audience'];
        const resource = params['resource'];
        if (audience === undefined || resource === undefined) throw new errors.InvalidRequest('audience and resource are required');
        const { payload } = await jose
          .jwtVerify(params['subject_token'] ?? '', idp.idTokenKey, { issuer: idp.idTokenIssuer, audience: client.clientId })
          .catch(() => Promise.reject(new errors.InvalidGrant('ID token rejected')));
        const jag = await new jose.SignJWT({ sub: payload.sub ?? 'unknown', resource, client_id: idp.clientIdAtAs, ...(params['scope'] === undefined ? {} : { scope: params['scope'] }) })
          .setProtectedHeader({ alg: 'ES256', typ: 'oauth-id-jag+jwt' })
          .setIssuer(issuer)
          .setAudience(audience)
          .setIssuedAt()
          .setExpirationTime('5m')
          .setJti(crypto.randomUUID())
          .sign(jagKey.privateKey);
        ctx.body = { access_token: jag, issued_token_type: ID_JAG, token_type: 'N_A', expires_in: 300 };
      },
      ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
    );
  }
  slot.handler = provider.callback();
  return {
    issuer,
    requests,
    workloadKey: workload.privateKey,
    workloadIssuer,
    jagKey,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A workload's platform token for `audience` (the authorization server's issuer). */
export async function workloadAssertion(provider: RunningProvider, audience: string, expiresIn = '5m'): Promise<string> {
  return new jose.SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(provider.workloadIssuer)
    .setSubject('system:serviceaccount:mcp:agent')
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(provider.workloadKey);
}
