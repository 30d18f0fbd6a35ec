/**
 * One direction of a join: frames from one side, queued and sent to the other one at a time.
 *
 * The queue is bounded: a frame beyond `maxQueued` is refused (its sender hears why, through `onRefused`), except
 * an answer, which may use a reserve as large again: answers are what frees the peer, so they are the last thing
 * to drop, and only a side that cannot pause its reading could fill the reserve. Whenever `send` returns a promise
 * (the receiver's backpressure) the flow waits for it before the next frame, and says it is backed up meanwhile,
 * so the join can stop reading the side that feeds it.
 */
import { type WirePayload, isAnswerPayload } from '../../core/jsonrpc.ts';
import type { ExchangeKey, OutboundFrame, Transport } from '../../core/transport.ts';
import type { Undelivered } from './undelivered.ts';

/** One frame on its way, with what must happen around its send. */
export interface Passage {
  readonly payload: WirePayload;
  readonly exchange?: ExchangeKey | undefined;
  readonly mirror?: Readonly<Record<string, string>> | undefined;
  /**
   * Runs right before the send, in queue order (so later frames wait behind it). A failure refuses the frame
   * (kind `prepare`).
   */
  readonly before?: () => void | Promise<void>;
  /** Runs once the send settled, taken or not. */
  readonly after?: () => void;
}

export class Flow {
  private readonly queue: Passage[] = [];
  private running = false;
  private pumping: Promise<void> = Promise.resolve();
  /** The receiver is gone: nothing more is queued. */
  private stopped = false;
  /** Waiting for the receiver since a send returned a promise, until the queue is empty again. */
  backedUp = false;

  constructor(
    readonly from: string,
    readonly to: string,
    private readonly receiver: Transport,
    private readonly maxQueued: number,
    private readonly onRefused: (passage: Passage, why: Undelivered) => void,
    private readonly report: (line: string) => void,
    private readonly onBackedUp: () => void,
  ) {}

  get queued(): number {
    return this.queue.length;
  }

  push(passage: Passage): void {
    if (this.stopped) return this.onRefused(passage, { kind: 'ended', why: `${this.to} is closed` });
    const length = this.queue.length;
    if (length >= this.maxQueued && !(isAnswerPayload(passage.payload) && length < 2 * this.maxQueued)) {
      this.report(`${this.from} -> ${this.to}: ${this.maxQueued} frames wait for ${this.to}; refusing more`);
      return this.onRefused(passage, { kind: 'full', max: this.maxQueued });
    }
    this.queue.push(passage);
    if (!this.running) {
      this.running = true;
      this.pumping = this.pump();
    }
  }

  /** Settles once nothing waits and nothing is being sent. */
  idle(): Promise<void> {
    return this.pumping;
  }

  /**
   * The receiver ended: nothing more is taken, and what still waits is refused with `why` (unless `quietly`:
   * both sides are going, or what waits was answered already).
   */
  stop(why: string, quietly = false): void {
    this.stopped = true;
    const waiting = this.queue.splice(0);
    if (!quietly) for (const passage of waiting) this.onRefused(passage, { kind: 'ended', why });
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const passage = this.queue.shift() as Passage;
        if (passage.before !== undefined) {
          // Synchronous when it can be: a frame whose preparation needs no wait leaves in the same turn.
          try {
            const prepared = passage.before();
            if (prepared !== undefined) await prepared;
          } catch (error) {
            this.onRefused(passage, { kind: 'prepare', error });
            passage.after?.();
            continue;
          }
          if (this.stopped) {
            // The receiver ended while the frame was prepared.
            this.onRefused(passage, { kind: 'ended', why: `${this.to} is closed` });
            continue;
          }
        }
        try {
          const sent = this.receiver.send(frameOf(passage));
          if (sent !== undefined) {
            this.setBackedUp(true);
            await sent;
          }
        } catch (error) {
          this.onRefused(passage, { kind: 'refused', error });
        }
        passage.after?.();
      }
    } finally {
      // Runs in the same turn as the last empty-queue check: a push after it starts a new pump.
      this.running = false;
      this.setBackedUp(false);
    }
  }

  private setBackedUp(backedUp: boolean): void {
    if (this.backedUp === backedUp) return;
    this.backedUp = backedUp;
    this.onBackedUp();
  }
}

/** The frame a passage sends (the optional fields only when set: a medium may tell absent from undefined). */
function frameOf(passage: Passage): OutboundFrame {
  const { payload, exchange, mirror } = passage;
  if (exchange === undefined) return mirror === undefined ? { payload } : { payload, mirror };
  return mirror === undefined ? { payload, exchange } : { payload, exchange, mirror };
}
