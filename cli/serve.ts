/**
 * `rxmcp serve`: the demo server on Streamable HTTP at 127.0.0.1 (and legacy HTTP+SSE for 2024-11-05
 * clients), or on stdio with `--stdio`.
 */
import { type StopSignal, onStopSignals } from '../transports/stdio/stop-signals.ts';
import { createSessionHost } from '../server/session-host.ts';
import { createStreamableHttpServer } from '../transports/http/index.ts';
import { serveStdio } from '../transports/stdio/index.ts';
import { UsageError, parseCommand, portValue, positiveIntegerValue } from './args.ts';
import { type NatsConnectArgs, type NatsTrustArgs, jetstreamReplicasFlag, jetstreamReplicasHelp, natsConnectionFlags, natsConnectionHelp, natsConnectionOf, natsTrustFlags, natsTrustHelp, natsTrustOf } from './nats-args.ts';
import { withNats } from './optional-peer.ts';
import { serverSubjects } from '../transports/nats/subjects.ts';
import { createDemoServer } from './demo-server.ts';
import { listenOrExplain } from './listen.ts';
import { withRequestLog } from './request-log.ts';
import { type AuthArgs, authArgsOf, authFlags, authFlagsGiven, authHelp, bearerAuthOf, describeAuth, resourceOf } from './auth-args.ts';
import { LAST_ANSWERS_MS, drainFlag, drainHelp, drainMsOf, letOutputFinish, stoppingHelp } from './stopping.ts';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  /** Log each request (method, tool, duration, outcome) to stderr, one line each. */
  readonly verbose: boolean;
  /** Once told to stop, how long requests in flight may still run (`--drain-ms`, default 10 s). */
  readonly drainMs: number;
  /** Serve on NATS instead of HTTP (`--nats`): the connection, the name and prefix, the trusted gateways. */
  readonly nats?: {
    readonly connection: NatsConnectArgs;
    readonly name: string;
    readonly prefix: string;
    readonly trust: NatsTrustArgs | undefined;
    /** Copies of the session records' KV bucket in a JetStream cluster (`--js-replicas`). */
    readonly replicas?: number | undefined;
  } | undefined;
  /** HTTP only: callers need an access token (`--auth-issuer` ...), with this resource URI. */
  readonly auth?: { readonly args: AuthArgs; readonly resource: string } | undefined;
}

export const serveUsage = `usage: rxmcp serve [--port N] [--host H] [--stdio] [--verbose] [--drain-ms N] [authorization options]
       rxmcp serve --nats URL [--name demo] [--prefix mcp] [NATS and identity options]

Runs the demo server: tools that stream progress, elicit (with a fallback for clients that cannot answer),
and return structured output; a resource that changes; a template; a prompt.

options:
  -p, --port N     the HTTP port (default $PORT, then 3000; 0 picks a free one)
  --host H         the address to listen on (default 127.0.0.1)
  --stdio          speak MCP on stdin/stdout instead of HTTP (stdout carries nothing else)
  -v, --verbose    log each request to stderr, one JSON line each: method, tool, duration, outcome
${drainHelp}
  --nats URL       serve on NATS (docs/nats-binding.md) instead of HTTP, as --name (default demo) under
                   --prefix (default mcp); legacy sessions are recorded in JetStream KV
  -h, --help       show this help

${authHelp}
  (HTTP only; the endpoint is http://host:port/mcp)

${natsConnectionHelp}
${jetstreamReplicasHelp}

${natsTrustHelp}

${stoppingHelp}`;

const serveCommand = {
  command: 'rxmcp serve',
  usage: serveUsage,
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    stdio: { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
    ...drainFlag,
    ...natsConnectionFlags,
    ...jetstreamReplicasFlag,
    ...natsTrustFlags,
    ...authFlags,
    name: { type: 'string' },
    prefix: { type: 'string' },
  },
} as const;

/** The options of `rxmcp serve`, or undefined when the user asked for help. */
export function parseServeArgs(argv: readonly string[]): ServeOptions | undefined {
  const parsed = parseCommand(serveCommand, argv);
  if (parsed.help) return undefined;
  const { values } = parsed;
  const port = values.port !== undefined ? portValue(serveCommand.command, '--port', values.port) : portValue(serveCommand.command, 'PORT (from the environment)', process.env['PORT'] ?? '3000');
  const command = serveCommand.command;
  const natsOnly = Object.keys(values).filter((flag) => flag !== 'nats' && (flag.startsWith('nats-') || flag in natsTrustFlags || flag in jetstreamReplicasFlag || flag === 'name' || flag === 'prefix'));
  if (values.nats === undefined && natsOnly.length > 0) throw new UsageError(command, `--${natsOnly[0]} is for serving on NATS: add --nats URL`);
  if (values.nats !== undefined && values.stdio === true) throw new UsageError(command, '--nats and --stdio are two different ways to serve: pick one');
  const authGiven = authFlagsGiven(values)[0];
  if (authGiven !== undefined && (values.stdio === true || values.nats !== undefined)) {
    throw new UsageError(command, `${authGiven} protects the HTTP endpoint; ${values.stdio === true ? 'on stdio the caller is whoever started the server' : 'on NATS, trust a gateway that authenticates callers (--trust-gateway)'}`);
  }
  const authArgs = authArgsOf(command, values);
  const host = values.host ?? '127.0.0.1';
  const auth = authArgs === undefined ? undefined : { args: authArgs, resource: resourceOf(command, authArgs, { host, port, path: '/mcp' }) };
  let nats: ServeOptions['nats'];
  if (values.nats !== undefined) {
    const name = values.name ?? 'demo';
    const prefix = values.prefix ?? 'mcp';
    try {
      serverSubjects(prefix, name);
    } catch (error) {
      throw new UsageError(command, error instanceof Error ? error.message : String(error));
    }
    const replicas = values['js-replicas'] === undefined ? undefined : positiveIntegerValue(command, '--js-replicas', values['js-replicas']);
    nats = { connection: natsConnectionOf(command, values), name, prefix, trust: natsTrustOf(command, values), replicas };
  }
  const drainMs = drainMsOf(command, values['drain-ms']);
  return { port, host, stdio: values.stdio === true, verbose: values.verbose === true, drainMs, ...(nats === undefined ? {} : { nats }), ...(auth === undefined ? {} : { auth }) };
}

/**
 * Serves until stdin closes (stdio) or the process is told to stop (both). Every end is graceful: requests in
 * flight are answered (up to `drainMs`, then with an error saying so) before the server closes, and the last
 * steps are bounded (cli/stopping.ts); a second SIGTERM or SIGINT ends the process at once
 * (transports/stdio/stop-signals.ts).
 */
export async function serve(options: ServeOptions, print: (line: string) => void): Promise<void> {
  const demo = createDemoServer();
  const server = options.verbose ? withRequestLog(demo.server, (line) => process.stderr.write(`${line}\n`)) : demo.server;
  if (options.stdio) {
    // stdout carries the protocol: every word for people goes to stderr.
    process.stderr.write('rxmcp demo server on stdio: connect a client that launches `npx rxmcp serve --stdio`\n');
    // Signals are handled here, to know how the session ended: told to stop, its last answers get a bounded
    // moment (a client that reads nothing does not hold the process); its client done asking (stdin's end),
    // the client still reads them, at its own pace (cli/stopping.ts).
    const stop = new AbortController();
    const removeSignals = onStopSignals({ graceful: () => stop.abort() });
    let reason: Awaited<ReturnType<typeof serveStdio>>;
    try {
      reason = await serveStdio(server, { drainMs: options.drainMs, flushMs: LAST_ANSWERS_MS, signal: stop.signal });
    } finally {
      removeSignals();
    }
    if (!stop.signal.aborted) letOutputFinish();
    // A session the server ended itself (a client that stopped reading, say) says why where people look.
    if (reason !== undefined && reason.code !== 'ConnectionClosed') {
      process.stderr.write(`rxmcp serve: the session ended: ${reason.message}\n`);
      process.exitCode = 1;
    }
    demo.stop();
    return;
  }
  if (options.nats !== undefined) return serveOnNats(options.nats, options.drainMs, server, demo.stop, print);
  // One host owns the HTTP sessions: a maximum, idle expiry, and clients that stop reading are dropped.
  const host = createSessionHost(server, { maxSessions: 1000, idleTimeoutMs: 30 * 60_000 });
  const hostEvents = host.events$.subscribe((event) => {
    if (event.type === 'dropped') print(`session dropped: ${event.reason.message}`);
    // Sessions refused (the host full or closing); the endpoint's other refusals are only counted.
    else if (event.type === 'refused' && event.reason.code === 'SessionLimit') print(`session refused: ${event.reason.message}`);
  });
  const http = createStreamableHttpServer({
    server: host,
    path: '/mcp',
    legacySse: { ssePath: '/sse', messagesPath: '/messages' },
    sse: { retryMs: 1000 },
    ...(options.auth === undefined ? {} : bearerAuthOf(options.auth.args, options.auth.resource)),
  });
  const listening = await listenOrExplain(() => http.listen(options.port, options.host), options.port, options.host).catch(async (error: unknown) => {
    demo.stop();
    await http.close();
    await host.close();
    hostEvents.unsubscribe();
    throw error;
  });
  print(`rxmcp demo server listening at ${listening.url}`);
  if (options.auth !== undefined) print(describeAuth(options.auth.args, options.auth.resource));
  print(`connect an MCP client to ${listening.url} (Streamable HTTP), or to ${listening.url.replace(/\/mcp$/, '/sse')} for 2024-11-05 HTTP+SSE clients; Ctrl-C stops`);
  let removeSignals = (): void => undefined;
  const signal = await new Promise<StopSignal>((resolve) => (removeSignals = onStopSignals({ graceful: resolve })));
  print(`stopping (${signal}): new sessions are refused, requests in flight have ${options.drainMs} ms to finish; a second signal ends at once`);
  demo.stop();
  // The endpoint drains every session (answers, stream ends), then stops listening; the host then holds none.
  await http.close({ drainMs: options.drainMs, flushMs: LAST_ANSWERS_MS });
  await listening.close();
  await host.close();
  hostEvents.unsubscribe();
  removeSignals();
  print('stopped');
}

/** `serve --nats`: the demo server on NATS until a stop signal, then a graceful close (its sessions end). */
async function serveOnNats(nats: NonNullable<ServeOptions['nats']>, drainMs: number, server: ReturnType<typeof createDemoServer>['server'], stopDemo: () => void, print: (line: string) => void): Promise<void> {
  const [{ closeNats, connectNats }, { serveNats }, { readTrustedKeys }] = await withNats(() => Promise.all([import('./bridge/connect.ts'), import('../transports/nats/index.ts'), import('./gateway-keys.ts')]));
  const identity = nats.trust === undefined ? undefined : { keys: readTrustedKeys(nats.trust.keyFiles), required: nats.trust.required };
  const connection = await connectNats(nats.connection.url, `rxmcp serve ${nats.prefix}.${nats.name}`, nats.connection.credentials, { maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  let serving: Awaited<ReturnType<typeof serveNats>>;
  try {
    serving = await serveNats(server, {
      connection,
      name: nats.name,
      prefix: nats.prefix,
      ...(nats.replicas === undefined ? {} : { sessionRecords: { replicas: nats.replicas } }),
      ...(identity === undefined ? {} : { identity }),
    });
  } catch (error) {
    stopDemo();
    await closeNats(connection);
    throw error;
  }
  print(`rxmcp demo server on NATS ${nats.connection.url} as ${nats.prefix}.${nats.name}${identity === undefined ? '' : `, trusting ${identity.keys.keys.length} gateway key(s)${identity.required ? ', identity required' : ''}`}; Ctrl-C stops`);
  let removeSignals = (): void => undefined;
  const signal = await new Promise<StopSignal>((resolve) => (removeSignals = onStopSignals({ graceful: resolve })));
  print(`stopping (${signal}): requests in flight have ${drainMs} ms to finish; a second signal ends at once`);
  stopDemo();
  await serving.close('end', { drainMs, flushMs: LAST_ANSWERS_MS });
  await server.close();
  await closeNats(connection);
  removeSignals();
  print('stopped');
}
