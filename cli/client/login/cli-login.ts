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
  AuthorizationError,
  type AuthorizationResult,
  type HttpClientAuth,
  authorizationCodeGrant,
  createOAuthClient,
} from '../../../auth/client/index.ts';
import { CredentialFiles } from './credential-files.ts';
import { fileOAuthStore } from './file-oauth-store.ts';
import { LoginTimeout, listenForRedirect } from './loopback-redirect.ts';
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

/**
 * A command's logins: the OAuth client the transport uses, and what its logins came to. One login is asked at a
 * time, and a login not completed is asked no more: the era probing of a command (the modern probe, then the
 * legacy fallback) meets the server's 401 twice, and the second must not print a second URL and wait a second
 * `--login-timeout` for a user who did not finish the first.
 */
export interface CliLogin {
  readonly auth: HttpClientAuth;
  /** Why the command's login did not complete, once one did not. */
  readonly failure: LoginNotCompleted | undefined;
  /** Logins completed (a step-up for a wider scope is a second one). */
  readonly completed: number;
}

/** A login the user did not finish (timed out, refused, or its token request failed): the command gives up. */
export class LoginNotCompleted extends Error {
  override readonly name = 'LoginNotCompleted';
}

export function cliLogin(options: CliLoginOptions): CliLogin {
  const files = options.files ?? new CredentialFiles();
  let failure: LoginNotCompleted | undefined;
  let completed = 0;
  const auth = createOAuthClient({
    store: fileOAuthStore(files, options.server),
    clientMetadata: {
      client_name: 'rxmcp command line',
      redirect_uris: [REGISTERED_REDIRECT],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
    },
    grant: async (context) => {
      if (failure !== undefined) throw failure;
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
        completed += 1;
        options.say('logged in');
        return tokens;
      } catch (error) {
        failure = new LoginNotCompleted(`login not completed: ${notCompletedReason(error, options.timeoutMs)}`, { cause: error });
        throw failure;
      } finally {
        await listener.close();
      }
    },
  });
  return {
    auth,
    get failure() {
      return failure;
    },
    get completed() {
      return completed;
    },
  };
}

/** What went wrong, in the user's terms, with what to do about it. */
function notCompletedReason(error: unknown, timeoutMs: number): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  if (cause instanceof LoginTimeout) {
    return `the browser did not come back within ${Math.round(timeoutMs / 1000)} s (--login-timeout); open the printed URL in a browser on this machine and sign in before that, or give more time with --login-timeout`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AuthorizationError && error.failure === 'authorization-response') return `${message}; run the command again to sign in again`;
  return message;
}
