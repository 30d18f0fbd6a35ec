/**
 * rxmcp/auth/client: the OAuth 2.1 client of MCP authorization (oauth4webapi), plugged into the HTTP client
 * transports through their `auth` option. See docs/auth.md.
 */
export { oauthClient, type OAuthClient, type OAuthClientOptions } from './oauth-client.ts';
export {
  authorizationCodeGrant,
  followAuthorizationRedirect,
  type AuthorizationCodeOptions,
  type AuthorizationResult,
  type AuthorizationUrlHandler,
} from './authorization-code.ts';
export { memoryOAuthStore, type ClientRegistration, type OAuthStore, type StoredTokens, type TokenKey } from './store.ts';
export type { ClientMetadata, PreRegisteredClient } from './registration.ts';
export { AuthorizationError, type AuthorizationFailure } from './errors.ts';
export type { OAuthHttpOptions, OAuthRequestOptions } from './http.ts';
export type { Grant, GrantContext } from './grant.ts';
export type { HttpClientAuth, AuthorizedRequest, AuthResponse } from '../../transports/http/client/auth-port.ts';
