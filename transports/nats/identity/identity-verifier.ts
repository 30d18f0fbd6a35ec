/**
 * The server's side of identity across NATS: verifies a gateway's assertion (see assertion-claims.ts) with the
 * gateways' public keys (jose), and remembers what it verified (bounded), so the messages of one caller pay one
 * signature check per assertion, then a Map lookup and an expiry comparison.
 */
import { type JSONWebKeySet, type JWK, createLocalJWKSet, errors, jwtVerify } from 'jose';
import type { AuthInfo } from '../../../core/auth.ts';
import { ASSERTION_TYPE, MAX_ASSERTION_CHARS, authInfoOf } from './assertion-claims.ts';
import { ASSERTION_ALGORITHMS } from './signing-key.ts';

export interface NatsIdentityOptions {
  /** The public keys of the gateways this server believes: a JWKS, one JWK, or several. */
  readonly keys: JSONWebKeySet | JWK | readonly JWK[];
  /** The gateways' `iss` accepted (default: any, as long as the key is trusted). */
  readonly issuers?: string | readonly string[];
  /**
   * Refuse messages that carry no identity (default false: they are served as anonymous). A message whose
   * assertion fails verification is refused either way, never served as anonymous.
   */
  readonly required?: boolean;
  /** Clock skew tolerated on `iat`/`exp`, in seconds (default 5). */
  readonly clockToleranceSeconds?: number;
  /** The longest assertion lifetime (`exp - iat`) accepted, in seconds (default 300). */
  readonly maxLifetimeSeconds?: number;
  /** Verified assertions remembered (default 10,000). */
  readonly maxCached?: number;
  /** Clock in milliseconds (tests). */
  readonly now?: () => number;
}

/** An assertion this server does not believe, with the reason (sent back to the caller). */
export class IdentityRefused extends Error {
  override readonly name = 'IdentityRefused';
}

export interface IdentityVerifier {
  /** The caller an assertion stands for: at once when it was verified before, else a Promise. Throws/rejects {@link IdentityRefused}. */
  verify(assertion: string): AuthInfo | Promise<AuthInfo>;
}

export function createIdentityVerifier(options: NatsIdentityOptions, audience: string): IdentityVerifier {
  const keys = options.keys;
  const jwks: JSONWebKeySet = Array.isArray(keys) ? { keys: [...(keys as readonly JWK[])] } : 'keys' in (keys as object) ? (keys as JSONWebKeySet) : { keys: [keys as JWK] };
  if (jwks.keys.length === 0) throw new TypeError('identity.keys names no key: give the public JWK(s) of the gateways this server trusts');
  for (const key of jwks.keys) {
    if (key.d !== undefined || key.k !== undefined) throw new TypeError('identity.keys must hold public keys only (a JWK with "d" or "k" is a secret)');
  }
  const keySet = createLocalJWKSet(jwks);
  const issuers = options.issuers === undefined ? undefined : typeof options.issuers === 'string' ? [options.issuers] : [...options.issuers];
  const tolerance = options.clockToleranceSeconds ?? 5;
  const maxLifetime = options.maxLifetimeSeconds ?? 300;
  const maxCached = options.maxCached ?? 10_000;
  const now = options.now ?? Date.now;
  const verified = new Map<string, { readonly auth: AuthInfo; readonly expiresAt: number }>();

  const check = async (assertion: string): Promise<AuthInfo> => {
    let payload: Readonly<Record<string, unknown>>;
    try {
      ({ payload } = await jwtVerify(assertion, keySet, {
        typ: ASSERTION_TYPE,
        audience,
        ...(issuers === undefined ? {} : { issuer: issuers }),
        algorithms: [...ASSERTION_ALGORITHMS],
        clockTolerance: tolerance,
        currentDate: new Date(now()),
        requiredClaims: ['iss', 'sub', 'iat', 'exp'],
      }));
    } catch (error) {
      throw new IdentityRefused(reasonOf(error, audience), { cause: error });
    }
    const lifetime = (payload['exp'] as number) - (payload['iat'] as number);
    if (lifetime > maxLifetime) throw new IdentityRefused(`the identity assertion lives ${lifetime} s, longer than the ${maxLifetime} s this server accepts`);
    let auth: AuthInfo;
    try {
      auth = authInfoOf(payload);
    } catch (error) {
      throw new IdentityRefused(`the identity assertion is malformed: ${(error as Error).message}`);
    }
    if (verified.size >= maxCached) verified.delete(verified.keys().next().value as string);
    verified.set(assertion, { auth, expiresAt: (payload['exp'] as number) * 1000 });
    return auth;
  };

  return {
    verify(assertion) {
      const known = verified.get(assertion);
      if (known !== undefined) {
        if (known.expiresAt + tolerance * 1000 > now()) return known.auth;
        verified.delete(assertion);
        throw new IdentityRefused('the identity assertion expired');
      }
      if (assertion.length > MAX_ASSERTION_CHARS) throw new IdentityRefused(`the identity assertion is longer than ${MAX_ASSERTION_CHARS} characters`);
      return check(assertion);
    },
  };
}

/** What went wrong, in words for the caller (never the assertion itself). */
function reasonOf(error: unknown, audience: string): string {
  if (error instanceof errors.JWTExpired) return 'the identity assertion expired';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the identity assertion\'s signature does not verify';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return 'the identity assertion is signed by a key this server does not trust';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `the identity assertion is addressed to another service (this one is ${JSON.stringify(audience)})`;
    if (error.claim === 'iss') return 'the identity assertion comes from a gateway this server does not trust';
    return `the identity assertion's "${error.claim}" claim is not acceptable (${error.reason})`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the identity assertion uses an algorithm this server does not accept';
  return 'the identity assertion is malformed';
}
