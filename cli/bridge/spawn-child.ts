/**
 * How `rxmcp bridge to-nats` starts one process of its stdio server program: for a session (child-acceptor.ts)
 * and for the probe that learns what the program is before the bridge announces it (probe.ts). Its stderr goes
 * to the bridge's reports, line by line, with its pid, and so does its exit.
 */
import { type EnvInheritance, type StdioClientTransport, spawnStdioServer } from '../../transports/stdio/index.ts';

export interface ChildCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Variables for each child, over the inherited base. */
  readonly env?: Readonly<Record<string, string>>;
  /** The inherited base of each child's environment (default `safe`, see transports/stdio). */
  readonly inheritEnv?: EnvInheritance;
  /** How long a stopping child may take after its stdin ended, and again after SIGTERM (default 2000 ms each). */
  readonly stopWaitMs?: number;
  /** Diagnostics, one line each (the CLI writes them to stderr). */
  readonly report: (line: string) => void;
}

export async function spawnChild(options: ChildCommand): Promise<StdioClientTransport> {
  const child = await spawnStdioServer({
    command: options.command,
    args: options.args,
    stderr: 'pipe',
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.inheritEnv === undefined ? {} : { inheritEnv: options.inheritEnv }),
    ...(options.stopWaitMs === undefined ? {} : { shutdown: { stdinCloseWaitMs: options.stopWaitMs, sigtermWaitMs: options.stopWaitMs } }),
  });
  const pid = child.pid;
  child.stderr$.subscribe((line) => options.report(`[pid ${pid}] ${line}`));
  void child.exited.then((exit) => options.report(`server process ${pid} exited (${exit.signal ?? `code ${String(exit.code)}`})`));
  return child;
}
