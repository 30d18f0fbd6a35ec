/**
 * A refusal's `WWW-Authenticate` challenges, as the OAuth client reads them (the kit's own parser,
 * auth/policy/www-authenticate.ts): where the protected-resource metadata is, the scopes asked for, the error.
 */
import type { AuthResponse } from '../../transports/http/client/auth-port.ts';
import { parseWwwAuthenticate } from '../policy/www-authenticate.ts';

/** What the client reads from a Bearer (or DPoP) challenge. */
export interface Challenge {
  /** Lower case. */
  readonly scheme: string;
  /** RFC 9728 §5.1: where the protected-resource metadata is. */
  readonly resourceMetadata: string | undefined;
  /** The scopes the server needs (space-separated). */
  readonly scope: string | undefined;
  /** `invalid_token`, `insufficient_scope`, `invalid_request`, `use_dpop_nonce`... */
  readonly error: string | undefined;
  readonly parameters: Readonly<Record<string, string>>;
}

export function parseChallenges(response: AuthResponse): readonly Challenge[] {
  const header = response.header('www-authenticate');
  if (header === undefined || header === '') return [];
  return parseWwwAuthenticate(header).map(({ scheme, parameters }) => ({
    scheme,
    resourceMetadata: parameters['resource_metadata'],
    scope: parameters['scope'],
    error: parameters['error'],
    parameters,
  }));
}

/** The challenge this client answers: Bearer first, else DPoP (sender-constrained tokens), else none. */
export function pickChallenge(challenges: readonly Challenge[]): Challenge | undefined {
  return challenges.find((challenge) => challenge.scheme === 'bearer') ?? challenges.find((challenge) => challenge.scheme === 'dpop');
}
