/**
 * Child processes of the interop specs, and bounded waits.
 *
 * Child processes: Whoever starts a child (our `spawnStdioServer`, or an official SDK's
 * `StdioClientTransport`) registers its pid here; `killChildren()` (for `after`/`afterEach`) SIGKILLs, by pid,
 * every registered child that is still running and waits until it is gone. Nothing else is ever signalled.
 */
import { AssertionError } from 'node:assert';
import { fileURLToPath } from 'node:url';
import { programArgs } from './spec-program.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./interop-fixtures/', import.meta.url));
/** Generous bound for anything involving a child process starting (tsx compiles on the fly). */
export const PROCESS_MS = 20_000;

/** `node --import tsx <fixture>`: how a TypeScript fixture program is run (cwd must be {@link REPO_ROOT}). */
export function fixtureCommand(fixture: string, ...args: string[]): { command: string; args: string[]; cwd: string } {
  return { command: process.execPath, args: [...programArgs(`${FIXTURES}${fixture}`), ...args], cwd: REPO_ROOT };
}

const children = new Map<number, string>();

/** Remembers a child for {@link killChildren}. A missing pid (the spawn failed) is ignored. */
export function trackChild(pid: number | null | undefined, label: string): void {
  if (typeof pid === 'number' && pid > 0) children.set(pid, label);
}

/** Whether a process with this pid exists (still running, or not yet reaped). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs every tracked child still running (by its pid) and waits, at most 5 s, for each to be gone. */
export async function killChildren(): Promise<string[]> {
  const killed: string[] = [];
  const running = [...children];
  children.clear();
  for (const [pid, label] of running) {
    if (!isRunning(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(`${label} (pid ${pid})`);
    } catch {
      continue; // gone meanwhile
    }
  }
  const deadline = Date.now() + 5000;
  while (running.some(([pid]) => isRunning(pid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return killed;
}

/** Polls a (possibly async) check until it holds; fails with `what` after `ms`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new AssertionError({ message: `${what}: not within ${ms} ms` });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
