/**
 * Reads a resource server's refusal with oauth4webapi's own `WWW-Authenticate` parser: the refusal is handed to
 * `protectedResourceRequest` through a fetch that sends nothing and answers with the refusal's status and
 * challenge header, so the library's challenge error (and `isDPoPNonceError`) judges it. No request leaves.
 */
import * as oauth from 'oauth4webapi';

/** True when the refusal is a `DPoP error="use_dpop_nonce"` challenge (RFC 9449 §9). */
export async function isNonceChallenge(status: number, wwwAuthenticate: string | undefined, url: URL): Promise<boolean> {
  if (wwwAuthenticate === undefined) return false;
  try {
    await oauth.protectedResourceRequest('challenge', 'POST', url, undefined, undefined, {
      [oauth.allowInsecureRequests]: true,
      [oauth.customFetch]: () => Promise.resolve(new Response(null, { status, headers: { 'www-authenticate': wwwAuthenticate } })),
    });
    return false;
  } catch (error) {
    return oauth.isDPoPNonceError(error);
  }
}
