/**
 * How the serving commands (`serve` on each transport, `gateway`, `bridge to-nats` and `from-nats`) stop, one
 * policy for all: the first SIGTERM or SIGINT stops new work, requests in flight get `--drain-ms` to be
 * answered (those still running then are answered with an error naming the deadline), and the process is gone
 * within about a second more, whatever its clients, its server processes or its NATS server do. A second signal
 * ends it at once (transports/stdio/stop-signals.ts).
 *
 * The budgets below share that second: each last step that waits on someone else (a client reading its last
 * answers, a server process exiting, the NATS connection closing) waits a bounded part of it, and cli/rxmcp.ts
 * ends the process once the command returned, whatever handle a library left open.
 */
import { UsageError } from './args.ts';

/** How long requests in flight may still run once a serving command is told to stop, unless `--drain-ms` says. */
export const DEFAULT_DRAIN_MS = 10_000;

/**
 * After the drain: how long the last answers (the errors for what outlived it) may take to reach a client before
 * its connection is closed anyway. A client that reads nothing gets no more than this.
 */
export const LAST_ANSWERS_MS = 250;

/**
 * How long a stopping command's NATS connection may take to drain (one round trip to the NATS server) before it
 * is closed without.
 */
export const NATS_CLOSE_MS = 250;

/**
 * Once a command has returned, how long a handle it cannot cancel (nats.js's reconnect delay) may keep the
 * process before it ends anyway.
 */
export const EXIT_GRACE_MS = 100;

/** How long stdout and stderr may go without taking a byte of what is left to write before the process ends anyway. */
const STALLED_OUTPUT_MS = 250;

/** Set once a stdio server's client ended its input (see `letOutputFinish`). */
let outputFinishes = false;

/**
 * A stdio server whose client ended its input (it is done asking, not gone) is still read: the process then
 * waits for stdout to take its last answers however long the reader takes, instead of ending once output
 * stalls. A signal still ends it at once (its handlers are gone by then).
 */
export function letOutputFinish(): void {
  outputFinishes = true;
}

/**
 * Ends the process with `code` once the command is over: at once when nothing holds it, else after `graceMs`,
 * as soon as stdout and stderr have written everything or (unless `letOutputFinish` was called) have taken
 * nothing for STALLED_OUTPUT_MS: a reader that reads nothing does not hold a process that was told to stop.
 * Progress shows as the streams' buffers shrinking, so one large write still under way counts as stalled.
 */
export function endProcess(code: number, graceMs: number): void {
  const started = Date.now();
  const pending = (): number => process.stdout.writableLength + process.stderr.writableLength;
  let left = pending();
  let movedAt = started;
  // Unreferenced: it never keeps the process alive itself; a pending write or a lingering handle does.
  setInterval(() => {
    const now = Date.now();
    const still = pending();
    if (still !== left) {
      left = still;
      movedAt = now;
    }
    if (now - started < graceMs) return;
    if (still === 0 || (!outputFinishes && now - movedAt >= STALLED_OUTPUT_MS)) process.exit(code);
  }, 25).unref();
}

export const drainFlag = { 'drain-ms': { type: 'string' } } as const;

export const drainHelp = `  --drain-ms N     once told to stop, how long requests in flight may still run (default ${DEFAULT_DRAIN_MS}; 0: none)`;

/** The paragraph every serving command's `--help` ends with: how it stops, and its exit codes. */
export const stoppingHelp = `stopping: SIGTERM or SIGINT stops taking new work; requests in flight get --drain-ms to be answered (those
still running then are answered with an error naming the deadline) and the process exits within about a
second more, whether or not its clients read, its NATS server answers or its server processes exit. A second
signal ends it at once.
exit codes: 0 stopped by a signal (or, on stdio, by stdin's end) after a graceful stop; 1 could not start (a
port in use, NATS unreachable ...) or ended by a failure (a session that failed, a bridge whose NATS
connection closed for good); 2 a mistake on the command line; a signal while it is still starting, or a second
one, ends it by that signal (exit status 128 + its number: 143 for SIGTERM, 130 for SIGINT).`;

/** `--drain-ms` as given, or the default; a usage error for anything but a whole number of milliseconds. */
export function drainMsOf(command: string, raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_DRAIN_MS;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw new UsageError(command, `--drain-ms must be a whole number of milliseconds (0 or more), got ${JSON.stringify(raw)}`);
  return value;
}
