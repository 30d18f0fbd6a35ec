/** What `rxmcp inspect|call|read|prompt` share: the options about the connection, and the run around a command. */
import { UsageError, choiceValue, positiveIntegerValue } from '../args.ts';
import { type CliConnection, connectTarget } from './connect.ts';
import { type Target, parseTarget, targetHelp } from './target.ts';
import { natsConnectionOf, natsCredentialFlags } from '../nats-args.ts';

export const connectionOptions = {
  era: { type: 'string' },
  prefix: { type: 'string' },
  header: { type: 'string', multiple: true, short: 'H' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  ...natsCredentialFlags,
  'no-browser': { type: 'boolean' },
  'login-timeout': { type: 'string' },
} as const;

export const connectionHelp = `${targetHelp}

connection options:
  --era legacy|modern      speak this protocol era (default: ask the server, fall back to legacy)
  --prefix P               the NATS subject prefix (default mcp)
  -H, --header 'N: V'      an HTTP header for every request, e.g. -H 'Authorization: Bearer ...' (repeatable)
  --timeout MS             how long connecting may take (default 30000)
  --no-browser             an OAuth login prints its URL without opening the browser
  --login-timeout MS       how long an OAuth login may wait for the browser (default 300000)
  --json                   print JSON (the default when stdout is not a terminal)
  --nats-user U, --nats-password P, --nats-token T, --nats-nkey FILE, --nats-creds FILE, --nats-ca FILE,
  --nats-cert FILE --nats-key FILE
                           NATS credentials for nats:// targets (or $NATS_USER, $NATS_PASSWORD, ...)
  -h, --help               show this help`;

export interface ConnectionValues {
  readonly era?: string | undefined;
  readonly prefix?: string | undefined;
  readonly header?: string[] | undefined;
  readonly timeout?: string | undefined;
  readonly json?: boolean | undefined;
  readonly 'nats-user'?: string | undefined;
  readonly 'nats-password'?: string | undefined;
  readonly 'nats-token'?: string | undefined;
  readonly 'nats-nkey'?: string | undefined;
  readonly 'nats-creds'?: string | undefined;
  readonly 'nats-ca'?: string | undefined;
  readonly 'nats-cert'?: string | undefined;
  readonly 'nats-key'?: string | undefined;
  readonly 'no-browser'?: boolean | undefined;
  readonly 'login-timeout'?: string | undefined;
}

export interface ClientCommandContext {
  readonly command: string;
  readonly target: Target;
  /** Positionals after the target. */
  readonly rest: readonly string[];
  /** Print JSON rather than text. */
  readonly json: boolean;
  readonly era: 'auto' | 'legacy' | 'modern';
  readonly prefix: string | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;
  readonly timeoutMs: number;
  /** An OAuth login, for HTTP targets that ask for one. */
  readonly login: { readonly browser: boolean; readonly timeoutMs: number };
}

export function clientCommandContext(command: string, values: ConnectionValues, positionals: readonly string[], commandLine: readonly string[] | undefined): ClientCommandContext {
  const parsed = parseTarget(command, positionals, commandLine, values.prefix);
  const rest = parsed.rest;
  const natsFlag = Object.keys(values).find((flag) => flag.startsWith('nats-'));
  if (natsFlag !== undefined && parsed.target.kind !== 'nats') throw new UsageError(command, `--${natsFlag} is for nats:// targets`);
  // The URL is the target's; the flags (and NATS_* variables) give the credentials.
  const target: Target = parsed.target.kind === 'nats' ? { ...parsed.target, credentials: natsConnectionOf(command, { ...values, nats: parsed.target.servers }).credentials } : parsed.target;
  if (values.prefix !== undefined && target.kind !== 'nats') throw new UsageError(command, '--prefix is for nats:// targets');
  let headers: Record<string, string> | undefined;
  for (const header of values.header ?? []) {
    if (target.kind !== 'http') throw new UsageError(command, '--header is for http(s):// targets');
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(command, `--header takes 'Name: value', got ${JSON.stringify(header)}`);
    (headers ??= {})[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return {
    command,
    target,
    rest,
    json: values.json === true || process.stdout.isTTY !== true,
    era: values.era === undefined ? 'auto' : choiceValue(command, '--era', values.era, ['legacy', 'modern'] as const),
    prefix: values.prefix,
    headers,
    timeoutMs: values.timeout === undefined ? 30_000 : positiveIntegerValue(command, '--timeout', values.timeout),
    login: {
      browser: values['no-browser'] !== true,
      timeoutMs: values['login-timeout'] === undefined ? 300_000 : positiveIntegerValue(command, '--login-timeout', values['login-timeout']),
    },
  };
}

/**
 * Connects, runs `body`, and closes whatever happens. `onInterrupt` is what Ctrl-C at an elicitation prompt
 * does (the command's own SIGINT handling).
 */
export async function withConnection<T>(context: ClientCommandContext, body: (connection: CliConnection) => Promise<T>, onInterrupt: () => void = () => process.kill(process.pid, 'SIGINT')): Promise<T> {
  const connection = await connectTarget(context.target, {
    command: context.command.replace(/^rxmcp /, ''),
    era: context.era,
    prefix: context.prefix,
    headers: context.headers,
    timeoutMs: context.timeoutMs,
    login: context.login,
    onInterrupt,
    say: (line) => process.stderr.write(`${context.command}: ${line}\n`),
  });
  try {
    return await body(connection);
  } catch (error) {
    // A step-up login the user did not finish: said as such, not as the call's failure.
    throw connection.login?.failure ?? error;
  } finally {
    await connection.close();
  }
}
