/**
 * The console guard of the stdio server: while a guarded transport is open, every output method of the
 * global `console` writes to stderr, so stray logging (ours, a dependency's) cannot put a non-protocol line
 * on stdout. The guard is reference-counted (several transports may hold it) and undone when the last
 * holder releases it; a method someone else replaced after us is left as they set it.
 *
 * `process.stdout.write` itself is deliberately not wrapped: see the README of this folder.
 */
import { Console } from 'node:console';

/** Every console method that prints, plus the ones whose state printing depends on (counters, groups, timers). */
const GUARDED_METHODS = [
  'log', 'info', 'debug', 'warn', 'error', 'trace', 'dir', 'dirxml', 'table', 'assert',
  'count', 'countReset', 'group', 'groupCollapsed', 'groupEnd', 'time', 'timeLog', 'timeEnd',
] as const;

interface Installed {
  holders: number;
  readonly restore: () => void;
}

let installed: Installed | undefined;

function install(): Installed {
  const target = console as unknown as Record<string, unknown>;
  const stderrConsole = new Console({ stdout: process.stderr, stderr: process.stderr });
  const source = stderrConsole as unknown as Record<string, unknown>;
  const saved: Array<{ readonly name: string; readonly descriptor: PropertyDescriptor | undefined; readonly replacement: unknown }> = [];
  for (const name of GUARDED_METHODS) {
    const method = source[name];
    if (typeof method !== 'function') continue;
    const replacement: unknown = method.bind(stderrConsole);
    saved.push({ name, descriptor: Object.getOwnPropertyDescriptor(target, name), replacement });
    Object.defineProperty(target, name, { value: replacement, writable: true, enumerable: true, configurable: true });
  }
  return {
    holders: 0,
    restore() {
      for (const { name, descriptor, replacement } of saved) {
        if (target[name] !== replacement) continue;
        if (descriptor === undefined) delete target[name];
        else Object.defineProperty(target, name, descriptor);
      }
    },
  };
}

/** Sends console output to stderr until the returned function is called (idempotent). */
export function guardConsole(): () => void {
  const guard = (installed ??= install());
  guard.holders += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    guard.holders -= 1;
    if (guard.holders === 0 && installed === guard) {
      installed = undefined;
      guard.restore();
    }
  };
}

/** Whether the guard is in place now (for diagnostics and tests). */
export function consoleGuarded(): boolean {
  return installed !== undefined;
}
