/**
 * The caller as handlers see it (`ctx.auth`), from verified JWT claims or an introspection answer.
 */
import type { AuthInfo } from '../core/auth.ts';

/** The scopes of `scope` (a space-separated string, RFC 8693/9068) or `scp` (an array or string, common in IdPs). */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const scope = claims['scope'] ?? claims['scp'];
  if (typeof scope === 'string') return scope.split(' ').filter((entry) => entry.length > 0);
  if (Array.isArray(scope)) return scope.filter((entry): entry is string => typeof entry === 'string' && entry.length > 0);
  return [];
}

/**
 * Undefined when the token names neither a subject nor a client (nobody to bind sessions to).
 * `principal`: the subject (or, for a token without one, its client), prefixed with its issuer when several
 * issuers are trusted, so the same `sub` from two authorization servers is two callers.
 */
export function authInfoOf(claims: Readonly<Record<string, unknown>>, qualify: boolean): AuthInfo | undefined {
  const subject = typeof claims['sub'] === 'string' && claims['sub'].length > 0 ? claims['sub'] : undefined;
  const clientId = typeof claims['client_id'] === 'string' ? claims['client_id'] : typeof claims['azp'] === 'string' ? claims['azp'] : undefined;
  const issuer = typeof claims['iss'] === 'string' ? claims['iss'] : undefined;
  const exp = claims['exp'];
  const who = subject ?? (clientId === undefined ? undefined : `client:${clientId}`);
  if (who === undefined) return undefined;
  return Object.freeze({
    principal: qualify && issuer !== undefined ? `${issuer}#${who}` : who,
    subject,
    clientId,
    issuer,
    scopes: Object.freeze(scopesOf(claims)),
    expiresAt: typeof exp === 'number' ? exp * 1000 : undefined,
    claims: Object.freeze({ ...claims }),
  });
}
