/**
 * `rxmcp gateway --nats <url> --name <server> [--prefix p] [--host h] [--port n] [--path /mcp]`: serves the
 * NATS-hosted MCP server `<server>` on Streamable HTTP (and HTTP+SSE) until SIGINT/SIGTERM, then shuts down
 * gracefully (a second signal ends at once). Run as many replicas
 * as you like behind a load balancer: they share sessions and SSE events through JetStream. `/healthz` and
 * `/readyz` are the probes for that load balancer (readiness follows the NATS connection).
 *
 * `rxmcp gateway --mesh` serves instead the union of every server announced on NATS (rxmcp/mesh), on the same
 * HTTP endpoint and flags, and on NATS too with `--serve-nats NAME` (cli/gateway/mesh-gateway.ts).
 */
import { type StopSignal, onStopSignals } from '../../transports/stdio/stop-signals.ts';
import { serverSubjects } from '../../transports/nats/subjects.ts';
import { UsageError, parseCommand, portValue, positiveIntegerValue } from '../args.ts';
import { listenOrExplain } from '../listen.ts';
import { jetstreamReplicasFlag, jetstreamReplicasHelp, natsConnectionFlags, natsConnectionHelp, natsConnectionOf } from '../nats-args.ts';
import { withNats } from '../optional-peer.ts';
import { readPrivateKey } from '../gateway-keys.ts';
import { authArgsOf, authFlags, authHelp, bearerAuthOf, describeAuth, resourceOf } from '../auth-args.ts';
import { LAST_ANSWERS_MS, drainFlag, drainHelp, drainMsOf, stoppingHelp } from '../stopping.ts';
import type { GatewayArgs, GatewayFrontArgs, MeshGatewayArgs } from './gateway-args.ts';
import { meshFaceOf, meshFlags, meshFlagsGiven, meshHelp } from './mesh-args.ts';

export const gatewayUsage = `usage: rxmcp gateway --name S [--nats URL] [--prefix P] [--host H] [--port N] [--path /mcp] [--identity-key FILE]
                     [--drain-ms N] [authorization options]
       rxmcp gateway --mesh [--nats URL] [--select B,...] [--naming collisions|always] [--mesh-name NAME]
                     [--serve-nats NAME [--prefix P]] [--host H] [--port N] [--path /mcp] [...as above]

Serves the NATS-hosted MCP server S on Streamable HTTP (and HTTP+SSE for 2024-11-05 clients) until SIGINT or
SIGTERM. Run as many replicas as you like behind a load balancer: they share sessions and SSE events through
JetStream. GET /healthz answers 200 while the process runs; GET /readyz answers 200 while it takes new sessions
and 503 with the reason while it does not (NATS connection down, shutting down, at its session limit).
With --mesh it serves the union of every MCP server announced on NATS instead (below).

options:
  --name S         the MCP server's name on NATS (required, unless --mesh)
  --prefix P       the subject prefix (default mcp)
  --host H         the address to listen on (default 127.0.0.1)
  -p, --port N     the HTTP port (default $PORT, then 3000; 0 picks a free one)
  --path /mcp      the Streamable HTTP endpoint's path (default /mcp)
  --identity-key FILE  a private JWK: vouch for the HTTP callers --auth-issuer authenticates to the servers
                   with assertions signed by it (servers trust its public half: --trust-gateway);
                   docs/nats-binding.md
  --identity-issuer NAME  the assertions' issuer (default rxmcp-gateway)
${drainHelp}
  -h, --help       show this help

${meshHelp}

${authHelp}

${natsConnectionHelp}
${jetstreamReplicasHelp}

${stoppingHelp}`;

const gatewayCommand = {
  command: 'rxmcp gateway',
  usage: gatewayUsage,
  options: {
    ...natsConnectionFlags,
    ...jetstreamReplicasFlag,
    name: { type: 'string' },
    'identity-key': { type: 'string' },
    'identity-issuer': { type: 'string' },
    prefix: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string', short: 'p' },
    path: { type: 'string' },
    ...drainFlag,
    ...authFlags,
    ...meshFlags,
  },
} as const;

/** The options of `rxmcp gateway` (named, or `--mesh`), or undefined when the user asked for help. */
export function parseGatewayArgs(argv: readonly string[]): GatewayArgs | MeshGatewayArgs | undefined {
  const parsed = parseCommand(gatewayCommand, argv);
  if (parsed.help) return undefined;
  const { values } = parsed;
  const command = gatewayCommand.command;
  if (values.mesh === true && values.name !== undefined) throw new UsageError(command, '--mesh serves the union of every server on NATS and --name one of them: give one of the two');
  if (values.mesh !== true) {
    const meshOnly = meshFlagsGiven(values)[0];
    if (meshOnly !== undefined) throw new UsageError(command, `${meshOnly} is for the mesh: add --mesh`);
    if (values.name === undefined) throw new UsageError(command, 'needs --name <the MCP server name on NATS>, or --mesh for the union of them all');
    // The binding's own check of the name and prefix, as a usage error.
    try {
      serverSubjects(values.prefix ?? 'mcp', values.name);
    } catch (error) {
      throw new UsageError(command, error instanceof Error ? error.message : String(error));
    }
  }
  if (values['identity-issuer'] !== undefined && values['identity-key'] === undefined) throw new UsageError(command, '--identity-issuer names the signer of --identity-key FILE: give the key too');
  const path = values.path ?? '/mcp';
  if (!path.startsWith('/')) throw new UsageError(command, `--path must start with "/", got ${JSON.stringify(path)}`);
  const port = values.port !== undefined ? portValue(command, '--port', values.port) : portValue(command, 'PORT (from the environment)', process.env['PORT'] ?? '3000');
  const host = values.host ?? '127.0.0.1';
  // The mesh's flags before the shared ones: a mistake of its own is named first.
  const mesh = values.mesh === true ? meshFaceOf(command, values) : undefined;
  const authArgs = authArgsOf(command, values);
  const auth = authArgs === undefined ? undefined : { args: authArgs, resource: resourceOf(command, authArgs, { host, port, path }) };
  const front: GatewayFrontArgs = {
    nats: natsConnectionOf(command, values),
    identityKey: values['identity-key'],
    identityIssuer: values['identity-issuer'],
    host,
    port,
    path,
    replicas: values['js-replicas'] === undefined ? undefined : positiveIntegerValue(command, '--js-replicas', values['js-replicas']),
    auth,
    drainMs: drainMsOf(command, values['drain-ms']),
  };
  if (mesh !== undefined) return { ...front, mesh };
  // Without --mesh, --name was required above.
  return { ...front, name: values.name as string, prefix: values.prefix ?? 'mcp' };
}

/** Runs the gateway the options describe until a stop signal. */
export async function runGateway(args: GatewayArgs | MeshGatewayArgs, print: (line: string) => void): Promise<void> {
  if (args.mesh !== undefined) {
    const { runMeshGateway } = await import('./mesh-gateway.ts');
    return runMeshGateway(args, print);
  }
  return runNamedGateway(args, print);
}

async function runNamedGateway(args: GatewayArgs, print: (line: string) => void): Promise<void> {
  const [{ closeNats, connectNats }, { createGateway }, { createIdentitySigner }] = await withNats(() => Promise.all([import('../bridge/connect.ts'), import('./gateway.ts'), import('../../transports/nats/index.ts')]));
  const identity = args.identityKey === undefined ? undefined : createIdentitySigner({ key: readPrivateKey(args.identityKey), ...(args.identityIssuer === undefined ? {} : { issuer: args.identityIssuer }) });
  const connection = await connectNats(args.nats.url, `rxmcp-gateway-${args.name}`, args.nats.credentials, { maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const gateway = await createGateway({ connection, name: args.name, prefix: args.prefix, ...(args.replicas === undefined ? {} : { replicas: args.replicas }), ...(identity === undefined ? {} : { identity }), http: { path: args.path, legacySse: { ssePath: '/sse', messagesPath: '/messages' }, ...(args.auth === undefined ? {} : bearerAuthOf(args.auth.args, args.auth.resource)) } }).catch(async (error: unknown) => {
    await closeNats(connection);
    throw error;
  });
  const listening = await listenOrExplain(() => gateway.http.listen(args.port, args.host), args.port, args.host).catch(async (error: unknown) => {
    await gateway.close({ drainMs: 0, flushMs: LAST_ANSWERS_MS });
    await closeNats(connection);
    throw error;
  });
  print(`rxmcp gateway for "${args.name}" on ${args.nats.url} listening at ${listening.url}`);
  if (args.auth !== undefined) print(`${describeAuth(args.auth.args, args.auth.resource)}${identity === undefined ? '' : '; the servers are told who each caller is (--identity-key)'}`);
  else if (identity !== undefined) print('note: --identity-key vouches only for authenticated callers, and without --auth-issuer every caller is anonymous');
  let removeSignals = (): void => undefined;
  const signal = await new Promise<StopSignal>((resolve) => (removeSignals = onStopSignals({ graceful: resolve })));
  print(`stopping (${signal}): new requests are refused, requests in flight have ${args.drainMs} ms to be answered; a second signal ends at once`);
  // Sessions drain first, while the sockets are open; closing the gateway's HTTP side stops its listener too.
  await gateway.close({ drainMs: args.drainMs, flushMs: LAST_ANSWERS_MS });
  await listening.close();
  await closeNats(connection);
  removeSignals();
  print('stopped');
}
