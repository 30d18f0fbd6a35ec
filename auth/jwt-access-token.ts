/**
 * A JWT access token checked with jose against its issuer's keys, per the RFC 9068 profile: the `typ` header
 * `at+jwt` (`application/at+jwt` is the same media type; jose compares them so), unless the resource takes any
 * `typ` for issuers that do not follow the profile; issuer, audience, allowed algorithms, `exp` required; `nbf`,
 * `exp` and `iat` within the clock tolerance. jose reads `iat` only for a maximum age, so a token issued in the
 * future is refused here. Reasons never quote the token.
 */
import { type JWTPayload, type JWTVerifyGetKey, errors, jwtVerify } from 'jose';

/** The RFC 9068 `typ` of a JWT access token. */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface AccessTokenCheck {
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly algorithms: readonly string[];
  readonly toleranceSec: number;
  /** `at+jwt`, or `any` to skip the profile's `typ` check. */
  readonly type: 'at+jwt' | 'any';
  readonly now: () => number;
}

/** A verification failure whose message is safe to show the caller (it never quotes the token). */
export class TokenProblem extends Error {}

export async function verifyAccessToken(token: string, keys: JWTVerifyGetKey, check: AccessTokenCheck): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: check.issuer,
      audience: [...check.audience],
      algorithms: [...check.algorithms],
      clockTolerance: check.toleranceSec,
      requiredClaims: ['exp'],
      currentDate: new Date(check.now()),
      ...(check.type === 'any' ? {} : { typ: ACCESS_TOKEN_TYP }),
    }));
  } catch (error) {
    throw new TokenProblem(reasonOf(error));
  }
  if (typeof payload.iat === 'number' && payload.iat > check.now() / 1000 + check.toleranceSec) throw new TokenProblem('the token was issued in the future (iat)');
  return payload;
}

/** A clear reason for a failed JWT check, from jose's error classes. */
function reasonOf(error: unknown): string {
  if (!(error instanceof errors.JOSEError)) return 'the token could not be verified (the issuer keys were not available)';
  if (error instanceof errors.JWTExpired) return 'the token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'aud':
        return 'the token is not for this resource (audience)';
      case 'iss':
        return 'the token was not issued by an authorization server this resource trusts';
      case 'nbf':
        return 'the token is not valid yet';
      case 'exp':
        return 'the token has no expiry';
      case 'typ':
        return 'the token is not an access token (its typ header is not at+jwt, RFC 9068)';
      default:
        return `the token's "${error.claim}" claim is not acceptable`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm not accepted here';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed by a key its issuer does not publish';
  if (error instanceof errors.JWKSTimeout) return 'the token could not be verified (the issuer keys were not available)';
  return 'the token is invalid';
}
