/**
 * The command-line client: one session to a target, with form elicitation answered on a terminal (declined
 * without one). Failures to reach the target name it and the cause.
 */
import { isLocalError } from '../../core/errors.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { createClient } from '../../client/create-client.ts';
import { elicitationAnswerer } from './elicit-prompt.ts';
import type { CredentialFiles } from './login/credential-files.ts';
import { type CliLogin, cliLogin } from './login/cli-login.ts';
import { type Target, openTarget } from './target.ts';

export interface ConnectCliOptions {
  /** `rxmcp <command>`'s name, for messages. */
  readonly command: string;
  readonly era: 'auto' | 'legacy' | 'modern';
  readonly prefix: string | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs: number;
  /** Called on Ctrl-C while an elicitation prompt owns the terminal. */
  readonly onInterrupt: () => void;
  /** Diagnostics for the user (stderr). */
  readonly say: (line: string) => void;
  /** Logging in to an HTTP server that asks for OAuth (undefined: never). */
  readonly login?: { readonly browser: boolean; readonly timeoutMs: number } | undefined;
  /** Where logins are kept (default: the user's credential files). */
  readonly files?: CredentialFiles;
}

export interface CliConnection {
  readonly session: ClientSession;
  /** The OAuth login of an HTTP target (undefined: none was possible). */
  readonly login: CliLogin | undefined;
  /** Closes the session, the transport and whatever the target needed (a NATS connection). */
  close(): Promise<void>;
}

/** Thrown when the target cannot be reached or will not speak MCP: the CLI exits 1 with its message. */
export class TargetUnreachable extends Error {
  override readonly name = 'TargetUnreachable';
}

export async function connectTarget(target: Target, options: ConnectCliOptions): Promise<CliConnection> {
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const client = createClient({
    name: 'rxmcp-cli',
    version: '0.1.0',
    era: options.era,
    // A stdio child may take seconds to start (a TypeScript server compiling): silence then is not a legacy
    // server, which would refuse the probe at once. The probe waits as long as connecting may take.
    ...(target.kind === 'stdio' ? { probeTimeoutMs: options.timeoutMs } : {}),
    elicitation: { form: elicitationAnswerer({ input: process.stdin, output: process.stderr, interactive, onInterrupt: options.onInterrupt }, options.say) },
  });
  const login = loginFor(target, options);
  let opened: Awaited<ReturnType<typeof openTarget>>;
  try {
    opened = await openTarget(options.command, target, { prefix: options.prefix, ...(options.headers === undefined ? {} : { headers: options.headers }), auth: login?.auth });
  } catch (error) {
    if (error instanceof Error && error.name === 'UsageError') throw error;
    throw new TargetUnreachable(`cannot reach ${target.label}: ${causeOf(error)}`, { cause: error });
  }
  let session: ClientSession;
  try {
    // A login happens inside the first request: connecting may take as long as the browser is given too.
    const loginMs = target.kind === 'http' && options.login !== undefined ? options.login.timeoutMs : 0;
    session = await client.connect(opened.transport, { initializeTimeoutMs: options.timeoutMs + loginMs });
  } catch (error) {
    await opened.transport.close().catch(() => undefined);
    await opened.release();
    throw connectFailure(target, error, login);
  }
  return {
    session,
    login,
    async close() {
      await session.close().catch(() => undefined);
      await opened.transport.close().catch(() => undefined);
      await opened.release();
    },
  };
}

/** The OAuth login of an HTTP target, unless the user brought an Authorization header of their own. */
function loginFor(target: Target, options: ConnectCliOptions): CliLogin | undefined {
  if (target.kind !== 'http' || options.login === undefined) return undefined;
  if (Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) return undefined;
  return cliLogin({ server: target.url, browser: options.login.browser, timeoutMs: options.login.timeoutMs, ...(options.files === undefined ? {} : { files: options.files }), say: options.say });
}

/**
 * Why connecting failed, in the user's terms: a login not completed says so (the server answered: it was
 * reached), a refusal of the credentials too; only a target that never answered is "cannot reach".
 */
function connectFailure(target: Target, error: unknown, login: CliLogin | undefined): Error {
  if (login?.failure !== undefined) return login.failure;
  if (refusedCredentials(error)) return new TargetUnreachable(`${target.label} refused the request: ${causeOf(error)}`, { cause: error });
  return new TargetUnreachable(`cannot reach ${target.label}: ${causeOf(error)}`, { cause: error });
}

/**
 * Whether the server refused the credentials (it answered): the auth layer's `Unauthorized`, or, with no OAuth
 * client in the way (an Authorization header of the user's own), the transport's report of a 401 or 403 answer.
 */
function refusedCredentials(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (isLocalError(current, 'Unauthorized')) return true;
    if (isLocalError(current, 'TransportFailed') && /^The server (answered|refused) .* with HTTP 40[13]\b/.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** The innermost useful message: a transport failure usually wraps the socket's error. */
function causeOf(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    const text = isLocalError(current) || typeof code !== 'string' ? current.message : `${current.message} (${code})`;
    if (current.message !== '' && !messages.some((seen) => seen.includes(current instanceof Error ? current.message : ''))) messages.push(text);
    current = current.cause;
  }
  return messages.length === 0 ? String(error) : messages.join(': ');
}
