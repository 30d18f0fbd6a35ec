/**
 * Writes NDJSON frames to a byte stream (our stdout, a child's stdin), honouring its backpressure: a frame
 * the stream takes at once costs no promise; when `write()` reports a full buffer, the caller gets a promise
 * that settles on 'drain' (or rejects with `ConnectionClosed` if the stream fails or closes first).
 */
import type { Writable } from 'node:stream';
import { encodeFrame } from '../../core/codecs/framing.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import { LocalError } from '../../core/errors.ts';
import type { WirePayload } from '../../core/jsonrpc.ts';
import type { TransportStatus } from '../../core/transport.ts';

export interface FrameWriterEvents {
  status(status: TransportStatus): void;
  /** The stream failed or closed under us (the peer went away). Not called after {@link FrameWriter.close}. */
  broken(error: LocalError): void;
}

interface DrainWait {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: LocalError) => void;
  queued: number;
}

/** `EPIPE`, or the message of an error without a code. */
export function errorCode(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return typeof code === 'string' ? code : error.message;
  }
  return String(error);
}

/**
 * Frames per write within one turn. One write per turn made the two ends of a pipe take turns with whole windows
 * (64 calls in flight: one process idle while the other worked); one write per frame is a syscall each. Measured in
 * bench/RESULTS.md ("stdio: batches within a turn").
 */
export const CORKED_FRAMES_MAX = 16;

export class FrameWriter {
  private failure: LocalError | undefined;
  /** Set from the first frame of a turn until the end of it (process.nextTick), while the output is corked. */
  private corked = false;
  /** Frames held by the cork now: at {@link CORKED_FRAMES_MAX} they leave, and the turn's next frames cork anew. */
  private corkedFrames = 0;
  private readonly uncork = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.corkedFrames = 0;
    this.output.uncork();
  };
  private waiting: DrainWait | undefined;
  private readonly onDrain = (): void => {
    const waiting = this.waiting;
    if (waiting === undefined) return;
    this.waiting = undefined;
    this.events.status({ type: 'drained' });
    waiting.resolve();
  };
  private readonly onError = (error: Error): void => {
    this.break(new LocalError('ConnectionClosed', `${this.name} failed: ${errorCode(error)}`, { cause: error }));
  };
  private readonly onClose = (): void => {
    this.break(new LocalError('ConnectionClosed', `${this.name} was closed`));
  };

  /**
   * @param name what the stream is, for error messages ("stdout", "the server's stdin")
   * @param owned whether the stream is ours alone (a child's stdin): then late errors on it are swallowed for
   * good once we stop writing; a shared stream (process.stdout) is only guarded until our frames are flushed.
   */
  constructor(
    private readonly output: Writable,
    private readonly name: string,
    private readonly owned: boolean,
    private readonly events: FrameWriterEvents,
  ) {
    output.on('drain', this.onDrain);
    output.on('error', this.onError);
    output.on('close', this.onClose);
  }

  /** Frames handed over but not yet taken by the stream's reader (0 when it keeps up). */
  get waitingFrames(): number {
    return this.waiting?.queued ?? 0;
  }

  write(payload: WirePayload): void | Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const bytes = encodeFrame(jsonCodec, payload);
    if (!this.corked) {
      // The frames of one turn (a burst of answers, a window of calls) leave in few writes, not a syscall each.
      this.corked = true;
      this.output.cork();
      process.nextTick(this.uncork);
    }
    const taken = this.output.write(bytes);
    // A turn's frames leave in batches, not all at its end: the peer starts on the first batch while this side
    // makes the next, so the two processes work at once instead of taking turns with whole windows.
    if (++this.corkedFrames >= CORKED_FRAMES_MAX) {
      this.corkedFrames = 0;
      this.output.uncork();
      this.output.cork();
    }
    if (taken) return undefined;
    let waiting = this.waiting;
    if (waiting === undefined) {
      let resolve!: () => void;
      let reject!: (error: LocalError) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // Marked handled: a caller that drops the promise must not turn a closed pipe into a process crash.
      promise.catch(ignore);
      waiting = this.waiting = { promise, resolve, reject, queued: 0 };
    }
    waiting.queued += 1;
    this.events.status({ type: 'backpressure', queued: waiting.queued });
    return waiting.promise;
  }

  /** We stop writing: later writes and a pending drain wait reject with `error`. Idempotent. */
  close(error: LocalError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.release(error);
  }

  private break(error: LocalError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.release(error);
    this.events.broken(error);
  }

  private release(error: LocalError): void {
    // What this turn wrote still goes out (or fails into the guards below).
    this.uncork();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
    const output = this.output;
    output.off('drain', this.onDrain);
    output.off('error', this.onError);
    output.off('close', this.onClose);
    // Frames already written may still fail (EPIPE once the reader is gone); that must not crash the process.
    if (this.owned) {
      output.on('error', ignore);
    } else if (output.writableLength > 0 && !output.writableEnded && !output.destroyed) {
      output.on('error', ignore);
      // Writes complete in order: the callback of an empty write runs once everything before it is flushed. A
      // failed write calls it before the stream emits 'error' (next tick), so the guard stays a turn longer.
      output.write(Buffer.alloc(0), () => setImmediate(() => output.off('error', ignore)));
    }
  }
}

function ignore(): void {}
