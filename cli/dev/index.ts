/**
 * `rxmcp dev`: tools for development on this machine. `rxmcp dev auth-server` runs a development authorization
 * server, so that `rxmcp serve --auth-issuer` and the login of `rxmcp call` can be tried without one of your own.
 */
import { onStopSignals } from '../../transports/stdio/stop-signals.ts';
import { UsageError, closestFlag, parseCommand, portValue } from '../args.ts';
import { SCOPE_TOKEN } from '../auth-args.ts';
import { OIDC_PROVIDER_INSTALL } from '../optional-peer.ts';

const DEFAULT_PORT = 9000;
const DEFAULT_SCOPES = ['mcp:tools', 'mcp:admin'];

export const authServerUsage = `usage: rxmcp dev auth-server [--port N] [--scope S ...]

A development OAuth 2.1 authorization server on 127.0.0.1, to try authorization with rxmcp: oidc-provider with
open dynamic client registration (RFC 7591), resource indicators (RFC 8707: each MCP server gets JWT access tokens
whose audience is its URL), PKCE required, refresh tokens, and a sign-in page that takes any name. It prints what
to run next. Clients, logins and signing keys live in memory and end with the process.

For development on this machine only: anyone who reaches it may register a client and sign in as anyone.
Needs the oidc-provider package beside rxmcp (${OIDC_PROVIDER_INSTALL}).

options:
  -p, --port N   the port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  --scope S      a scope it grants MCP servers (repeatable; default ${DEFAULT_SCOPES.join(' and ')})
  -h, --help     show this help`;

export const devUsage = `usage: rxmcp dev <tool> [options]    (rxmcp dev <tool> --help for each)

tools for development on this machine:
  auth-server [--port N] [--scope S ...]
                 a development authorization server on 127.0.0.1 (oidc-provider, installed beside rxmcp:
                 ${OIDC_PROVIDER_INSTALL}) to try rxmcp serve --auth-issuer and the login of rxmcp call`;

const authServerCommand = {
  command: 'rxmcp dev auth-server',
  usage: authServerUsage,
  options: { port: { type: 'string', short: 'p' }, scope: { type: 'string', multiple: true } },
} as const;

/** Runs `rxmcp dev <argv>`; resolves with the exit code, or undefined when the user asked for help. */
export async function runDev(argv: readonly string[], out: (text: string) => void): Promise<number | undefined> {
  const [tool, ...rest] = argv;
  if (tool === undefined || tool === '--help' || tool === '-h') return undefined;
  if (tool !== 'auth-server') {
    const closest = closestFlag(tool, ['auth-server']);
    throw new UsageError('rxmcp dev', `unknown tool ${JSON.stringify(tool)}${closest === undefined ? '' : `; did you mean ${closest}?`}`);
  }
  const parsed = parseCommand(authServerCommand, rest);
  if (parsed.help) {
    out(authServerUsage);
    return 0;
  }
  const command = authServerCommand.command;
  const port = parsed.values.port === undefined ? DEFAULT_PORT : portValue(command, '--port', parsed.values.port);
  const scopes = parsed.values.scope ?? DEFAULT_SCOPES;
  for (const scope of scopes) {
    if (!SCOPE_TOKEN.test(scope)) throw new UsageError(command, `--scope takes one scope without spaces or quotes, got ${JSON.stringify(scope)}`);
    if (scope === 'openid' || scope === 'offline_access') throw new UsageError(command, `--scope names scopes for MCP servers; ${scope} is always known`);
  }
  return serveAuthServer(port, scopes, out);
}

async function serveAuthServer(port: number, scopes: readonly string[], out: (text: string) => void): Promise<number> {
  // Loaded only when run: node:http, jose and oidc-provider stay out of every other command's start.
  const { startDevAuthServer } = await import('./dev-provider.ts');
  const server = await startDevAuthServer({ port, scopes, log: (line) => out(`rxmcp dev auth-server: ${line}`) });
  out(nextSteps(server.issuer, scopes));
  await new Promise<void>((resolve) => {
    const remove = onStopSignals({
      graceful: () => {
        remove();
        resolve();
      },
    });
  });
  await server.close();
  out('rxmcp dev auth-server: stopped');
  return 0;
}

/** What the server is, and the commands that use it, for a user who has just started it. */
function nextSteps(issuer: string, scopes: readonly string[]): string {
  return `rxmcp dev auth-server: a development authorization server at ${issuer}
  for this machine only: any client may register and anyone may sign in, under any name;
  clients, logins and keys last as long as this process. Scopes for MCP servers: ${scopes.join(', ')}.

next, in a second terminal, the demo MCP server taking this server's tokens:
  npx rxmcp serve --auth-issuer ${issuer} --auth-allow-loopback-http --auth-scope ${scopes[0] ?? DEFAULT_SCOPES[0]}
and in a third, a call that logs in first (your browser opens the sign-in page):
  npx rxmcp call http://127.0.0.1:3000/mcp whoami
your own server: bearerAuth({ resource, authorizationServers: ['${issuer}'], allowLoopbackHttp: true }) (rxmcp/auth)
Ctrl-C stops`;
}
