/**
 * rxmcp/auth: the resource-server kit. Verifies the bearer tokens of HTTP callers (jose: JWKS, issuer, audience =
 * this server's canonical resource URI, expiry; or RFC 7662 introspection), serves the protected-resource metadata
 * (RFC 9728), challenges with `WWW-Authenticate`, and gives every handler the caller as `ctx.auth`.
 * See docs/auth.md.
 */
export type { AuthInfo } from '../core/auth.ts';
export { hasScopes } from '../core/auth.ts';
