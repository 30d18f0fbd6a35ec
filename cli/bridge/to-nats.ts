/**
 * `rxmcp bridge to-nats`: serves a stdio MCP server program on NATS. Every MCP session gets a process of its
 * own (child-acceptor.ts); several bridges serving the same name share the sessions, and when one dies the
 * others take its sessions over on fresh processes. SIGINT or SIGTERM stops serving and every process.
 *
 * Before it serves, one process of the program is asked what it is (probe.ts), so the bridge announces it on the
 * NATS services protocol as serveNats announces an rxmcp server: discovery and rxmcp/mesh find it. A program that
 * does not answer the probe is still served, unannounced (a process per session may still work; the report says so).
 */
import { serveNats, serverSubjects } from '../../transports/nats/index.ts';
import type { ToNatsArgs } from './args.ts';
import { type BridgedDescription, bridgedDescription } from './bridged-description.ts';
import { childAcceptor } from './child-acceptor.ts';
import { probeServer } from './probe.ts';
import { closeNats, connectNats } from './connect.ts';
import { readTrustedKeys } from '../gateway-keys.ts';
import { onStopSignals } from '../../transports/stdio/stop-signals.ts';
import { LAST_ANSWERS_MS } from '../stopping.ts';

export async function bridgeToNats(args: ToNatsArgs, report: (line: string) => void): Promise<number> {
  const subjects = serverSubjects(args.prefix ?? 'mcp', args.name);
  const identity = args.trust === undefined ? undefined : { keys: readTrustedKeys(args.trust.keyFiles), required: args.trust.required };
  const command = { command: args.command, args: args.args, env: args.env, ...(args.inheritEnv === undefined ? {} : { inheritEnv: args.inheritEnv }), report };
  // Listened for from the start: told to stop while it starts (the probe's process running), the bridge stops that
  // process and leaves, instead of dying by the signal with the process left behind.
  let removeSignals = (): void => undefined;
  const starting = new AbortController();
  const signalled = new Promise<string>((resolve) => {
    removeSignals = onStopSignals({ graceful: resolve });
  });
  void signalled.then(() => starting.abort());
  // The probe's process starts while the connection is made; a connection that fails stops it before the bridge
  // leaves (a program that ignores its stdin's end would outlive the bridge).
  const probing = describedServer({ ...command, signal: starting.signal }, report);
  let connection: Awaited<ReturnType<typeof connectNats>>;
  try {
    connection = await connectNats(args.nats, `rxmcp bridge to-nats ${subjects.base}`, args.natsCredentials);
  } catch (error) {
    starting.abort();
    await probing;
    removeSignals();
    throw error;
  }
  const description = await probing;
  if (starting.signal.aborted) {
    await closeNats(connection);
    removeSignals();
    report(`stopped (${await signalled}) before serving`);
    return 0;
  }
  const acceptor = childAcceptor({ ...command, maxChildren: args.maxChildren, ...(description === undefined ? {} : { description }) });
  let serving: Awaited<ReturnType<typeof serveNats>>;
  try {
    serving = await serveNats(acceptor, { connection, name: args.name, ...(args.prefix === undefined ? {} : { prefix: args.prefix }), ...(identity === undefined ? {} : { identity }) });
  } catch (error) {
    await closeNats(connection);
    removeSignals();
    throw error;
  }
  const announced = description === undefined ? 'not announced' : `announced as ${description.describe().serverInfo.name} ${description.describe().serverInfo.version}`;
  report(`serving ${JSON.stringify([args.command, ...args.args].join(' '))} on NATS ${args.nats} as ${subjects.base} (bridge process ${serving.processId}, at most ${args.maxChildren} server processes, ${announced}); SIGINT/SIGTERM stops`);

  const stopped = await Promise.race([
    signalled,
    connection.closed().then((error) => `the NATS connection closed${error instanceof Error ? `: ${error.message}` : ''}`),
  ]);
  const mode = args.handover ? 'handover' : 'end';
  report(`stopping (${stopped}): new work goes to other bridges, requests in flight have ${args.drainMs} ms to be answered, then ${mode === 'handover' ? 'leaving' : 'ending'} ${acceptor.size} session(s); a second signal ends at once`);
  acceptor.stopping();
  await serving.close(mode, { drainMs: args.drainMs, flushMs: LAST_ANSWERS_MS });
  // Sessions the binding did not know yet (a process still starting) end here too.
  await acceptor.closeAll();
  await closeNats(connection);
  removeSignals();
  report('stopped');
  return stopped.startsWith('SIG') ? 0 : 1;
}

/** What the program says it is, or undefined (reported) when its probe failed. */
async function describedServer(command: Parameters<typeof probeServer>[0], report: (line: string) => void): Promise<BridgedDescription | undefined> {
  try {
    return bridgedDescription(await probeServer(command));
  } catch (error) {
    report(`not announced on the NATS services protocol: the probe of ${JSON.stringify([command.command, ...command.args].join(' '))} failed (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}
