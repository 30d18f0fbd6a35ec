/**
 * A refusal's `WWW-Authenticate` challenges, parsed by oauth4webapi: its parser is reached through
 * `protectedResourceRequest`, which turns a challenged response into a `WWWAuthenticateChallengeError` holding
 * them. The response handed to it is the transport's, replayed (status and the challenge header only): nothing
 * goes on the network here.
 */
import * as oauth from 'oauth4webapi';
import type { AuthResponse } from '../../transports/http/client/auth-port.ts';

/** What the client reads from a Bearer (or DPoP) challenge. */
export interface Challenge {
  readonly scheme: string;
  /** RFC 9728 §5.1: where the protected-resource metadata is. */
  readonly resourceMetadata: string | undefined;
  /** The scopes the server needs (space-separated). */
  readonly scope: string | undefined;
  /** `invalid_token`, `insufficient_scope`, `invalid_request`, `use_dpop_nonce`... */
  readonly error: string | undefined;
  readonly parameters: Readonly<Record<string, string>>;
}

export async function parseChallenges(response: AuthResponse): Promise<readonly Challenge[]> {
  const header = response.header('www-authenticate');
  if (header === undefined || header === '') return [];
  const replay = (): Promise<Response> => Promise.resolve(new Response(null, { status: response.status, headers: { 'www-authenticate': header } }));
  try {
    await oauth.protectedResourceRequest('-', 'GET', new URL('https://challenge.invalid/'), undefined, undefined, { [oauth.customFetch]: replay });
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return error.cause.map(toChallenge);
  }
  return [];
}

/** The challenge this client answers: Bearer first, else DPoP (sender-constrained tokens), else none. */
export function pickChallenge(challenges: readonly Challenge[]): Challenge | undefined {
  return challenges.find((challenge) => challenge.scheme === 'bearer') ?? challenges.find((challenge) => challenge.scheme === 'dpop');
}

function toChallenge(challenge: oauth.WWWAuthenticateChallenge): Challenge {
  const parameters = challenge.parameters as Readonly<Record<string, string | undefined>>;
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(parameters)) if (typeof value === 'string') clean[name] = value;
  return {
    scheme: challenge.scheme.toLowerCase(),
    resourceMetadata: clean['resource_metadata'],
    scope: clean['scope'],
    error: clean['error'],
    parameters: clean,
  };
}
