/**
 * `rxmcp logout <url>`: revokes the tokens a login to an MCP server left (RFC 7009, where the authorization server
 * offers it) and forgets them, with the client registration made for that server, from the credential files.
 */
import { UsageError, parseCommand } from '../args.ts';
import { CredentialFiles, serverKey } from './login/credential-files.ts';
import { revokeStored } from './login/revoke.ts';

export const logoutUsage = `usage: rxmcp logout <url>

Revokes at the authorization server (where it offers revocation) and forgets the OAuth tokens, and the client
registration, that rxmcp inspect|call|read|prompt keep for the MCP server at <url>, in
$XDG_CONFIG_HOME/rxmcp/credentials (else ~/.config/rxmcp/credentials). The tokens are forgotten even when
revoking fails.

options:
  -h, --help               show this help`;

const logoutCommand = { command: 'rxmcp logout', usage: logoutUsage, options: {}, positionals: true } as const;

/** Runs `rxmcp logout <argv>`; resolves with the exit code (undefined: help was asked for). */
export async function runLogout(argv: readonly string[], print: (text: string) => void, files: CredentialFiles = new CredentialFiles()): Promise<number | undefined> {
  const parsed = parseCommand(logoutCommand, argv);
  if (parsed.help) return undefined;
  const command = logoutCommand.command;
  const [raw, ...extra] = parsed.positionals;
  if (raw === undefined) throw new UsageError(command, 'needs the URL of the server to log out of');
  if (extra.length > 0) throw new UsageError(command, `unexpected argument ${JSON.stringify(extra[0])}`);
  let server: string;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http(s)');
    server = serverKey(url.href);
  } catch {
    throw new UsageError(command, `the server must be an http(s):// URL, got ${JSON.stringify(raw)}`);
  }
  for (const outcome of await revokeStored(await files.read(server))) {
    print(outcome.revoked ? `revoked the tokens issued by ${outcome.issuer}` : `not revoked at ${outcome.issuer} (${outcome.reason ?? 'unknown'}): they stay valid until they expire`);
  }
  const removed = await files.remove(server);
  print(removed ? `logged out of ${server}` : `no login kept for ${server}`);
  return 0;
}
