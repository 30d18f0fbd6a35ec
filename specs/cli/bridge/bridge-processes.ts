/**
 * The bridge specs' processes: `rxmcp bridge to-nats` started as a real process (specs/support/rxmcp-command.ts), the server processes it reports starting, and bounded waits on what it writes to stderr.
 * Every pid is registered with interop-processes.ts, whose `killChildren()` SIGKILLs (by pid) whatever still
 * runs at the end; nothing else is ever signalled.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PROCESS_MS, REPO_ROOT, isRunning, trackChild, until } from '../../support/interop-processes.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';

/** `@modelcontextprotocol/server-everything` (SDK 1.x), run as `node <entry> stdio`. */
export const EVERYTHING = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
export const EVERYTHING_COMMAND: readonly string[] = [process.execPath, EVERYTHING, 'stdio'];

/** The command line of `rxmcp bridge <args>` (cwd must be the repository root). */
export function bridgeCommand(...args: string[]): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: rxmcpArgs('bridge', ...args), cwd: REPO_ROOT };
}

export interface BridgeProcess {
  readonly pid: number;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** The server processes it reported starting for sessions, in order. */
  childPids(): number[];
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** Signals it, by its pid. */
  signal(signal: NodeJS.Signals): void;
  /** Waits until its stderr matches (at most `ms`). */
  waitFor(pattern: RegExp, what: string, ms?: number): Promise<void>;
}

/** Starts `rxmcp bridge to-nats` and resolves once it says it serves. */
export async function startToNats(url: string, name: string, options: { readonly flags?: readonly string[]; readonly command?: readonly string[] } = {}): Promise<BridgeProcess> {
  const { command, args, cwd } = bridgeCommand('to-nats', '--nats', url, '--name', name, ...(options.flags ?? []), '--', ...(options.command ?? EVERYTHING_COMMAND));
  const child: ChildProcess = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error('rxmcp bridge to-nats did not start');
  trackChild(pid, `rxmcp bridge to-nats ${name}`);
  let stderr = '';
  const childPids: number[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // Every process it starts is tracked; those for sessions are counted (not the probe's, before it serves).
    for (const match of chunk.toString().matchAll(/server process (\d+) started( for)?/g)) {
      const started = Number(match[1]);
      if (match[2] !== undefined) childPids.push(started);
      trackChild(started, `server process of the bridge ${pid}`);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));
  const bridge: BridgeProcess = {
    pid,
    stderr: () => stderr,
    childPids: () => [...childPids],
    exited,
    signal(signal) {
      if (!gone) process.kill(pid, signal);
    },
    async waitFor(pattern, what, ms = PROCESS_MS) {
      await until(() => {
        if (gone && !pattern.test(stderr)) throw new Error(`the bridge ${pid} exited before ${what}:\n${stderr}`);
        return pattern.test(stderr);
      }, `${what}; the bridge wrote:\n${stderr}`, ms);
    },
  };
  await bridge.waitFor(/serving .* as mcp\./, 'it served');
  return bridge;
}

/** SIGTERMs a bridge and waits for it and every server process it started to be gone. */
export async function stopBridge(bridge: BridgeProcess): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }> {
  bridge.signal('SIGTERM');
  const exit = await bridge.exited;
  await until(() => bridge.childPids().every((pid) => !isRunning(pid)), `the server processes of the bridge ${bridge.pid} ended`, PROCESS_MS);
  return exit;
}
