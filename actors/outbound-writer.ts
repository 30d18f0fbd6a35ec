/**
 * The single writer of a session: every outbound frame goes through it, in order.
 *
 * It hands frames to the transport while the transport accepts them at once; when the transport answers with
 * a Promise (backpressure) it queues further frames until that settles. The queue is bounded: a full queue
 * means the peer is not reading, and the writer reports it instead of growing.
 */
import { LocalError } from '../core/errors.ts';
import type { OutboundFrame, Transport } from '../core/transport.ts';

export interface OutboundWriterEvents {
  /** The queue is full; the frame was not queued. */
  readonly onOverflow: (error: LocalError) => void;
  /** The transport refused a frame (closed or failed). */
  readonly onFailure: (error: LocalError) => void;
  /** Whether frames may still be written (false once the session closed: then frames are dropped). */
  readonly isWritable: () => boolean;
}

export class OutboundWriter {
  private queue: OutboundFrame[] | undefined;
  private waiting = false;

  constructor(
    private readonly transport: Transport,
    private readonly maxQueued: number,
    private readonly events: OutboundWriterEvents,
  ) {}

  /** Frames waiting for the transport. */
  get queued(): number {
    return this.queue?.length ?? 0;
  }

  write(frame: OutboundFrame): void {
    if (!this.events.isWritable()) return;
    if (!this.waiting) {
      this.send(frame);
      return;
    }
    const queue = (this.queue ??= []);
    if (queue.length >= this.maxQueued) {
      this.events.onOverflow(
        new LocalError('QueueFull', `The outbound queue is full (${this.maxQueued} frames): the peer is not reading`),
      );
      return;
    }
    queue.push(frame);
  }

  /** Drops queued frames (the session is closing). */
  discard(): void {
    this.queue = undefined;
  }

  private send(frame: OutboundFrame): void {
    let accepted: void | Promise<void>;
    try {
      accepted = this.transport.send(frame);
    } catch (error) {
      this.fail(error);
      return;
    }
    if (accepted !== undefined) {
      this.waiting = true;
      accepted.then(() => this.drain(), (error: unknown) => this.fail(error));
    }
  }

  private drain(): void {
    this.waiting = false;
    const queue = this.queue;
    while (queue !== undefined && queue.length > 0 && !this.waiting && this.events.isWritable()) {
      this.send(queue.shift() as OutboundFrame);
    }
  }

  private fail(error: unknown): void {
    this.waiting = false;
    this.queue = undefined;
    this.events.onFailure(
      error instanceof LocalError ? error : new LocalError('TransportFailed', 'The transport failed to send a frame', { cause: error }),
    );
  }
}
