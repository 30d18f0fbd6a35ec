/**
 * Revokes at the authorization server (RFC 7009) what a server's credential file holds, before `rxmcp logout`
 * deletes it: each refresh token and access token, authenticated as the client registration kept beside them.
 * Best effort and bounded: a server without a revocation endpoint, or one that fails, leaves the tokens to expire,
 * and the caller is told which. Only HTTPS or loopback endpoints are contacted (the OAuth client's own rules).
 */
import * as oauth from 'oauth4webapi';
import { describe } from '../../../auth/client/authorization-code.ts';
import { discoverAuthorizationServer } from '../../../auth/client/discovery.ts';
import { oauthHttp } from '../../../auth/client/http.ts';
import { clientSecretBasic } from '../../../auth/policy/client-secret-basic.ts';
import type { CredentialRecord } from './credential-files.ts';

export interface RevocationOutcome {
  readonly issuer: string;
  readonly revoked: boolean;
  readonly reason?: string;
}

const REVOKE_TIMEOUT_MS = 10_000;

export async function revokeStored(entries: Readonly<Record<string, CredentialRecord>>): Promise<RevocationOutcome[]> {
  const http = oauthHttp({ timeoutMs: REVOKE_TIMEOUT_MS });
  const outcomes: RevocationOutcome[] = [];
  for (const [name, record] of Object.entries(entries)) {
    if (!name.startsWith('tokens ')) continue;
    const issuer = name.slice(name.lastIndexOf(' ') + 1);
    const registration = entries[`client ${issuer}`];
    const clientId = registration?.['clientId'];
    if (typeof clientId !== 'string') {
      outcomes.push({ issuer, revoked: false, reason: 'no client registration kept' });
      continue;
    }
    try {
      const as = await discoverAuthorizationServer(issuer, http, false);
      if (typeof as.revocation_endpoint !== 'string') {
        outcomes.push({ issuer, revoked: false, reason: 'the authorization server offers no revocation' });
        continue;
      }
      const client: oauth.Client = { client_id: clientId };
      const auth = clientAuthOf(registration);
      for (const token of [record['refreshToken'], record['accessToken']]) {
        if (typeof token !== 'string') continue;
        try {
          await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, token, http));
        } catch (error) {
          // RFC 7009 2.2.1: a server may not revoke some kinds (self-contained JWT access tokens): they expire.
          if (!(error instanceof oauth.ResponseBodyError && error.error === 'unsupported_token_type')) throw error;
        }
      }
      outcomes.push({ issuer, revoked: true });
    } catch (error) {
      outcomes.push({ issuer, revoked: false, reason: describe(error) });
    }
  }
  return outcomes;
}

function clientAuthOf(registration: CredentialRecord | undefined): oauth.ClientAuth {
  const secret = registration?.['clientSecret'];
  if (typeof secret !== 'string') return oauth.None();
  return registration?.['tokenEndpointAuthMethod'] === 'client_secret_post' ? oauth.ClientSecretPost(secret) : clientSecretBasic(secret);
}
