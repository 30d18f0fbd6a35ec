/**
 * The command-line client: one session to a target, with form elicitation answered on a terminal (declined
 * without one). Failures to reach the target name it and the cause.
 */
import { isLocalError } from '../../core/errors.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { createClient } from '../../client/create-client.ts';
import { elicitationAnswerer } from './elicit-prompt.ts';
import { cliLogin } from './login/cli-login.ts';
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
}

export interface CliConnection {
  readonly session: ClientSession;
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
  let opened: Awaited<ReturnType<typeof openTarget>>;
  try {
    opened = await openTarget(options.command, target, { prefix: options.prefix, ...(options.headers === undefined ? {} : { headers: options.headers }), auth: loginFor(target, options) });
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
    throw new TargetUnreachable(`cannot reach ${target.label}: ${causeOf(error)}`, { cause: error });
  }
  return {
    session,
    async close() {
      await session.close().catch(() => undefined);
      await opened.transport.close().catch(() => undefined);
      await opened.release();
    },
  };
}

/** The OAuth login of an HTTP target, unless the user brought an Authorization header of their own. */
function loginFor(target: Target, options: ConnectCliOptions): ReturnType<typeof cliLogin> | undefined {
  if (target.kind !== 'http' || options.login === undefined) return undefined;
  if (Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) return undefined;
  return cliLogin({ server: target.url, browser: options.login.browser, timeoutMs: options.login.timeoutMs, say: options.say });
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
