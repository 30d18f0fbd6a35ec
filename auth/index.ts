/**
 * rxmcp/auth: the resource-server kit. Verifies the bearer tokens of HTTP callers (jose: JWKS, issuer, audience =
 * this server's canonical resource URI, expiry; or RFC 7662 introspection; DPoP-bound tokens per RFC 9449), serves
 * the protected-resource metadata (RFC 9728), challenges with `WWW-Authenticate`, and gives every handler the
 * caller as `ctx.auth`. See docs/auth.md.
 */
export type { AuthInfo } from '../core/auth.ts';
export { AuthRefusal, hasScopes, isAuthRefusal } from '../core/auth.ts';
export { type BearerAuth, type BearerAuthOptions, bearerAuth } from './bearer-auth.ts';
export type { DpopOptions } from './dpop.ts';
export type { IntrospectionOptions } from './introspection.ts';
