/**
 * `rxmcp bridge to-nats`: serves a stdio MCP server program on NATS. Every MCP session gets a process of its
 * own (child-acceptor.ts); several bridges serving the same name share the sessions, and when one dies the
 * others take its sessions over on fresh processes. SIGINT or SIGTERM stops serving and every process.
 */
import { serveNats, serverSubjects } from '../../transports/nats/index.ts';
import type { ToNatsArgs } from './args.ts';
import { childAcceptor } from './child-acceptor.ts';
import { closeNats, connectNats } from './connect.ts';
import { readTrustedKeys } from '../gateway-keys.ts';
import { onStopSignals } from '../../transports/stdio/stop-signals.ts';
import { LAST_ANSWERS_MS } from '../stopping.ts';

export async function bridgeToNats(args: ToNatsArgs, report: (line: string) => void): Promise<number> {
  const subjects = serverSubjects(args.prefix ?? 'mcp', args.name);
  const identity = args.trust === undefined ? undefined : { keys: readTrustedKeys(args.trust.keyFiles), required: args.trust.required };
  const connection = await connectNats(args.nats, `rxmcp bridge to-nats ${subjects.base}`, args.natsCredentials);
  const acceptor = childAcceptor({
    command: args.command,
    args: args.args,
    env: args.env,
    ...(args.inheritEnv === undefined ? {} : { inheritEnv: args.inheritEnv }),
    maxChildren: args.maxChildren,
    report,
  });
  let serving: Awaited<ReturnType<typeof serveNats>>;
  try {
    serving = await serveNats(acceptor, { connection, name: args.name, ...(args.prefix === undefined ? {} : { prefix: args.prefix }), ...(identity === undefined ? {} : { identity }) });
  } catch (error) {
    await closeNats(connection);
    throw error;
  }
  report(`serving ${JSON.stringify([args.command, ...args.args].join(' '))} on NATS ${args.nats} as ${subjects.base} (bridge process ${serving.processId}, at most ${args.maxChildren} server processes); SIGINT/SIGTERM stops`);

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
