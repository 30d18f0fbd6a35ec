/**
 * The server end of stdio: frames arrive on stdin and leave on stdout, one JSON message per line.
 *
 * - stdin EOF means the client sends nothing more: `incoming$` completes (any unterminated last line is
 *   delivered first) and the session closes. With `closeOnInputEnd: false` the transport stays open for
 *   writing instead and only `inputEnded` settles, so its owner can answer what is in flight before closing
 *   (`serveStdio` does).
 * - stdout failing (EPIPE: the client stopped reading) ends the transport with a `ConnectionClosed` reason.
 * - `close()` stops reading stdin (it is paused, so it no longer keeps the process alive) and writing
 *   stdout; it never ends or destroys either stream, which belong to the process.
 * - A `subscriptions/listen` the server ends (2026-07-28) is preceded by the `notifications/cancelled` naming it
 *   that stdio asks for (open-listens.ts).
 */
import type { Readable, Writable } from 'node:stream';
import type { LocalError } from '../../core/errors.ts';
import type { InboundFrame, OutboundFrame } from '../../core/transport.ts';
import { OpenListens } from './open-listens.ts';
import { defaultLimits } from '../../core/limits.ts';
import { guardConsole } from './console-guard.ts';
import { PipeTransport } from './pipe-transport.ts';

export interface StdioServerTransportOptions {
  /** Where frames arrive (default `process.stdin`). */
  readonly stdin?: Readable;
  /** Where frames go (default `process.stdout`). */
  readonly stdout?: Writable;
  /** The longest line accepted, in bytes (default `defaultLimits.maxMessageBytes`). */
  readonly maxMessageBytes?: number;
  /**
   * While the transport is open, send `console.*` output to stderr. Default: on when the transport writes
   * to `process.stdout` (where stray logging would corrupt the stream), off for any other stream.
   */
  readonly guardConsole?: boolean;
  /**
   * End the transport when stdin ends (default true). `false`: stdout stays open after stdin's EOF until
   * `close()`; `inputEnded` tells when it came.
   */
  readonly closeOnInputEnd?: boolean;
}

export class StdioServerTransport extends PipeTransport {
  /** Settles when stdin ended (EOF), after its last frame was delivered. */
  readonly inputEnded: Promise<void>;
  private releaseConsole: (() => void) | undefined;
  private readonly closeOnInputEnd: boolean;
  private resolveInputEnded!: () => void;
  private readonly listens = new OpenListens(1024);

  constructor(options: StdioServerTransportOptions = {}) {
    const stdout = options.stdout ?? process.stdout;
    super({
      input: options.stdin ?? process.stdin,
      output: stdout,
      maxMessageBytes: options.maxMessageBytes ?? defaultLimits.maxMessageBytes,
      inputName: 'stdin',
      outputName: 'stdout',
      ownsOutput: false,
      discardInputWhenDone: false,
    });
    this.closeOnInputEnd = options.closeOnInputEnd ?? true;
    this.inputEnded = new Promise((resolve) => (this.resolveInputEnded = resolve));
    if (options.guardConsole ?? stdout === process.stdout) this.releaseConsole = guardConsole();
  }

  protected override deliver(frame: InboundFrame): void {
    if (frame.type === 'message') this.listens.received(frame.payload);
    super.deliver(frame);
  }

  override send(frame: OutboundFrame): void | Promise<void> {
    const notices = this.listens.endedBy(frame.payload);
    // Written before the result; a failure to write shows on the result's own send.
    if (notices !== undefined) for (const payload of notices) Promise.resolve(super.send({ payload })).catch(() => undefined);
    return super.send(frame);
  }

  protected override onInputEnd(): void {
    this.resolveInputEnded();
    if (this.closeOnInputEnd) this.finish(undefined, false);
  }

  protected override onOutputBroken(error: LocalError): void {
    this.finish(error, false);
  }

  protected override released(): void {
    this.releaseConsole?.();
    this.releaseConsole = undefined;
  }
}

/** A transport for serving one MCP client over this process's stdin and stdout. */
export function createStdioServerTransport(options?: StdioServerTransportOptions): StdioServerTransport {
  return new StdioServerTransport(options);
}
