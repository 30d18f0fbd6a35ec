/**
 * `rxmcp login <url>`: logs in to a protected MCP server ahead of time, so a script's later `rxmcp call|inspect|
 * read|prompt` to it need no browser. It connects as those commands do (the server's 401 starts the login, the
 * tokens go to the credential file `rxmcp logout <url>` removes) and closes again.
 */
import { EXIT_OK, UsageError, parseCommand, positiveIntegerValue } from '../args.ts';
import { connectTarget } from './connect.ts';
import { CredentialFiles, serverKey } from './login/credential-files.ts';

export const loginUsage = `usage: rxmcp login <url> [options]

Logs in to the MCP server at <url> (an http(s) URL) the way rxmcp inspect|call|read|prompt do when a server asks:
the authorization URL is printed on stderr and opened in the browser, the browser comes back to a one-shot
listener on 127.0.0.1, and the tokens are kept in $XDG_CONFIG_HOME/rxmcp/credentials (else
~/.config/rxmcp/credentials), where the next commands to that server find them and rxmcp logout <url> removes
them. A login kept from before that the server still accepts is used as it is (rxmcp logout <url> first to log in
afresh). Exits 1 when the login is not completed.

options:
  --no-browser             print the URL without opening the browser
  --login-timeout MS       how long to wait for the browser (default 300000)
  --timeout MS             how long connecting may take besides the login (default 30000)
  -H, --header 'N: V'      another HTTP header for every request (not Authorization: that needs no login)
  -h, --help               show this help`;

const loginCommand = {
  command: 'rxmcp login',
  usage: loginUsage,
  options: {
    'no-browser': { type: 'boolean' },
    'login-timeout': { type: 'string' },
    timeout: { type: 'string' },
    header: { type: 'string', multiple: true, short: 'H' },
  },
  positionals: true,
} as const;

/** Runs `rxmcp login <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runLogin(argv: readonly string[], print: (text: string) => void, files: CredentialFiles = new CredentialFiles()): Promise<number | undefined> {
  const parsed = parseCommand(loginCommand, argv);
  if (parsed.help) return undefined;
  const command = loginCommand.command;
  const [raw, ...extra] = parsed.positionals;
  if (raw === undefined) throw new UsageError(command, 'needs the URL of the MCP server to log in to');
  if (extra.length > 0) throw new UsageError(command, `unexpected argument ${JSON.stringify(extra[0])}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(command, `the server must be an http(s):// URL, got ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(command, `only HTTP servers ask for an OAuth login: the server must be an http(s):// URL, got ${JSON.stringify(raw)}`);
  const headers: Record<string, string> = {};
  for (const header of parsed.values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(command, `--header takes 'Name: value', got ${JSON.stringify(header)}`);
    const name = header.slice(0, colon).trim();
    if (name.toLowerCase() === 'authorization') throw new UsageError(command, 'an Authorization header of your own needs no login: pass it to the other commands with -H');
    headers[name] = header.slice(colon + 1).trim();
  }
  const values = parsed.values;
  const server = serverKey(url.href);
  const connection = await connectTarget(
    { kind: 'http', url: url.href, label: url.href },
    {
      command: 'login',
      era: 'auto',
      prefix: undefined,
      headers: Object.keys(headers).length === 0 ? undefined : headers,
      timeoutMs: values.timeout === undefined ? 30_000 : positiveIntegerValue(command, '--timeout', values.timeout),
      login: {
        browser: values['no-browser'] !== true,
        timeoutMs: values['login-timeout'] === undefined ? 300_000 : positiveIntegerValue(command, '--login-timeout', values['login-timeout']),
      },
      files,
      onInterrupt: () => process.kill(process.pid, 'SIGINT'),
      say: (line) => process.stderr.write(`${command}: ${line}\n`),
    },
  );
  const completed = connection.login?.completed ?? 0;
  await connection.close();
  if (completed > 0) print(`logged in to ${server}; rxmcp logout ${server} forgets it`);
  else if (Object.keys(await files.read(server)).some((entry) => entry.startsWith('tokens '))) print(`already logged in to ${server}: the kept login was accepted (rxmcp logout ${server} first to log in afresh)`);
  else print(`${server} asked for no login: there is nothing to keep`);
  return EXIT_OK;
}
