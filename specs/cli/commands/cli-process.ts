/**
 * `rxmcp` run as users run it (specs/support/rxmcp-command.ts, a real process): what it printed and how
 * it exited, bounded in time. Every pid is registered with interop-processes.ts, whose `killChildren()` (for
 * `after`) SIGKILLs by pid whatever still runs; nothing else is signalled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { REPO_ROOT, trackChild } from '../../support/interop-processes.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';

/** How long one run may take: a node process compiling TypeScript on a busy machine (a stdio target: two). */
const PROCESS_MS = 60_000;

/** The demo server on stdio, as a `-- <command>` target. */
export const STDIO_DEMO: readonly string[] = [process.execPath, ...rxmcpArgs('serve', '--stdio')];

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunningCli {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr matches (at most `ms`), rejecting with what it wrote otherwise. */
  waitForStderr(pattern: RegExp, ms?: number): Promise<void>;
  readonly done: Promise<CliRun>;
}

/** Starts `rxmcp <args>` with stdin ignored and stdout/stderr piped (so neither is a terminal). */
export function startCli(args: readonly string[], options: { readonly env?: NodeJS.ProcessEnv; readonly ms?: number } = {}): RunningCli {
  const child = spawn(process.execPath, rxmcpArgs(...args), { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  trackChild(child.pid, `rxmcp ${args.join(' ')}`);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`rxmcp ${args.join(' ')} did not exit within ${options.ms ?? PROCESS_MS} ms; stderr: ${stderr}`));
    }, options.ms ?? PROCESS_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForStderr(pattern, ms = PROCESS_MS) {
      const started = Date.now();
      while (!pattern.test(stderr)) {
        if (Date.now() - started > ms || child.exitCode !== null) throw new Error(`stderr never matched ${pattern}: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    done,
  };
}

/** Runs `rxmcp <args>` to its end. */
export function runCli(args: readonly string[], options: { readonly env?: NodeJS.ProcessEnv; readonly ms?: number } = {}): Promise<CliRun> {
  return startCli(args, options).done;
}

/** Runs each `rxmcp` command line, a few at a time (each is a node process compiling TypeScript). */
export async function runEach(commandLines: ReadonlyArray<readonly string[]>, atOnce = 3): Promise<CliRun[]> {
  const runs: CliRun[] = [];
  for (let start = 0; start < commandLines.length; start += atOnce) {
    runs.push(...(await Promise.all(commandLines.slice(start, start + atOnce).map((args) => runCli(args)))));
  }
  return runs;
}
