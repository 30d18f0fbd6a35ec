/**
 * Why authorization failed, by kind: a program (or the CLI) can tell a hostile or broken server from a user who
 * declined, without parsing messages. Messages name URLs and fields, never a token or a secret.
 */
export type AuthorizationFailure =
  /** Protected-resource metadata missing, malformed, oversized, or naming another resource. */
  | 'resource-metadata'
  /** Authorization-server metadata missing, malformed, oversized, or its issuer not the one it was found for. */
  | 'server-metadata'
  /** An endpoint that is not HTTPS (outside loopback), or a feature this client insists on (PKCE S256). */
  | 'insecure-server'
  /** The client could not get an identity at the authorization server (no registration possible, or refused). */
  | 'registration'
  /** The authorization response was an error, or failed its checks (state, `iss`). */
  | 'authorization-response'
  /** The token endpoint refused, or answered something unusable. */
  | 'token'
  /** The interactive step was not possible (no `onAuthorizationUrl`) or did not complete. */
  | 'interaction'
  /** Too many authorizations in a row without the server accepting a token. */
  | 'retry-limit';

export class AuthorizationError extends Error {
  override readonly name = 'AuthorizationError';
  readonly failure: AuthorizationFailure;

  constructor(failure: AuthorizationFailure, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.failure = failure;
  }
}
