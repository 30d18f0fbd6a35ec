/** Whether a resource server's refusal asks for a DPoP nonce, read with the kit's own challenge parser. */
import { parseWwwAuthenticate } from '../../policy/www-authenticate.ts';

/** True when the refusal carries a `DPoP error="use_dpop_nonce"` challenge (RFC 9449 §9). */
export function isNonceChallenge(wwwAuthenticate: string | undefined): boolean {
  if (wwwAuthenticate === undefined) return false;
  return parseWwwAuthenticate(wwwAuthenticate).some((challenge) => challenge.scheme === 'dpop' && challenge.parameters['error'] === 'use_dpop_nonce');
}
