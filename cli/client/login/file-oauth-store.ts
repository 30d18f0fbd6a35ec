/**
 * The OAuth client's store (rxmcp/auth/client `OAuthStore`) kept in the command line's credential files: one file
 * per MCP server the user connected to, holding that server's tokens and the registration made for it at its
 * authorization server. `rxmcp logout <url>` removes the file, and with it everything a login there left.
 */
import type { ClientRegistration, OAuthStore, StoredTokens, TokenKey } from '../../../auth/client/index.ts';
import type { CredentialFiles, CredentialRecord } from './credential-files.ts';

const clientEntry = (issuer: string): string => `client ${issuer}`;
const tokensEntry = (key: TokenKey): string => `tokens ${key.resource} ${key.issuer}`;

export function fileOAuthStore(files: CredentialFiles, server: string): OAuthStore {
  // One command at a time writes a server's file; the writes of one command are serialized here.
  let writing: Promise<void> = Promise.resolve();
  const write = (name: string, record: CredentialRecord | undefined): Promise<void> => {
    const next = writing.then(() => files.set(server, name, record));
    writing = next.catch(() => undefined);
    return next;
  };
  return {
    loadClient: async (issuer) => asRegistration(await files.get(server, clientEntry(issuer))),
    saveClient: (issuer, client) => write(clientEntry(issuer), { ...client }),
    deleteClient: (issuer) => write(clientEntry(issuer), undefined),
    loadTokens: async (key) => asTokens(await files.get(server, tokensEntry(key))),
    saveTokens: (key, tokens) => write(tokensEntry(key), { ...tokens }),
    deleteTokens: (key) => write(tokensEntry(key), undefined),
  };
}

/** What a file holds is checked before use: it may have been edited by hand. */
function asRegistration(record: CredentialRecord | undefined): ClientRegistration | undefined {
  if (record === undefined || typeof record['clientId'] !== 'string') return undefined;
  return {
    clientId: record['clientId'],
    clientSecret: stringOr(record['clientSecret']),
    tokenEndpointAuthMethod: stringOr(record['tokenEndpointAuthMethod']),
    clientSecretExpiresAt: typeof record['clientSecretExpiresAt'] === 'number' ? record['clientSecretExpiresAt'] : undefined,
  };
}

function asTokens(record: CredentialRecord | undefined): StoredTokens | undefined {
  if (record === undefined || typeof record['accessToken'] !== 'string' || typeof record['tokenType'] !== 'string') return undefined;
  return {
    accessToken: record['accessToken'],
    tokenType: record['tokenType'],
    refreshToken: stringOr(record['refreshToken']),
    expiresAt: typeof record['expiresAt'] === 'number' ? record['expiresAt'] : undefined,
    scope: stringOr(record['scope']),
  };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
