/**
 * How `rxmcp inspect|call|read|prompt` log in to a protected HTTP server: rxmcp/auth/client's OAuth client, its
 * store in the user's credential files (per server), and its interactive step done the RFC 8252 way: a loopback
 * redirect listener on 127.0.0.1 started only when a login is needed, the authorization URL printed (and opened in
 * the system browser unless `--no-browser`), the redirect awaited for a bounded time, the listener closed after.
 *
 * The client registers `http://127.0.0.1/callback` without a port as a native application: RFC 8252 section 7.3
 * has the authorization server accept any port on a loopback redirect, so one registration serves every login.
 */
import {
  type AuthorizationResult,
  type HttpClientAuth,
  authorizationCodeGrant,
  oauthClient,
} from '../../../auth/client/index.ts';
import { CredentialFiles } from './credential-files.ts';
import { fileOAuthStore } from './file-oauth-store.ts';
import { listenForRedirect } from './loopback-redirect.ts';
import { openBrowser } from './open-browser.ts';

export interface CliLoginOptions {
  /** The MCP server's URL (its file in the credential store). */
  readonly server: string;
  /** Open the system browser (false: print the URL only). */
  readonly browser: boolean;
  /** How long to wait for the browser to come back. */
  readonly timeoutMs: number;
  /** Where to say what is happening (stderr). */
  readonly say: (line: string) => void;
  /** The credential files (default: under the user's config directory). */
  readonly files?: CredentialFiles;
}

/** The path of the loopback redirect; the port is the listener's. */
const CALLBACK_PATH = '/callback';
const REGISTERED_REDIRECT = `http://127.0.0.1${CALLBACK_PATH}`;

export function cliLogin(options: CliLoginOptions): HttpClientAuth {
  const files = options.files ?? new CredentialFiles();
  return oauthClient({
    store: fileOAuthStore(files, options.server),
    clientMetadata: {
      client_name: 'rxmcp command line',
      redirect_uris: [REGISTERED_REDIRECT],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
    },
    grant: async (context) => {
      const listener = await listenForRedirect(CALLBACK_PATH);
      try {
        const grant = authorizationCodeGrant({
          redirectUri: listener.redirectUri,
          onAuthorizationUrl: async (url): Promise<AuthorizationResult> => {
            const state = url.searchParams.get('state') ?? '';
            options.say(`${options.server} needs a login at ${url.origin}; open this URL in a browser:\n  ${url.href}`);
            if (options.browser && !(await openBrowser(url.href))) options.say('(the browser could not be opened: use the URL above)');
            return listener.waitFor(state, { timeoutMs: options.timeoutMs });
          },
        });
        const tokens = await grant(context);
        options.say('logged in');
        return tokens;
      } finally {
        await listener.close();
      }
    },
  });
}
