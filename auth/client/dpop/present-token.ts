/**
 * The headers that present an access token, by the type the authorization server gave it: `Authorization: DPoP`
 * with a fresh proof for a DPoP-bound token, `Authorization: Bearer` otherwise (a server that ignored the DPoP
 * proof at the token request issues a bearer token, RFC 9449 §5).
 */
import type { AuthorizedRequest } from '../../../transports/http/client/auth-port.ts';
import type { DPoPBinding } from './dpop.ts';

export interface PresentedToken {
  readonly access_token: string;
  /** Lower case, as oauth4webapi reports it. */
  readonly token_type: string;
}

export async function tokenHeaders(
  token: PresentedToken,
  request: AuthorizedRequest,
  binding: DPoPBinding | undefined,
): Promise<Readonly<Record<string, string>>> {
  if (token.token_type.toLowerCase() !== 'dpop') return { authorization: `Bearer ${token.access_token}` };
  if (binding === undefined) throw new Error('a DPoP-bound token cannot be presented without the DPoP key it is bound to');
  return binding.headersFor(token.access_token, request);
}
