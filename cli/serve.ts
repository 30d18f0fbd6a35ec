/**
 * `rxmcp serve`: the demo server on Streamable HTTP at 127.0.0.1 (and legacy HTTP+SSE for 2024-11-05
 * clients), or on stdio with `--stdio`.
 */
import { type StopSignal, onStopSignals } from '../core/stop-signals.ts';
import { createSessionHost } from '../machines/session-host.ts';
import { createStreamableHttpServer } from '../transports/http/index.ts';
import { runStdioServer } from '../transports/stdio/index.ts';
import { createDemoServer } from './demo-server.ts';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  readonly stdio: boolean;
}

export function parseServeArgs(args: readonly string[]): ServeOptions {
  let port = Number(process.env['PORT'] ?? 3000);
  let host = '127.0.0.1';
  let stdio = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    const value = args[index + 1];
    if (arg === '--stdio') stdio = true;
    else if ((arg === '--port' || arg === '-p') && value !== undefined) {
      port = Number(value);
      index++;
    } else if (arg === '--host' && value !== undefined) {
      host = value;
      index++;
    } else throw new RangeError(`unknown option for serve: ${String(arg)}`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`not a port: ${port}`);
  return { port, host, stdio };
}

/** How long requests in flight may still run once the server is told to stop. */
const DRAIN_MS = 10_000;

/**
 * Serves until stdin closes (stdio) or the process is told to stop (both). Every end is graceful: requests in
 * flight are answered (up to 10 s, then with an error saying so) before the server closes; a second SIGTERM or
 * SIGINT ends the process at once (core/stop-signals.ts).
 */
export async function serve(options: ServeOptions, print: (line: string) => void): Promise<void> {
  const demo = createDemoServer();
  if (options.stdio) {
    // stdout carries the protocol: every word for people goes to stderr.
    process.stderr.write('rxmcp demo server on stdio: connect a client that launches `npx rxmcp serve --stdio`\n');
    await runStdioServer(demo.server, { drainMs: DRAIN_MS, handleSignals: true });
    demo.stop();
    return;
  }
  // One host owns the HTTP sessions: a maximum, idle expiry, and clients that stop reading are dropped.
  const host = createSessionHost(demo.server, { maxSessions: 1000, idleTimeoutMs: 30 * 60_000 });
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
  const listening = await http.listen(options.port, options.host);
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
