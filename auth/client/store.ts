/**
 * Where the OAuth client keeps what it obtained: its registrations, per authorization server (issuer), and its
 * tokens, per MCP server (resource) and issuer. Keyed by issuer so that an MCP server moving to another
 * authorization server never gets credentials or tokens of the old one. In memory by default; the CLI keeps a
 * file per user. Implementations must treat both kinds of record as secrets.
 */

/** This client as registered at one authorization server. */
export interface ClientRegistration {
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  /** `none`, `client_secret_basic`, `client_secret_post` (or another method a program's own auth handles). */
  readonly tokenEndpointAuthMethod?: string | undefined;
  /** Unix seconds; 0 or absent: never. */
  readonly clientSecretExpiresAt?: number | undefined;
}

export interface StoredTokens {
  readonly accessToken: string;
  /** `bearer`, or `dpop` for sender-constrained tokens. */
  readonly tokenType: string;
  readonly refreshToken?: string | undefined;
  /** Milliseconds since the epoch; absent: no expiry was given. */
  readonly expiresAt?: number | undefined;
  /** The scopes granted (or, when the server did not say, asked for), space-separated. */
  readonly scope?: string | undefined;
}

export interface TokenKey {
  /** The MCP server's resource identifier (or its URL in the 2025-03-26 fallback). */
  readonly resource: string;
  readonly issuer: string;
}

export interface OAuthStore {
  loadClient(issuer: string): Promise<ClientRegistration | undefined> | ClientRegistration | undefined;
  saveClient(issuer: string, client: ClientRegistration): Promise<void> | void;
  /** Forgets a registration the authorization server no longer knows (`invalid_client`). */
  deleteClient(issuer: string): Promise<void> | void;
  loadTokens(key: TokenKey): Promise<StoredTokens | undefined> | StoredTokens | undefined;
  saveTokens(key: TokenKey, tokens: StoredTokens): Promise<void> | void;
  deleteTokens(key: TokenKey): Promise<void> | void;
}

/** An in-memory store holding at most `maxEntries` registrations and as many token sets (oldest dropped first). */
export function createMemoryOAuthStore(options: { readonly maxEntries?: number } = {}): OAuthStore {
  const maxEntries = options.maxEntries ?? 1000;
  const clients = new Map<string, ClientRegistration>();
  const tokens = new Map<string, StoredTokens>();
  const put = <T>(map: Map<string, T>, key: string, value: T): void => {
    map.delete(key);
    map.set(key, value);
    while (map.size > maxEntries) map.delete(map.keys().next().value as string);
  };
  const tokenKey = (key: TokenKey): string => JSON.stringify([key.resource, key.issuer]);
  return {
    loadClient: (issuer) => clients.get(issuer),
    saveClient: (issuer, client) => put(clients, issuer, client),
    deleteClient: (issuer) => {
      clients.delete(issuer);
    },
    loadTokens: (key) => tokens.get(tokenKey(key)),
    saveTokens: (key, value) => put(tokens, tokenKey(key), value),
    deleteTokens: (key) => {
      tokens.delete(tokenKey(key));
    },
  };
}
