/**
 * `rxmcp serve`: the demo server on Streamable HTTP at 127.0.0.1 (and legacy HTTP+SSE for 2024-11-05
 * clients), or on stdio with `--stdio`.
 */
import { type StopSignal, onStopSignals } from '../transports/stdio/stop-signals.ts';
import { createSessionHost } from '../server/session-host.ts';
import { createStreamableHttpServer } from '../transports/http/index.ts';
import { runStdioServer } from '../transports/stdio/index.ts';
import { parseCommand, portValue } from './args.ts';
import { createDemoServer } from './demo-server.ts';
import { listenOrExplain } from './listen.ts';
import { withRequestLog } from './request-log.ts';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
  /** Log each request (method, tool, duration, outcome) to stderr, one line each. */
  readonly verbose: boolean;
}

export const serveUsage = `usage: rxmcp serve [--port N] [--host H] [--stdio] [--verbose]

Runs the demo server: tools that stream progress, elicit (with a fallback for clients that cannot answer),
and return structured output; a resource that changes; a template; a prompt.

options:
  -p, --port N     the HTTP port (default $PORT, then 3000; 0 picks a free one)
  --host H         the address to listen on (default 127.0.0.1)
  --stdio          speak MCP on stdin/stdout instead of HTTP (stdout carries nothing else)
  -v, --verbose    log each request to stderr, one JSON line each: method, tool, duration, outcome
  -h, --help       show this help`;

const serveCommand = {
  command: 'rxmcp serve',
  usage: serveUsage,
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    stdio: { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
  },
} as const;

/** The options of `rxmcp serve`, or undefined when the user asked for help. */
export function parseServeArgs(argv: readonly string[]): ServeOptions | undefined {
  const parsed = parseCommand(serveCommand, argv);
  if (parsed.help) return undefined;
  const { values } = parsed;
  const port = values.port !== undefined ? portValue(serveCommand.command, '--port', values.port) : portValue(serveCommand.command, 'PORT (from the environment)', process.env['PORT'] ?? '3000');
  return { port, host: values.host ?? '127.0.0.1', stdio: values.stdio === true, verbose: values.verbose === true };
}

/** How long requests in flight may still run once the server is told to stop. */
const DRAIN_MS = 10_000;

/**
 * Serves until stdin closes (stdio) or the process is told to stop (both). Every end is graceful: requests in
 * flight are answered (up to 10 s, then with an error saying so) before the server closes; a second SIGTERM or
 * SIGINT ends the process at once (transports/stdio/stop-signals.ts).
 */
export async function serve(options: ServeOptions, print: (line: string) => void): Promise<void> {
  const demo = createDemoServer();
  const server = options.verbose ? withRequestLog(demo.server, (line) => process.stderr.write(`${line}\n`)) : demo.server;
  if (options.stdio) {
    // stdout carries the protocol: every word for people goes to stderr.
    process.stderr.write('rxmcp demo server on stdio: connect a client that launches `npx rxmcp serve --stdio`\n');
    const reason = await runStdioServer(server, { drainMs: DRAIN_MS, handleSignals: true });
    // A session the server ended itself (a client that stopped reading, say) says why where people look.
    if (reason !== undefined && reason.code !== 'ConnectionClosed') {
      process.stderr.write(`rxmcp serve: the session ended: ${reason.message}\n`);
      process.exitCode = 1;
    }
    demo.stop();
    return;
  }
  // One host owns the HTTP sessions: a maximum, idle expiry, and clients that stop reading are dropped.
  const host = createSessionHost(server, { maxSessions: 1000, idleTimeoutMs: 30 * 60_000 });
  const hostEvents = host.events$.subscribe((event) => {
    if (event.type === 'dropped') print(`session dropped: ${event.reason.message}`);
    else if (event.type === 'refused') print(`session refused: ${event.reason.message}`);
  });
  const http = createStreamableHttpServer({
    server: host,
    path: '/mcp',
    legacySse: { ssePath: '/sse', messagesPath: '/messages' },
    sse: { retryMs: 1000 },
  });
  const listening = await listenOrExplain(() => http.listen(options.port, options.host), options.port, options.host).catch(async (error: unknown) => {
    demo.stop();
    await http.close();
    await host.close();
    hostEvents.unsubscribe();
    throw error;
  });
  print(`rxmcp demo server listening at ${listening.url}`);
  print(`connect an MCP client to ${listening.url} (Streamable HTTP), or to ${listening.url.replace(/\/mcp$/, '/sse')} for 2024-11-05 HTTP+SSE clients; Ctrl-C stops`);
  let removeSignals = (): void => undefined;
  const signal = await new Promise<StopSignal>((resolve) => (removeSignals = onStopSignals({ graceful: resolve })));
  print(`stopping (${signal}): new sessions are refused, requests in flight have ${DRAIN_MS} ms to finish; a second signal ends at once`);
  demo.stop();
  // The endpoint drains every session (answers, stream ends), then stops listening; the host then holds none.
  await http.close({ drainMs: DRAIN_MS });
  await listening.close();
  await host.close();
  hostEvents.unsubscribe();
  removeSignals();
  print('stopped');
}
