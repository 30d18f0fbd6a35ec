/** The algorithm of a JWK (its `alg`, else the one its curve implies), for keys given without one. */
import type { JWK } from 'jose';

/** The algorithms identity assertions use: asymmetric only, so servers hold no secret that could sign. */
export const ASSERTION_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'] as const;

export function algorithmOf(jwk: JWK): string {
  if (jwk.alg !== undefined) return jwk.alg;
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-384') return 'ES384';
  if (jwk.kty === 'RSA') return 'PS256';
  throw new TypeError(`an identity key must be Ed25519, P-256, P-384 or RSA (kty ${String(jwk.kty)}${jwk.crv === undefined ? '' : `, crv ${jwk.crv}`}); give its "alg" if it is another`);
}
