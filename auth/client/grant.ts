/**
 * How an OAuth client gets a token once it knows the authorization server: the seam between the flow that finds
 * the server (discovery, registration, scope choice, step-up: `auth/client/` core) and the grants that ask it for
 * a token (authorization code with PKCE by default; client credentials, JWT bearer for workload identity, the
 * enterprise-managed token exchange). A grant is a function, so a program can bring its own.
 */
import type * as oauth from 'oauth4webapi';
import type { OAuthRequestOptions } from './http.ts';

/** Everything a grant needs, settled by the flow before it runs. */
export interface GrantContext {
  /** The authorization server's metadata (its issuer checked against where it was found). */
  readonly as: oauth.AuthorizationServer;
  /** This client as registered at that server (pre-registered, a metadata-document URL, or dynamically). */
  readonly client: oauth.Client;
  /** How this client authenticates at the token endpoint (`none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt`). */
  readonly clientAuth: oauth.ClientAuth;
  /** The RFC 8707 resource indicator: the MCP server's canonical URI (absent only in the 2025-03-26 fallback). */
  readonly resource: string | undefined;
  /** The scopes to ask for, chosen by the specification's rules (absent: ask for none). */
  readonly scope: string | undefined;
  /** The DPoP handle when tokens are sender-constrained (RFC 9449); grants pass it to every token request. */
  readonly dpop: oauth.DPoPHandle | undefined;
  /** The options every oauth4webapi call gets here (fetch, loopback http allowance, timeouts, the signal). */
  readonly http: OAuthRequestOptions;
}

/** Obtains tokens; rejects with an `AuthorizationError` naming what failed. */
export type Grant = (context: GrantContext) => Promise<oauth.TokenEndpointResponse>;
