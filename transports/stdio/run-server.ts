/**
 * `serveStdio`: serve one session on stdio until the client goes away or the server is told to stop, then
 * resolve, so a server program ends naturally:
 *
 *   await serveStdio(server, { handleSignals: true }); // the process exits once nothing else keeps it alive
 *
 * Every way of ending is graceful: stdin's end (the client sends nothing more, but still reads stdout), the
 * `signal` aborting, or SIGTERM/SIGINT when `handleSignals` is on. New requests are refused, requests in
 * flight run on for up to `drainMs`, what still runs then is answered with an error naming the deadline, the
 * answers are flushed to stdout, and only then does the session close.
 *
 * The library never calls `process.exit`: what happens after the promise settles is the program's choice.
 */
import type { Writable } from 'node:stream';
import type { LocalError } from '../../core/errors.ts';
import { onStopSignals } from './stop-signals.ts';
import type { SessionAcceptorPort } from '../../core/transport.ts';
import { type StdioServerTransportOptions, createStdioServerTransport } from './server-transport.ts';

/** How long requests in flight may still run once the shutdown started, unless told otherwise. */
export const DEFAULT_DRAIN_MS = 10_000;
/** How long stdout may take to hand over what was written before the promise settles anyway. */
const DEFAULT_FLUSH_MS = 1_000;

export interface ServeStdioOptions extends Omit<StdioServerTransportOptions, 'closeOnInputEnd'> {
  /** Aborting starts the graceful shutdown (as stdin's end does); the promise then resolves as usual. */
  readonly signal?: AbortSignal;
  /**
   * How long requests in flight may still run once the shutdown started (default 10 s). Each one still
   * running then is answered with an error saying the server shut down and the deadline passed.
   */
  readonly drainMs?: number;
  /** How long queued answers, then stdout's own buffer, may take to be written out (default 1 s each). */
  readonly flushMs?: number;
  /**
   * SIGTERM and SIGINT start the graceful shutdown, and a second one ends the process at once (default false).
   *
   * Off by default: signals belong to the program, not to a library. A program may serve more than stdio,
   * shut down in an order of its own, or have handlers already; and a SIGTERM listener replaces Node's default
   * (ending the process), so a library adding one silently would change what `kill` does. Programs that just
   * serve stdio turn it on with one flag (`rxmcp serve --stdio` does).
   */
  readonly handleSignals?: boolean;
}

/**
 * Accepts one session on stdio. Resolves once the session is closed and its answers were written, with the
 * reason the transport ended for (undefined for an orderly end: stdin's EOF, a signal, the abort signal).
 */
export async function serveStdio(acceptor: SessionAcceptorPort, options: ServeStdioOptions = {}): Promise<LocalError | undefined> {
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
  if (!(drainMs >= 0)) throw new RangeError(`drainMs must be 0 or more; got ${drainMs}`);
  if (!(flushMs >= 0)) throw new RangeError(`flushMs must be 0 or more; got ${flushMs}`);
  const transport = createStdioServerTransport({ ...options, closeOnInputEnd: false });
  let session: ReturnType<SessionAcceptorPort['accept']>;
  try {
    session = acceptor.accept(transport);
  } catch (error) {
    await transport.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  let holdOpen: NodeJS.Timeout | undefined;
  const shutDown = (): void => {
    if (stopping !== undefined) return;
    // The session's timers do not keep the process alive; a shutdown under way must, until it is over (stdin
    // has ended, so nothing else may).
    holdOpen = setTimeout(() => undefined, drainMs + 2 * flushMs + 1_000);
    stopping = session.close({ drainMs, flushMs });
  };
  void transport.inputEnded.then(shutDown);
  const signal = options.signal;
  if (signal?.aborted === true) shutDown();
  else signal?.addEventListener('abort', shutDown, { once: true });
  const removeSignals = options.handleSignals === true ? onStopSignals({ graceful: shutDown }) : undefined;
  try {
    const reason = await transport.closed;
    // The transport may have ended under the session (stdout broken): the session closes now, without a drain.
    await (stopping ?? session.close());
    if (reason === undefined) await flushed(options.stdout ?? process.stdout, flushMs);
    return reason;
  } finally {
    signal?.removeEventListener('abort', shutDown);
    removeSignals?.();
    clearTimeout(holdOpen);
  }
}

/** Settles once `stream` has handed everything written to it to the OS, or after `ms`. */
function flushed(stream: Writable, ms: number): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed || stream.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    // A reader that went away fails the write (EPIPE): its callback gets the error first and the 'error' event
    // follows, so the listener stays: nothing is written here any more, and a late error must not end the process.
    stream.on('error', ignore);
    // Writes complete in order: an empty write's callback runs once everything before it was written.
    stream.write(Buffer.alloc(0), done);
  });
}

function ignore(): void {}
