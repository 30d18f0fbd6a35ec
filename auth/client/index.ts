/**
 * rxmcp/auth/client: the OAuth 2.1 client of MCP authorization (oauth4webapi), plugged into the HTTP client
 * transports through their `auth` option. See docs/auth.md.
 */
export type { Grant, GrantContext } from './grant.ts';
export type { HttpClientAuth, AuthorizedRequest, AuthResponse } from '../../transports/http/client/auth-port.ts';
