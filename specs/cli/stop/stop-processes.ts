/**
 * The stop specs' programs: `rxmcp <command>` run as users run it (specs/support/rxmcp-command.ts, a real
 * process), what it wrote, and how long it took to exit once signalled. Every pid is registered with
 * interop-processes.ts, whose `killChildren()` (for `after`) SIGKILLs by pid whatever still runs; nothing else
 * is ever signalled.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { PROCESS_MS, REPO_ROOT, isRunning, trackChild, until } from '../../support/interop-processes.ts';
import { rxmcpArgs } from '../../support/rxmcp-command.ts';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Program {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything it wrote to stderr, and to stdout unless stdout carries the protocol. */
  output(): string;
  /** Its stdout lines parsed as JSON-RPC (when stdout carries the protocol). */
  readonly messages: Array<Record<string, unknown>>;
  readonly exited: Promise<Exit>;
  /** Waits until its output matches (at most `ms`) and gives the match. */
  waitFor(pattern: RegExp, what: string, ms?: number): Promise<RegExpExecArray>;
  /** Writes one JSON-RPC message to its stdin. */
  send(message: Record<string, unknown>): void;
  /**
   * Signals it and resolves with how it exited and how many milliseconds after the signal; still running
   * `giveUpMs` after it (default 10 s), it is SIGKILLed and the exit says `stillRunning`.
   */
  stop(signal?: NodeJS.Signals, giveUpMs?: number): Promise<{ readonly exit: Exit; readonly ms: number; readonly stillRunning: boolean }>;
}

export interface StartOptions {
  /** stdout carries JSON-RPC (stdio serving): parsed into `messages`, not into `output()`. */
  readonly protocolOnStdout?: boolean;
  /** Never read its stdout (a client that reads nothing): the pipe fills and stays full. */
  readonly neverReadStdout?: boolean;
}

/** Starts `rxmcp <args>` with piped stdio. */
export function startRxmcp(args: readonly string[], options: StartOptions = {}): Program {
  const child = spawn(process.execPath, rxmcpArgs(...args), { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`rxmcp ${args.join(' ')} did not start`);
  trackChild(pid, `rxmcp ${args.join(' ')}`);
  let output = '';
  const messages: Array<Record<string, unknown>> = [];
  child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stdin?.on('error', () => undefined);
  if (options.neverReadStdout === true) {
    child.stdout?.pause();
  } else if (options.protocolOnStdout === true) {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let end: number;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line.trim() !== '') messages.push(JSON.parse(line) as Record<string, unknown>);
      }
    });
  } else {
    child.stdout?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  }
  let gone = false;
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  void exited.then(() => (gone = true));
  return {
    pid,
    child,
    output: () => output,
    messages,
    exited,
    async waitFor(pattern, what, ms = PROCESS_MS) {
      let match: RegExpExecArray | null = null;
      await until(() => {
        match = pattern.exec(output);
        if (match === null && gone) throw new Error(`rxmcp ${args.join(' ')} exited before ${what}:\n${output}`);
        return match !== null;
      }, `${what}; it wrote:\n${output}`, ms);
      return match as unknown as RegExpExecArray;
    },
    send(message) {
      child.stdin?.write(`${JSON.stringify(message)}\n`);
    },
    async stop(signal = 'SIGTERM', giveUpMs = 10_000) {
      const started = performance.now();
      if (!gone) process.kill(pid, signal);
      let timer: NodeJS.Timeout | undefined;
      const stillRunning = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), giveUpMs)))]);
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (stillRunning) process.kill(pid, 'SIGKILL');
      return { exit: await exited, ms, stillRunning };
    },
  };
}

/** Signals `program` and checks it exited as `expected` within `budgetMs` of the signal; gives the time taken. */
export async function assertStops(program: Program, budgetMs: number, expected: Exit = { code: 0, signal: null }, signal: NodeJS.Signals = 'SIGTERM'): Promise<number> {
  const { exit, ms, stillRunning } = await program.stop(signal, budgetMs + 5000);
  assert.ok(!stillRunning, `still running ${Math.round(ms)} ms after ${signal} (then SIGKILLed); it wrote:\n${program.output()}`);
  assert.deepEqual(exit, expected, `how it exited; it wrote:\n${program.output()}`);
  assert.ok(ms <= budgetMs, `it exited ${Math.round(ms)} ms after ${signal}, more than ${budgetMs} ms; it wrote:\n${program.output()}`);
  return ms;
}

/** Waits until every pid is gone (a program's child processes after it stopped). */
export async function assertGone(pids: readonly number[], what: string, ms = 2000): Promise<void> {
  await until(() => pids.every((pid) => !isRunning(pid)), what, ms);
}

/** The `initialize` of a legacy client that asks for nothing. */
export function initializeMessage(id: number, revision = '2025-06-18'): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'stop-spec', version: '1' } } };
}
