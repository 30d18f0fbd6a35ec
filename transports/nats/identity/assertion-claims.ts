/**
 * The identity assertion a gateway puts on the NATS messages it forwards for an authenticated HTTP caller: a
 * compact JWS (a JWT of type `mcp-identity+jwt`) signed with the gateway's key, read by the servers that trust
 * that key (docs/nats-binding.md, "Identity across NATS"). It carries what `AuthInfo` holds, never the caller's
 * token:
 *
 *   iss         the gateway (who vouches)             aud        `<prefix>.<name>` (the served name's subjects)
 *   sub         the principal                          iat, exp   short-lived, never past the token's expiry
 *   client_id   the OAuth client                       scope      the granted scopes, space-separated
 *   mcp_token   { sub, iss, exp } of the caller's token (its subject, its issuer, its expiry in seconds)
 *   mcp_claims  the token claims the gateway was told to forward (none by default)
 */
import type { AuthInfo } from '../../../core/auth.ts';

/** The JWT `typ` of an identity assertion: a server never takes another kind of JWT signed by the same key. */
export const ASSERTION_TYPE = 'mcp-identity+jwt';

/** The largest assertion a server reads (a NATS header; anything larger is refused unread). */
export const MAX_ASSERTION_CHARS = 8192;

export interface AssertionPayload {
  readonly sub: string;
  readonly client_id?: string;
  readonly scope?: string;
  readonly mcp_token?: { readonly sub?: string; readonly iss?: string; readonly exp?: number };
  readonly mcp_claims?: Readonly<Record<string, unknown>>;
}

/** The claims (besides iss, aud, iat and exp) that stand for `auth`, with only the named token claims. */
export function assertionPayload(auth: AuthInfo, forwardClaims: readonly string[]): AssertionPayload {
  const token: { sub?: string; iss?: string; exp?: number } = {};
  if (auth.subject !== undefined) token.sub = auth.subject;
  if (auth.issuer !== undefined) token.iss = auth.issuer;
  if (auth.expiresAt !== undefined) token.exp = Math.floor(auth.expiresAt / 1000);
  let claims: Record<string, unknown> | undefined;
  for (const name of forwardClaims) {
    if (!(name in auth.claims)) continue;
    (claims ??= {})[name] = auth.claims[name];
  }
  return {
    sub: auth.principal,
    ...(auth.clientId === undefined ? {} : { client_id: auth.clientId }),
    ...(auth.scopes.length === 0 ? {} : { scope: auth.scopes.join(' ') }),
    ...(Object.keys(token).length === 0 ? {} : { mcp_token: token }),
    ...(claims === undefined ? {} : { mcp_claims: claims }),
  };
}

/** The `AuthInfo` a verified payload stands for. */
export function authInfoOf(payload: Readonly<Record<string, unknown>>): AuthInfo {
  const principal = payload['sub'];
  if (typeof principal !== 'string' || principal === '') throw new TypeError('the assertion names no principal (sub)');
  const token = objectOf(payload['mcp_token']);
  const scope = payload['scope'];
  const clientId = payload['client_id'];
  const subject = token?.['sub'];
  const issuer = token?.['iss'];
  const exp = token?.['exp'];
  return {
    principal,
    subject: typeof subject === 'string' ? subject : undefined,
    clientId: typeof clientId === 'string' ? clientId : undefined,
    issuer: typeof issuer === 'string' ? issuer : undefined,
    scopes: typeof scope === 'string' ? scope.split(' ').filter((entry) => entry !== '') : [],
    expiresAt: typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined,
    claims: objectOf(payload['mcp_claims']) ?? {},
  };
}

function objectOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
