/**
 * DPoP (RFC 9449): a token bound to a key (`cnf.jkt`) is only good with a fresh proof signed by that key for this
 * very request. Checked with jose: the proof's `typ` and allowed `alg`, its signature against the key it embeds,
 * `htm` and `htu` against the request, `iat` within a short window, `ath` against the token, the key's
 * thumbprint against the token's binding, and a `jti` never seen before (a bounded memory of recent ones).
 */
import { EmbeddedJWK, base64url, calculateJwkThumbprint, errors, jwtVerify } from 'jose';
import type { HttpRequestInfo } from '../transports/http/server/http-exchange.ts';
import { SeenIds } from './token-cache.ts';

export interface DpopOptions {
  /** Refuse bearer tokens that are not DPoP-bound (default false: both are taken). */
  readonly required?: boolean;
  /** Proof signature algorithms accepted (default ES256, ES384, PS256, RS256, EdDSA). */
  readonly algorithms?: readonly string[];
  /** How old (seconds) a proof's `iat` may be (default 60), besides the clock tolerance into the future. */
  readonly maxAgeSec?: number;
  /** Recent proof ids remembered to refuse replays (default 100 000). */
  readonly maxRememberedProofs?: number;
}

/** Why a proof is refused (the `error_description` of the `invalid_dpop_proof` challenge). */
export class DpopProofError extends Error {
  override readonly name = 'DpopProofError';
}

export const DEFAULT_DPOP_ALGORITHMS = ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'] as const;

export class DpopVerifier {
  private readonly seen: SeenIds;
  private readonly algorithms: string[];
  private readonly maxAgeSec: number;

  constructor(
    options: DpopOptions,
    /** The resource's origin: a proof's `htu` names it, whatever Host header the request came with. */
    private readonly origin: string,
    private readonly clockToleranceSec: number,
    private readonly now: () => number,
  ) {
    this.algorithms = [...(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS)];
    this.maxAgeSec = options.maxAgeSec ?? 60;
    this.seen = new SeenIds(options.maxRememberedProofs ?? 100_000);
  }

  get supportedAlgorithms(): readonly string[] {
    return this.algorithms;
  }

  /** Resolves when `proof` is valid for `req`, `token` and the key thumbprint `jkt`; otherwise rejects with a reason. */
  async verify(req: HttpRequestInfo, proof: string | undefined, token: string, jkt: string): Promise<void> {
    if (proof === undefined || proof.length === 0) throw new DpopProofError('a DPoP-bound token needs a DPoP proof header');
    if (proof.includes(',')) throw new DpopProofError('exactly one DPoP proof is allowed');
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: this.algorithms, currentDate: new Date(this.now()) });
    } catch (error) {
      throw new DpopProofError(error instanceof errors.JOSEAlgNotAllowed ? 'the proof is signed with an algorithm not accepted here' : 'the proof is not a valid DPoP JWT signed by the key it carries');
    }
    const { payload, protectedHeader } = verified;
    const jwk = protectedHeader.jwk;
    if (jwk === undefined || 'd' in jwk) throw new DpopProofError('the proof carries no public key');
    if (payload['htm'] !== req.method) throw new DpopProofError('the proof is for another HTTP method');
    if (typeof payload['htu'] !== 'string' || !sameTarget(payload['htu'], `${this.origin}${req.url.pathname}`)) throw new DpopProofError('the proof is for another URL');
    const iat = payload.iat;
    const nowSec = this.now() / 1000;
    if (typeof iat !== 'number' || iat > nowSec + this.clockToleranceSec || iat < nowSec - this.maxAgeSec - this.clockToleranceSec) {
      throw new DpopProofError('the proof is not fresh (its iat is outside the accepted window)');
    }
    const ath = base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));
    if (payload['ath'] !== ath) throw new DpopProofError('the proof is for another access token');
    if ((await calculateJwkThumbprint(jwk, 'sha256')) !== jkt) throw new DpopProofError('the proof is signed by a key the token is not bound to');
    const jti = payload.jti;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw new DpopProofError('the proof has no usable jti');
    // Keyed by the key as well: two clients cannot collide on each other's ids.
    if (!this.seen.firstUse(`${jkt}.${jti}`, this.now(), (iat + this.maxAgeSec + 2 * this.clockToleranceSec) * 1000)) {
      throw new DpopProofError('the proof was already used (replay)');
    }
  }
}

/** `htu` compared without query and fragment (RFC 9449 section 4.3), scheme and host case-insensitively. */
function sameTarget(htu: string, expected: string): boolean {
  let url: URL;
  try {
    url = new URL(htu);
  } catch {
    return false;
  }
  const wanted = new URL(expected);
  return url.origin === wanted.origin && url.pathname === wanted.pathname;
}
