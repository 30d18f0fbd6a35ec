/**
 * `bearerAuth`: an MCP server as an OAuth 2.1 resource server. It gives the Streamable HTTP endpoint an
 * `authenticate` hook and its protected-resource metadata (spread both into `createStreamableHttpServer` or
 * `createStreamableHttpFetchHandler`):
 * - the token comes from `Authorization: Bearer` (or `DPoP`) only, never from the query or the body;
 * - a JWT is verified with jose against its issuer's JWKS, as RFC 9068 profiles it (jwt-access-token.ts: `typ`
 *   `at+jwt`, issuer among the trusted ones, audience = this resource per RFC 8707, allowed algorithms only,
 *   `exp`, `nbf` and `iat` within a small tolerance); an opaque token is introspected (RFC 7662) when so configured;
 * - a verified token is remembered (bounded, until it expires or `cache.maxAgeMs` passed), so a caller's next
 *   request costs a map lookup;
 * - refusals are `AuthRefusal`s the endpoint answers 401 (with `WWW-Authenticate: Bearer resource_metadata=...`,
 *   and `error="invalid_token"` when a token was sent) or 403 `insufficient_scope`.
 * The token is never logged, never put in an error, and never handed on: handlers get the verified claims.
 */
import { decodeJwt } from 'jose';
import { type AuthInfo, AuthRefusal, hasScopes } from '../core/auth.ts';
import type { HttpRequestInfo } from '../transports/http/server/http-exchange.ts';
import type { ChallengeDetails, ProtectedResourceMetadata, ProtectedResourceOptions } from '../transports/http/server/protected-resource.ts';
import { buildChallenge } from '../transports/http/server/protected-resource.ts';
import { authInfoOf } from './claims.ts';
import { type DpopOptions, DpopProofError, DpopVerifier } from './dpop.ts';
import { type IntrospectionOptions, IntrospectionProblem, Introspector } from './introspection.ts';
import { TrustedIssuer } from './issuers.ts';
import { TokenProblem, verifyAccessToken } from './jwt-access-token.ts';
import { TokenCache } from './token-cache.ts';

export interface BearerAuthOptions {
  /** This server's canonical resource URI (the MCP endpoint's URL, e.g. `https://mcp.example.com/mcp`). */
  readonly resource: string;
  /** The issuers whose tokens are accepted (their identifiers, as in the tokens' `iss`). At least one. */
  readonly authorizationServers: readonly string[];
  /** The JWKS URL, when it is not to be discovered from the authorization server's metadata (one server only). */
  readonly jwksUri?: string;
  /** The audience tokens must name (default: `resource`, as RFC 8707 has clients ask for). */
  readonly audience?: string | readonly string[];
  /** JWS algorithms accepted (default RS256, PS256, ES256, ES384, EdDSA; never `none` or HMAC). */
  readonly algorithms?: readonly string[];
  /** Seconds of clock skew tolerated on `exp`, `nbf` and `iat` (default 30): a token issued further ahead is refused. */
  readonly clockToleranceSec?: number;
  /**
   * The `typ` header a JWT access token must have: `at+jwt` (the default, RFC 9068; `application/at+jwt` is the
   * same), which keeps other JWTs of the same issuer (ID tokens, logout tokens) from passing as access tokens;
   * `any` for issuers that label theirs otherwise (`JWT`, or nothing).
   */
  readonly accessTokenType?: 'at+jwt' | 'any';
  /** Scopes every request needs (a token without one of them is refused 403 `insufficient_scope`). */
  readonly requiredScopes?: readonly string[];
  /** The scopes this resource knows, published in its metadata and suggested in 401 challenges. */
  readonly scopesSupported?: readonly string[];
  /** Let requests without a token through as anonymous (`ctx.auth` undefined); a bad token is still refused. */
  readonly allowAnonymous?: boolean;
  /** Opaque tokens: ask the authorization server (RFC 7662) instead of verifying JWTs. */
  readonly introspection?: IntrospectionOptions;
  /** DPoP-bound tokens (RFC 9449): always verified when a token is bound; `required` refuses unbound ones. */
  readonly dpop?: DpopOptions;
  /** The verified-token cache (defaults: 10 000 tokens, each for at most 5 minutes, 1 with introspection; 0 turns it off). */
  readonly cache?: { readonly maxEntries?: number; readonly maxAgeMs?: number };
  /**
   * Allows plain http to loopback authorization servers (tests, local development): their metadata, keys and
   * introspection endpoint. Default false. Anything else than https or loopback http is refused either way.
   */
  readonly allowLoopbackHttp?: boolean;
  /** More members of the protected-resource metadata (`resource_name`, `resource_documentation`, ...). */
  readonly metadata?: Partial<ProtectedResourceMetadata>;
  /** Milliseconds since the epoch (default `Date.now`): for tests. */
  readonly now?: () => number;
}

/** What `createStreamableHttpServer` takes: spread it into its options. */
export interface BearerAuth {
  readonly authenticate: (request: HttpRequestInfo) => Promise<AuthInfo | undefined>;
  readonly protectedResource: ProtectedResourceOptions;
}

const DEFAULT_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'] as const;
/** Longer than any token an authorization server issues; anything longer is refused unread. */
const MAX_TOKEN_CHARS = 8192;
/** RFC 6750 b64token. */
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/;

export function bearerAuth(options: BearerAuthOptions): BearerAuth {
  if (options.authorizationServers.length === 0) throw new TypeError('bearerAuth needs at least one authorization server');
  if (options.jwksUri !== undefined && options.authorizationServers.length > 1) throw new TypeError('jwksUri names the keys of one authorization server; with several, each is discovered');
  const resource = new URL(options.resource);
  const now = options.now ?? Date.now;
  const tolerance = options.clockToleranceSec ?? 30;
  const audience = options.audience === undefined ? [options.resource] : typeof options.audience === 'string' ? [options.audience] : [...options.audience];
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  if (algorithms.some((alg) => alg === 'none' || alg.startsWith('HS'))) throw new TypeError('bearerAuth accepts only asymmetric signature algorithms');
  const accessTokenType = options.accessTokenType ?? 'at+jwt';
  if (accessTokenType !== 'at+jwt' && accessTokenType !== 'any') throw new TypeError(`accessTokenType is 'at+jwt' or 'any', got ${JSON.stringify(accessTokenType)}`);
  const allowLoopbackHttp = options.allowLoopbackHttp ?? false;
  const issuers = new Map(options.authorizationServers.map((issuer) => [issuer, new TrustedIssuer(issuer, { jwksUri: options.jwksUri, allowLoopbackHttp })]));
  const qualify = issuers.size > 1;
  // Introspected answers are kept for less by default: the authorization server is asked for revocation's sake.
  const cache = new TokenCache<AuthInfo>(options.cache?.maxEntries ?? 10_000, options.cache?.maxAgeMs ?? (options.introspection === undefined ? 300_000 : 60_000));
  const dpop = new DpopVerifier(options.dpop ?? {}, resource.origin, tolerance, now);
  const introspector = options.introspection === undefined ? undefined : new Introspector(options.introspection, [...issuers.values()], audience, qualify, now);
  const required = options.requiredScopes ?? [];

  const metadata: ProtectedResourceMetadata = {
    ...options.metadata,
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ['header'],
    ...(options.scopesSupported === undefined ? {} : { scopes_supported: [...options.scopesSupported] }),
    ...(options.dpop === undefined ? {} : { dpop_signing_alg_values_supported: [...dpop.supportedAlgorithms], dpop_bound_access_tokens_required: options.dpop.required === true }),
  };
  const protectedResource: ProtectedResourceOptions = { metadata, ...(required.length > 0 ? { challengeScopes: required } : {}) };
  const metadataUrl = `${resource.origin}/.well-known/oauth-protected-resource${resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '')}`;
  const scheme = options.dpop?.required === true ? 'DPoP' : 'Bearer';
  const refuse = (status: 401 | 403, reason: string, details: ChallengeDetails = {}): AuthRefusal =>
    new AuthRefusal(status, reason, buildChallenge(metadataUrl, details.scopes ?? (required.length > 0 ? required : options.scopesSupported), { scheme, ...details }));

  async function verify(token: string): Promise<AuthInfo> {
    if (introspector !== undefined) return introspector.introspect(token);
    let claims: ReturnType<typeof decodeJwt>;
    try {
      claims = decodeJwt(token);
    } catch {
      throw new TokenProblem('the token is not a JWT');
    }
    const issuer = typeof claims.iss === 'string' ? issuers.get(claims.iss) : undefined;
    if (issuer === undefined) throw new TokenProblem('the token was not issued by an authorization server this resource trusts');
    const keys = await issuer.keySet();
    const payload = await verifyAccessToken(token, keys, { issuer: issuer.issuer, audience, algorithms, toleranceSec: tolerance, type: accessTokenType, now });
    const auth = authInfoOf(payload, qualify);
    if (auth === undefined) throw new TokenProblem('the token names neither a subject nor a client');
    return auth;
  }

  async function authenticate(request: HttpRequestInfo): Promise<AuthInfo | undefined> {
    const credentials = readAuthorization(request.header('authorization'));
    if (credentials === undefined) {
      if (options.allowAnonymous === true) return undefined;
      // RFC 6750 section 3.1: a request without credentials gets the challenge and no error code.
      throw refuse(401, 'this resource needs an access token');
    }
    if (credentials === 'malformed') throw refuse(401, 'the Authorization header is malformed', { error: 'invalid_request', errorDescription: 'malformed Authorization header' });
    const { scheme: used, token } = credentials;
    let auth = cache.get(token, now());
    if (auth === undefined) {
      try {
        auth = await verify(token);
      } catch (error) {
        const reason = error instanceof TokenProblem || error instanceof IntrospectionProblem ? error.message : 'the token could not be verified';
        throw refuse(401, reason, { error: 'invalid_token', errorDescription: reason });
      }
      cache.set(token, auth, now(), auth.expiresAt === undefined ? undefined : auth.expiresAt + tolerance * 1000);
    }
    const jkt = boundKey(auth);
    if (jkt !== undefined) {
      if (used !== 'dpop') throw refuse(401, 'the token is DPoP-bound and must be sent with the DPoP scheme and a proof', { error: 'invalid_token', errorDescription: 'DPoP-bound token sent as a bearer token', scheme: 'DPoP' });
      try {
        await dpop.verify(request, request.header('dpop'), token, jkt);
      } catch (error) {
        const reason = error instanceof DpopProofError ? error.message : 'the DPoP proof could not be verified';
        throw new AuthRefusal(401, reason, `DPoP error="invalid_dpop_proof", error_description="${reason.replace(/"/g, '')}", algs="${dpop.supportedAlgorithms.join(' ')}"`);
      }
    } else if (used === 'dpop' || options.dpop?.required === true) {
      throw refuse(401, 'the token is not DPoP-bound', { error: 'invalid_token', errorDescription: used === 'dpop' ? 'the DPoP scheme needs a DPoP-bound token' : 'this resource takes DPoP-bound tokens only' });
    }
    if (!hasScopes(auth, required)) throw refuse(403, `the token lacks a required scope (${required.join(' ')})`, { error: 'insufficient_scope', errorDescription: 'the token lacks a required scope', scopes: required });
    return auth;
  }

  return { authenticate, protectedResource };
}

function readAuthorization(header: string | undefined): { readonly scheme: 'bearer' | 'dpop'; readonly token: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
  if (match === null) return 'malformed';
  const scheme = (match[1] as string).toLowerCase();
  const token = match[2] as string;
  if (scheme !== 'bearer' && scheme !== 'dpop') return 'malformed';
  if (token.length > MAX_TOKEN_CHARS || !TOKEN_SYNTAX.test(token)) return 'malformed';
  return { scheme, token };
}

/** The key thumbprint a DPoP-bound token names (`cnf.jkt`). */
function boundKey(auth: AuthInfo): string | undefined {
  const cnf = auth.claims['cnf'];
  if (typeof cnf !== 'object' || cnf === null) return undefined;
  const jkt = (cnf as { jkt?: unknown }).jkt;
  return typeof jkt === 'string' && jkt.length > 0 ? jkt : undefined;
}
