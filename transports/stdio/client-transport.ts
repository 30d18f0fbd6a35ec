/**
 * The client end of stdio: spawn an MCP server program and talk to it over its stdin and stdout.
 *
 * - The program is started with `child_process.spawn`, never through a shell, with the environment policy
 *   of child-env.ts. A program that cannot be started rejects `spawnStdioServer` with `TransportFailed`.
 * - `close()` follows the shutdown the MCP specification gives for stdio: end the child's stdin, wait for it
 *   to exit, then SIGTERM, wait again, then SIGKILL. It resolves once the child has exited.
 * - A child that exits on its own ends the transport: every request still waiting fails with a
 *   `ConnectionClosed` naming the exit code or signal, and `incoming$` completes (exit code 0) or errors
 *   with that same error (anything else).
 * - Only the process spawned here is ever signalled (through its own handle, by its pid).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { EMPTY, type Observable } from 'rxjs';
import { type Clock, systemClock } from '../../core/clock.ts';
import { LocalError } from '../../core/errors.ts';
import { defaultLimits } from '../../core/limits.ts';
import type { InboundFrame, OutboundFrame } from '../../core/transport.ts';
import { type EnvInheritance, childEnvironment } from './child-env.ts';
import { errorCode } from './frame-writer.ts';
import { PendingRequests } from './pending-requests.ts';
import { PipeTransport } from './pipe-transport.ts';
import { stderrLines } from './stderr-lines.ts';

export interface SpawnStdioServerOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Variables for the child, merged over the inherited base (see {@link inheritEnv}). */
  readonly env?: Readonly<Record<string, string>>;
  /** The inherited base: `'safe'` (default: PATH, HOME, USER, locale...), `'all'`, `'none'`, or a list of names. */
  readonly inheritEnv?: EnvInheritance;
  readonly cwd?: string;
  /** The child's stderr: shown with ours (`'inherit'`, default), read into `stderr$` (`'pipe'`) or dropped. */
  readonly stderr?: 'inherit' | 'pipe' | 'ignore';
  readonly shutdown?: {
    /** How long `close()` waits for the child to exit after its stdin ended (default 2000 ms). */
    readonly stdinCloseWaitMs?: number;
    /** How long it then waits after SIGTERM before SIGKILL (default 2000 ms). */
    readonly sigtermWaitMs?: number;
  };
  /** The longest line accepted from the child, in bytes (default `defaultLimits.maxMessageBytes`). */
  readonly maxMessageBytes?: number;
  /** Timers of the shutdown sequence (default: the system clock). */
  readonly clock?: Clock;
}

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** After the child exits, how long its stdout may still deliver before the transport ends without it. */
const EXIT_FLUSH_MS = 200;
/** Requests remembered for naming the exit in their failure (see pending-requests.ts). */
const PENDING_CAPACITY = 4 * defaultLimits.maxOutgoingInFlight;

type PipedChild = ChildProcess & { readonly stdin: Writable; readonly stdout: Readable };

export class StdioClientTransport extends PipeTransport {
  readonly pid: number;
  /** The child's stderr, line by line, when spawned with `stderr: 'pipe'`; empty otherwise. */
  readonly stderr$: Observable<string>;
  /** Settles once the child has exited. */
  readonly exited: Promise<ChildExit>;
  private exit: ChildExit | undefined;
  private stopping: Promise<ChildExit> | undefined;
  private readonly pending = new PendingRequests(PENDING_CAPACITY);
  private readonly label: string;

  get remote(): string {
    return [this.options.command, ...(this.options.args ?? [])].join(' ');
  }

  constructor(private readonly child: PipedChild, private readonly options: SpawnStdioServerOptions) {
    super({
      input: child.stdout,
      output: child.stdin,
      maxMessageBytes: options.maxMessageBytes ?? defaultLimits.maxMessageBytes,
      inputName: "the server's stdout",
      outputName: "the server's stdin",
      ownsOutput: true,
      discardInputWhenDone: true,
    });
    this.pid = child.pid ?? -1;
    this.label = `the server process "${options.command}" (pid ${this.pid})`;
    this.stderr$ = child.stderr === null ? EMPTY : stderrLines(child.stderr);
    // Errors after a successful spawn (a signal that could not be sent) change nothing here.
    child.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        const exit: ChildExit = { code, signal };
        this.exit = exit;
        resolve(exit);
        if (!this.ended) this.clock.setTimeout(() => this.onChildGone(exit), EXIT_FLUSH_MS);
      });
    });
    // 'close' comes after 'exit' once the child's pipes are drained: everything it wrote has been read.
    child.once('close', () => {
      if (this.exit !== undefined) this.onChildGone(this.exit);
    });
  }

  override send(frame: OutboundFrame): void | Promise<void> {
    if (!this.ended) this.pending.sent(frame.payload);
    return super.send(frame);
  }

  protected override deliver(frame: InboundFrame): void {
    if (frame.type === 'message') this.pending.received(frame.payload);
    super.deliver(frame);
  }

  protected override async shutDown(reason: LocalError | undefined): Promise<void> {
    this.finish(reason, false);
    await this.stopChild();
  }

  /** The child closed its stdout; it may still be running: the transport ends when it exits. */
  protected override onInputEnd(): void {}

  protected override onInputError(error: Error): void {
    super.onInputError(error);
    void this.stopChild();
  }

  /** Writing to the child failed (it is dying, or closed its stdin): stop it; its exit ends the transport. */
  protected override onOutputBroken(): void {
    void this.stopChild();
  }

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  private onChildGone(exit: ChildExit): void {
    if (this.ended) return;
    const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
    const reason = new LocalError('ConnectionClosed', `${this.label} ${how}`);
    for (const frame of this.pending.failAll(reason)) this.deliver(frame);
    this.finish(reason, exit.code !== 0);
  }

  private stopChild(): Promise<ChildExit> {
    this.stopping ??= this.runShutdownSequence();
    return this.stopping;
  }

  private async runShutdownSequence(): Promise<ChildExit> {
    const shutdown = this.options.shutdown;
    if (this.exit !== undefined) return this.exit;
    if (!this.child.stdin.destroyed) this.child.stdin.end();
    if (await this.exitsWithin(shutdown?.stdinCloseWaitMs ?? 2000)) return this.exited;
    this.signal('SIGTERM');
    if (await this.exitsWithin(shutdown?.sigtermWaitMs ?? 2000)) return this.exited;
    this.signal('SIGKILL');
    return this.exited;
  }

  private signal(signal: NodeJS.Signals): void {
    // The handle signals its own pid only, and not at all once the child has been reaped.
    if (this.exit === undefined) this.child.kill(signal);
  }

  private exitsWithin(ms: number): Promise<boolean> {
    if (this.exit !== undefined) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(() => resolve(false), ms);
      void this.exited.then(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }
}

/**
 * Starts an MCP server program and returns the transport to it once the process is running. Rejects with
 * `LocalError('TransportFailed', 'could not start <command>: ENOENT')` (or the error code met) otherwise.
 */
export async function spawnStdioServer(options: SpawnStdioServerOptions): Promise<StdioClientTransport> {
  const { command } = options;
  const failed = (error: unknown): LocalError =>
    new LocalError('TransportFailed', `could not start ${command}: ${errorCode(error)}`, { cause: error });
  let child: ChildProcess;
  try {
    child = spawn(command, [...(options.args ?? [])], {
      env: childEnvironment(options.inheritEnv, options.env),
      stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
      shell: false,
      windowsHide: true,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
  } catch (error) {
    throw failed(error);
  }
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  } catch (error) {
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    throw failed(error);
  }
  if (child.stdin === null || child.stdout === null) throw new LocalError('TransportFailed', `could not start ${command}: no stdio pipes`);
  return new StdioClientTransport(child as PipedChild, options);
}
