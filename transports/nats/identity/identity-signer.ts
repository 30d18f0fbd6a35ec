/**
 * The gateway's side of identity across NATS: signs, for an authenticated caller, the short-lived assertion that
 * the servers on NATS verify (see assertion-claims.ts). One assertion per distinct identity and audience is
 * reused until half its lifetime is left, so a call usually pays a Map lookup, not a signature.
 */
import { type CryptoKey, type JWK, SignJWT, importJWK } from 'jose';
import type { AuthInfo } from '../../../core/auth.ts';
import { ASSERTION_TYPE, assertionPayload } from './assertion-claims.ts';
import { algorithmOf } from './signing-key.ts';

export interface NatsIdentitySignerOptions {
  /**
   * The gateway's private key: a private JWK (Ed25519 by default: `{ kty: 'OKP', crv: 'Ed25519', d, x }`), or a
   * CryptoKey with `alg`. Its public half goes to the servers' `identity.keys`.
   */
  readonly key: JWK | CryptoKey;
  /** The signature algorithm (default: the JWK's `alg`, else the one its curve implies). */
  readonly alg?: string;
  /** The key id in the assertion's header (default: the JWK's `kid`), so servers that trust several keys pick it at once. */
  readonly kid?: string;
  /** Who vouches (`iss`; default `rxmcp-gateway`): servers may accept only named gateways. */
  readonly issuer?: string;
  /** Lifetime of an assertion, in seconds (default 60; at most 300); never past the caller's token. */
  readonly ttlSeconds?: number;
  /** Token claims carried over to the servers as `AuthInfo.claims` (default none: only the fields of AuthInfo cross). */
  readonly forwardClaims?: readonly string[];
  /** Distinct identities whose assertion is kept for reuse (default 10,000). */
  readonly maxCached?: number;
  /** Clock in milliseconds (tests). */
  readonly now?: () => number;
}

export interface NatsIdentitySigner {
  /**
   * The assertion for `auth`, addressed to `audience` (`<prefix>.<name>`): a string when one is cached, else a
   * Promise. Rejects when the caller's credentials have expired.
   */
  assertionFor(auth: AuthInfo, audience: string): string | Promise<string>;
}

const MAX_TTL_SECONDS = 300;

export function createIdentitySigner(options: NatsIdentitySignerOptions): NatsIdentitySigner {
  const ttl = options.ttlSeconds ?? 60;
  if (!(ttl > 0 && ttl <= MAX_TTL_SECONDS)) throw new RangeError(`identity ttlSeconds must be in (0, ${MAX_TTL_SECONDS}], got ${ttl}`);
  // A CryptoKey has no `kty`.
  const isJwk = typeof (options.key as JWK).kty === 'string';
  const alg = options.alg ?? (isJwk ? algorithmOf(options.key as JWK) : undefined);
  if (alg === undefined) throw new TypeError('an identity signer given a CryptoKey needs its "alg"');
  if (isJwk && (options.key as JWK).d === undefined) throw new TypeError('the identity signer needs the private key (a JWK with "d"); servers get the public one');
  const key: Promise<CryptoKey | Uint8Array> = isJwk ? importJWK(options.key as JWK, alg) : Promise.resolve(options.key as CryptoKey);
  // An unusable key shows at the first signature; this keeps an unhandled rejection from showing before that.
  key.catch(() => undefined);
  const kid = options.kid ?? (isJwk ? (options.key as JWK).kid : undefined);
  const issuer = options.issuer ?? 'rxmcp-gateway';
  const forwardClaims = options.forwardClaims ?? [];
  const maxCached = options.maxCached ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { readonly assertion: string; readonly renewAt: number }>();

  const sign = async (cacheKey: string, payload: ReturnType<typeof assertionPayload>, audience: string, expiresAt: number | undefined): Promise<string> => {
    const issuedAt = Math.floor(now() / 1000);
    const expiry = Math.min(issuedAt + ttl, expiresAt === undefined ? Infinity : Math.floor(expiresAt / 1000));
    const assertion = await new SignJWT({ ...payload })
      .setProtectedHeader({ alg, typ: ASSERTION_TYPE, ...(kid === undefined ? {} : { kid }) })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiry)
      .sign(await key);
    if (cache.size >= maxCached) cache.delete(cache.keys().next().value as string);
    // Renewed once half of its life is gone, so a server never receives one about to expire.
    cache.set(cacheKey, { assertion, renewAt: (issuedAt + Math.max(1, (expiry - issuedAt) / 2)) * 1000 });
    return assertion;
  };

  return {
    assertionFor(auth, audience) {
      if (auth.expiresAt !== undefined && auth.expiresAt <= now()) {
        return Promise.reject(new Error(`the credentials of ${JSON.stringify(auth.principal)} expired; no identity can be vouched for`));
      }
      const payload = assertionPayload(auth, forwardClaims);
      const cacheKey = `${audience}\n${JSON.stringify(payload)}`;
      const cached = cache.get(cacheKey);
      if (cached !== undefined && cached.renewAt > now()) return cached.assertion;
      if (cached !== undefined) cache.delete(cacheKey);
      return sign(cacheKey, payload, audience, auth.expiresAt);
    },
  };
}
