/**
 * The single writer of a session: every outbound frame goes through it, in order.
 *
 * It hands frames to the transport while the transport accepts them at once; when the transport answers with
 * a Promise (backpressure) it queues further frames until that settles. The queue is bounded: a full queue
 * means the peer is not reading, and the writer reports it instead of growing. What happens before that point
 * (a `slow` report, producers held back, progress merged, a stall timer) follows the session's backpressure
 * policy (core/backpressure.ts). The slow-consumer state is allocated only while a peer is slow, so sessions
 * whose peers keep up pay nothing for it.
 *
 * Answers are never dropped for queue space. The queue's bound is for what a session produces on its own
 * (notifications, requests to the peer); answers are bounded by what the peer asked, and the writer keeps that
 * bounded too: it tells the session when it starts waiting for the peer and when it has caught up again, and the
 * session stops reading while it waits, so no new request (and no refusal of one) arrives that could not be
 * answered. Answers may therefore use a reserve beyond the bound as large as the in-flight cap; only a medium
 * that cannot stop reading can fill that, and then the session ends with a reason instead of losing an answer.
 */
import type { Backpressure, FlowStatus } from '../core/backpressure.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { LocalError } from '../core/errors.ts';
import { isAnswerPayload } from '../core/jsonrpc.ts';
import { type ProgressToken, reportedProgressTokenOf } from '../core/progress-token.ts';
import type { OutboundFrame, Transport } from '../core/transport.ts';
import type { WirePayload } from '../core/jsonrpc.ts';

export interface OutboundWriterEvents {
  /** The peer is not reading: the queue overflowed or stayed slow too long. The frame was not queued. */
  readonly onOverflow: (error: LocalError) => void;
  /** The transport refused a frame (closed or failed). */
  readonly onFailure: (error: LocalError) => void;
  /** Whether frames may still be written (false once the session closed: then frames are dropped). */
  readonly isWritable: () => boolean;
  /** The peer became a slow consumer, or keeps up again. */
  readonly onFlow: (status: FlowStatus) => void;
  /**
   * The writer started waiting for the peer to take frames (`true`), or took everything it held (`false`).
   * Called once per change, so a session can stop and resume reading around it.
   */
  readonly onWaiting: (waiting: boolean) => void;
}

/**
 * A session's message tap, held by its writer only while someone observes (the one field both paths check): the
 * writer reports every frame it hands to the transport, the session every frame it reads.
 */
export interface MessageTapPort {
  inbound(payload: unknown): void;
  outbound(payload: WirePayload): void;
}

/** Held only while the peer is slow. */
interface SlowState {
  stall: TimerHandle | undefined;
  /** Producers waiting for the queue to drain (policy `pause`). */
  waiters: Array<{ resolve: () => void; reject: (error: LocalError) => void }> | undefined;
}

const resolved = Promise.resolve();

export class OutboundWriter {
  private queue: OutboundFrame[] | undefined;
  /** The transport has not yet taken the last frame (its send returned a pending Promise). */
  private waiting = false;
  /** Told the session it waits; cleared once every queued frame went out. */
  private holding = false;
  private slow: SlowState | undefined;
  /**
   * Set only while someone observes the session's messages: unobserved, sending checks this field and no more.
   * Declared, not initialised: a writer never tapped has no slot for it (idle sessions stay as small as before).
   */
  declare tap: MessageTapPort | undefined;

  /**
   * @param answerReserve how far answers may go past `maxQueued` (the session's in-flight cap: every accepted
   * request can still be answered when the queue is full of notifications)
   */
  constructor(
    private readonly transport: Transport,
    private readonly maxQueued: number,
    private readonly answerReserve: number,
    private readonly backpressure: Backpressure,
    private readonly clock: Clock,
    private readonly events: OutboundWriterEvents,
  ) {}

  /** Frames waiting for the transport. */
  get queued(): number {
    return this.queue?.length ?? 0;
  }

  /** Whether the peer counts as a slow consumer now. */
  get isSlow(): boolean {
    return this.slow !== undefined;
  }

  /**
   * Settles when a producer may go on: at once unless the policy is `pause` and the peer is slow, then once
   * the queue drained to half the slow mark. Rejects when the session closes first.
   */
  whenWritable(): Promise<void> {
    const slow = this.slow;
    if (slow === undefined || this.backpressure.policy !== 'pause') return resolved;
    return new Promise((resolve, reject) => (slow.waiters ??= []).push({ resolve, reject }));
  }

  write(frame: OutboundFrame): void {
    if (!this.events.isWritable()) return;
    if (!this.waiting) {
      this.send(frame);
      return;
    }
    const queue = (this.queue ??= []);
    if (this.slow !== undefined && this.backpressure.policy === 'pause' && this.mergeProgress(queue, frame)) return;
    if (queue.length >= this.maxQueued) {
      const answer = isAnswerPayload(frame.payload);
      if (!answer || queue.length >= this.maxQueued + this.answerReserve) {
        const bound = answer ? `${this.maxQueued} frames and ${this.answerReserve} more for answers` : `${this.maxQueued} frames`;
        this.events.onOverflow(
          new LocalError('SlowConsumer', `The outbound queue is full (maxOutboundQueue: ${bound}): the peer is not reading`),
        );
        return;
      }
    }
    queue.push(frame);
    if (this.slow === undefined && queue.length >= this.backpressure.slowAfterFrames) this.becomeSlow(queue.length);
  }

  /** Drops queued frames (the session is closing); producers waiting to write are told. */
  discard(reason?: LocalError): void {
    this.queue = undefined;
    this.endSlow(reason ?? new LocalError('ConnectionClosed', 'The session closed'), false);
  }

  private send(frame: OutboundFrame): void {
    let accepted: void | Promise<void>;
    const tap = this.tap;
    if (tap !== undefined) tap.outbound(frame.payload);
    try {
      accepted = this.transport.send(frame);
    } catch (error) {
      this.fail(error);
      return;
    }
    if (accepted !== undefined) {
      this.waiting = true;
      accepted.then(() => this.drain(), (error: unknown) => this.fail(error));
      if (!this.holding) {
        this.holding = true;
        this.events.onWaiting(true);
      }
    }
  }

  private drain(): void {
    this.waiting = false;
    const queue = this.queue;
    while (queue !== undefined && queue.length > 0 && !this.waiting && this.events.isWritable()) {
      this.send(queue.shift() as OutboundFrame);
    }
    if (this.holding && !this.waiting && (this.queue?.length ?? 0) === 0) {
      this.holding = false;
      this.events.onWaiting(false);
    }
    const slow = this.slow;
    if (slow === undefined) return;
    if ((this.queue?.length ?? 0) < this.backpressure.flowingBelowFrames) this.endSlow(undefined, true);
    else {
      // The peer read something: the stall clock starts again.
      slow.stall?.cancel();
      slow.stall = this.armStall();
    }
  }

  private fail(error: unknown): void {
    this.waiting = false;
    this.queue = undefined;
    const local = error instanceof LocalError ? error : new LocalError('TransportFailed', 'The transport failed to send a frame', { cause: error });
    this.endSlow(local, false);
    this.events.onFailure(local);
  }

  private becomeSlow(queued: number): void {
    this.slow = { stall: this.armStall(), waiters: undefined };
    this.events.onFlow({ type: 'slow', queued });
  }

  private armStall(): TimerHandle | undefined {
    const ms = this.backpressure.stallTimeoutMs;
    return Number.isFinite(ms) ? this.clock.setTimeout(() => this.onStalled(), ms) : undefined;
  }

  private onStalled(): void {
    if (this.slow === undefined) return;
    this.events.onOverflow(
      new LocalError('SlowConsumer', `The peer read nothing for ${this.backpressure.stallTimeoutMs} ms while ${this.queued} frames waited for it`),
    );
  }

  /** Leaves the slow state: waiting producers go on (`flowing`) or are told why they never will. */
  private endSlow(failure: LocalError | undefined, flowing: boolean): void {
    const slow = this.slow;
    if (slow === undefined) return;
    this.slow = undefined;
    slow.stall?.cancel();
    const waiters = slow.waiters;
    if (waiters !== undefined) {
      for (const waiter of waiters) {
        if (failure === undefined) waiter.resolve();
        else waiter.reject(failure);
      }
    }
    if (flowing) this.events.onFlow({ type: 'flowing' });
  }

  /**
   * A progress report for a request whose earlier report still waits replaces that one in place: a peer that
   * is behind learns the latest progress, not every step of it.
   */
  private mergeProgress(queue: OutboundFrame[], frame: OutboundFrame): boolean {
    const token = reportTokenOf(frame);
    if (token === undefined) return false;
    for (let i = queue.length - 1; i >= 0; i--) {
      const queued = queue[i] as OutboundFrame;
      if (reportTokenOf(queued) === token && queued.exchange === frame.exchange) {
        queue[i] = frame;
        return true;
      }
    }
    return false;
  }
}

/** The token of a progress report, or undefined for any other frame. */
function reportTokenOf(frame: OutboundFrame): ProgressToken | undefined {
  const payload = frame.payload as { method?: unknown; params?: unknown };
  return payload.method === 'notifications/progress' ? reportedProgressTokenOf(payload.params) : undefined;
}
