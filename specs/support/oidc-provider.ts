/**
 * A real OAuth 2.1 / OpenID authorization server for specs: `oidc-provider` (v9) on a free port of 127.0.0.1.
 *
 * - Clients: pre-registered ones from the options (public with `none`, confidential with `client_secret_basic`/
 *   `_post` or `private_key_jwt`), plus open dynamic registration (RFC 7591).
 * - PKCE S256 required for every authorization-code client; resource indicators (RFC 8707): each registered
 *   resource (an MCP server's canonical URI) gets JWT access tokens whose `aud` is that URI and whose scopes are
 *   the resource's; client credentials; DPoP (optionally with nonces); refresh tokens for clients allowed the grant.
 * - Both discovery documents: RFC 8414 `/.well-known/oauth-authorization-server` (unless turned off, to prove a
 *   client's OpenID fallback) and `/.well-known/openid-configuration`.
 * - Headless interactions: `/interaction/<uid>` completes login and consent itself, as the `approval` setting says,
 *   so `authorize(url)` can follow the authorization URL with a cookie jar to the redirect carrying the code.
 *
 * Disposable (`await using`): closes its listener and every open connection.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { errors, type InteractionDetails, type ResourceServerInfo } from 'oidc-provider';

/** Client metadata as RFC 7591 names it (snake_case), passed to oidc-provider as is. */
export type ClientMetadata = Readonly<Record<string, unknown>> & { readonly client_id: string };

export interface ResourceServerOptions {
  /** The scopes this resource knows (space-separated scope values are accepted only from this list). */
  readonly scopes: readonly string[];
  /** Access token lifetime in seconds (default 600). */
  readonly accessTokenTtlSeconds?: number;
}

/** What the headless interaction does with the next authorization request. */
export interface Approval {
  /** The end user who logs in (default `alice`). */
  readonly accountId?: string;
  /** Refuse consent: the client gets `error=access_denied`. */
  readonly deny?: boolean;
}

export interface OidcProviderOptions {
  /**
   * Every scope value the provider knows besides `openid`/`offline_access` (client metadata may only name these;
   * a resource's scopes must be among them). Default: `mcp:read`, `mcp:write`, `mcp:admin`.
   */
  readonly scopes?: readonly string[];
  readonly clients?: readonly ClientMetadata[];
  /** Resources (canonical URIs) known from the start; more with `addResource`. */
  readonly resources?: Readonly<Record<string, ResourceServerOptions>>;
  /** Serve RFC 8414 metadata at `/.well-known/oauth-authorization-server` (default true). */
  readonly rfc8414Metadata?: boolean;
  /** Require DPoP nonces (RFC 9449 section 8) at the token endpoint (default false). */
  readonly dpopNonces?: boolean;
  /** Open dynamic client registration (default true). */
  readonly registration?: boolean;
  /**
   * Drop the `scope` a dynamically registered client names (default false: oidc-provider then refuses it any
   * other scope). Clients that register with the scope of the first challenge cannot step up otherwise.
   */
  readonly ignoreRegisteredScope?: boolean;
  /** Refresh token lifetime in seconds (default 3600). */
  readonly refreshTokenTtlSeconds?: number;
}

export interface OidcProviderHandle extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` (no trailing slash): the issuer identifier. */
  readonly issuer: string;
  readonly port: number;
  /** The JWKS URI the resource server should trust. */
  readonly jwksUri: string;
  readonly tokenEndpoint: string;
  readonly provider: Provider;
  /** What the next interactions do (mutable). */
  approval: Approval;
  /** Adds (or replaces) a resource server whose tokens this provider issues. */
  addResource(resource: string, options: ResourceServerOptions): void;
  /** How many token endpoint responses carried an access token (refresh proofs read it). */
  readonly tokensIssued: number;
  close(): Promise<void>;
}

const DEFAULT_ACCESS_TTL = 600;
const DEFAULT_SCOPES = ['mcp:read', 'mcp:write', 'mcp:admin'];
const MAX_REDIRECT_HOPS = 12;

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProviderHandle> {
  const resources = new Map<string, ResourceServerOptions>(Object.entries(options.resources ?? {}));
  let tokensIssued = 0;
  const state: { provider?: Provider } = {};

  const server: Server = createServer((req, res) => {
    const provider = state.provider;
    if (provider === undefined) {
      res.writeHead(503).end();
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path.startsWith('/interaction/') && req.method === 'GET') {
      void completeInteraction(provider, req, res, handle.approval).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(error instanceof Error ? error.message : 'interaction failed');
      });
      return;
    }
    if (path === '/.well-known/oauth-authorization-server' && options.rfc8414Metadata !== false) {
      // Same document, RFC 8414 location (oidc-provider serves only the OpenID one).
      req.url = '/.well-known/openid-configuration';
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [...(options.clients ?? [])],
    jwks: { keys: await signingKeys() },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub }),
    }),
    scopes: ['openid', 'offline_access', ...(options.scopes ?? DEFAULT_SCOPES)],
    pkce: { required: () => true },
    // Refresh tokens for every client allowed the grant (MCP clients rarely ask for offline_access).
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    ttl: {
      // A resource's own lifetime wins (refresh specs use short-lived tokens).
      AccessToken: resourceTtl,
      AuthorizationCode: 60,
      ClientCredentials: resourceTtl,
      Grant: 3600,
      IdToken: 600,
      Interaction: 600,
      RefreshToken: options.refreshTokenTtlSeconds ?? 3600,
      Session: 3600,
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: {
      clientAuthSigningAlgValues: ['ES256', 'RS256', 'EdDSA'],
      dPoPSigningAlgValues: ['ES256', 'RS256', 'EdDSA'],
    },
    ...(options.ignoreRegisteredScope === true
      ? {
          extraClientMetadata: {
            properties: ['rxmcp_unused'],
            // Runs before the metadata is read: a registration's `scope` is forgotten, so no scope is off limits.
            validator: (ctx: { oidc?: { route?: string } } | undefined, _key: string, _value: unknown, metadata: Record<string, unknown>) => {
              if (ctx?.oidc?.route === 'registration') delete metadata['scope'];
            },
          },
        }
      : {}),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: options.registration !== false, initialAccessToken: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      dPoP: {
        enabled: true,
        ...(options.dpopNonces === true
          ? { nonceSecret: randomBytes(32), requireNonce: () => true }
          : {}),
      },
      resourceIndicators: {
        enabled: true,
        // A request naming exactly one resource gets tokens for it; none named: an opaque userinfo token.
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string | string[]) => oneOf,
        // The resource of the authorization request also applies at the token endpoint and on refresh.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string): ResourceServerInfo => {
          const known = resources.get(resource);
          if (known === undefined) throw new errors.InvalidTarget('unknown resource');
          return {
            scope: known.scopes.join(' '),
            audience: resource,
            accessTokenTTL: known.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TTL,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // Loopback test clients: any origin may call the token endpoint from a browser-like client.
    clientBasedCORS: () => true,
    // Default cookie keys would log a warning; these are per run.
    cookies: { keys: [randomUUID()] },
  });
  provider.on('access_token.issued', () => {
    tokensIssued += 1;
  });
  provider.on('client_credentials.issued', () => {
    tokensIssued += 1;
  });
  state.provider = provider;

  const close = async (): Promise<void> => {
    if (!server.listening) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  const handle: OidcProviderHandle = {
    issuer,
    port,
    jwksUri: `${issuer}/jwks`,
    tokenEndpoint: `${issuer}/token`,
    provider,
    approval: {},
    addResource: (resource, resourceOptions) => {
      resources.set(resource, resourceOptions);
    },
    get tokensIssued() {
      return tokensIssued;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
  return handle;
}

function resourceTtl(_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }): number {
  return token.resourceServer?.accessTokenTTL ?? DEFAULT_ACCESS_TTL;
}

/** An ES256 key for JWT access tokens and ID tokens, and an RS256 one for clients that insist. */
async function signingKeys(): Promise<JWK[]> {
  const ec = await generateKeyPair('ES256', { extractable: true });
  const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  return [
    { ...(await exportJWK(ec.privateKey)), kid: 'es256-1', alg: 'ES256', use: 'sig' },
    { ...(await exportJWK(rsa.privateKey)), kid: 'rs256-1', alg: 'RS256', use: 'sig' },
  ];
}

/** Login then consent, decided by the approval setting instead of a form. */
async function completeInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
  approval: Approval,
): Promise<void> {
  const details: InteractionDetails = await provider.interactionDetails(req, res);
  if (approval.deny === true) {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'the end user refused' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: approval.accountId ?? 'alice' } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const accountId = details.session?.accountId ?? approval.accountId ?? 'alice';
  const clientId = String(details.params['client_id']);
  const grant =
    (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
    new provider.Grant({ accountId, clientId });
  for (const scope of details.prompt.details.missingOIDCScope ?? []) grant.addOIDCScope(scope);
  for (const [resource, scopes] of Object.entries(details.prompt.details.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * Follows an authorization URL the way a browser would (cookies kept for the issuer's origin), through the
 * headless login and consent, and returns the URL the provider finally redirects to (the client's redirect URI
 * with `code`/`state`/`iss`, or with `error`). With `deliver`, also requests that URL (so a loopback listener
 * receives it) and returns its response.
 */
export async function authorize(
  authorizationUrl: string | URL,
  options: { readonly deliver?: boolean; readonly signal?: AbortSignal } = {},
): Promise<{ redirect: URL; delivered?: Response }> {
  const start = new URL(authorizationUrl);
  const cookies = new Map<string, string>();
  let current = start;
  for (let hop = 0; hop < MAX_REDIRECT_HOPS; hop += 1) {
    if (current.origin !== start.origin) {
      if (options.deliver !== true) return { redirect: current };
      const delivered = await fetch(current, { redirect: 'manual', ...(options.signal ? { signal: options.signal } : {}) });
      return { redirect: current, delivered };
    }
    const response = await fetch(current, {
      redirect: 'manual',
      headers: cookies.size === 0 ? {} : { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair !== undefined && eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      const body = await response.text();
      throw new Error(`authorization stopped at ${current.pathname} with ${response.status}: ${body.slice(0, 300)}`);
    }
    await response.body?.cancel();
    current = new URL(location, current);
  }
  throw new Error('authorization did not reach the redirect URI');
}
