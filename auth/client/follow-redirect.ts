/**
 * `followAuthorizationRedirect`: the authorization step with no user in it, for tests and the conformance suite.
 * Published by `rxmcp/testing` (not `rxmcp/auth/client`): a real program shows the URL to a person. Kept apart
 * from the grant so importing it loads no OAuth library.
 */
import type { AuthorizationUrlHandler } from './authorization-code.ts';

export type { AuthorizationUrlHandler };

/**
 * An `onAuthorizationUrl` for when no user is involved (tests, an authorization server that decides at once):
 * requests the authorization URL without following the redirect and answers with its `Location`.
 */
export function followAuthorizationRedirect(options: { readonly fetch?: typeof fetch; readonly timeoutMs?: number } = {}): AuthorizationUrlHandler {
  const fetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (url) => {
    const response = await fetchFunction(url, { redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) {
      throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
    }
    return new URL(location, url);
  };
}
