/**
 * rxmcp/auth/client: the OAuth 2.1 client of MCP authorization (oauth4webapi), plugged into the HTTP client
 * transports through their `auth` option. See docs/auth.md.
 */
export { createOAuthClient, type OAuthClient, type OAuthClientOptions } from './oauth-client.ts';
export {
  authorizationCodeGrant,
  type AuthorizationCodeOptions,
  type AuthorizationResult,
  type AuthorizationUrlHandler,
} from './authorization-code.ts';
export { createMemoryOAuthStore, type ClientRegistration, type OAuthStore, type StoredTokens, type TokenKey } from './store.ts';
export type { ClientMetadata, PreRegisteredClient } from './registration.ts';
export { AuthorizationError, type AuthorizationFailure } from './errors.ts';
export type { OAuthHttpOptions, OAuthRequestOptions } from './http.ts';
export type { Grant, GrantContext } from './grant.ts';
export type { HttpClientAuth, AuthorizedRequest, AuthResponse } from '../../transports/http/client/auth-port.ts';
export type { ClientGrant } from './grants/client-grant.ts';
export type { ClientKey, ClientKeyAlgorithm } from './grants/private-key.ts';
export type { ClientCredentialsOptions, ClientSecretCredentials, ClientKeyCredentials, PublicClientIdentity } from './grants/client-auth.ts';
export { clientCredentials } from './grants/client-credentials.ts';
export { jwtBearer, JWT_BEARER_GRANT, type JwtBearerOptions } from './grants/jwt-bearer.ts';
export { enterpriseManaged, ID_JAG_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT, type EnterpriseManagedOptions } from './grants/enterprise-managed.ts';
export { dpop, type DPoPAlgorithm, type DPoPBinding, type DPoPOptions } from './dpop/dpop.ts';
export { tokenHeaders, type PresentedToken } from './dpop/present-token.ts';
