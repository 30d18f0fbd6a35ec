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
  // The probe's process starts while the connection is made.
  const [connection, description] = await Promise.all([
    connectNats(args.nats, `rxmcp bridge to-nats ${subjects.base}`, args.natsCredentials),
    describedServer(command, report),
  ]);
  const acceptor = childAcceptor({ ...command, maxChildren: args.maxChildren, ...(description === undefined ? {} : { description }) });
  let serving: Awaited<ReturnType<typeof serveNats>>;
  try {
    serving = await serveNats(acceptor, { connection, name: args.name, ...(args.prefix === undefined ? {} : { prefix: args.prefix }), ...(identity === undefined ? {} : { identity }) });
  } catch (error) {
    await closeNats(connection);
    throw error;
  }
  const announced = description === undefined ? 'not announced' : `announced as ${description.describe().serverInfo.name} ${description.describe().serverInfo.version}`;
  report(`serving ${JSON.stringify([args.command, ...args.args].join(' '))} on NATS ${args.nats} as ${subjects.base} (bridge process ${serving.processId}, at most ${args.maxChildren} server processes, ${announced}); SIGINT/SIGTERM stops`);

  let removeSignals = (): void => undefined;
  const stopped = await new Promise<string>((resolve) => {
    removeSignals = onStopSignals({ graceful: resolve });
    void connection.closed().then((error) => resolve(`the NATS connection closed${error instanceof Error ? `: ${error.message}` : ''}`));
  });
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
