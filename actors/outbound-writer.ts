/**
 * The single writer of a session: every outbound frame goes through it, in order.
 *
 * It hands frames to the transport while the transport accepts them at once; when the transport answers with
 * a Promise (backpressure) it queues further frames until that settles. A medium that carries each exchange on a
 * stream of its own (`flowPerExchange`: Streamable HTTP) holds back only that frame's exchange: its later frames
 * queue, in order, while other exchanges' frames go on, so one stream its client stops reading delays no other.
 * The queue is bounded (over every exchange): a full queue means the peer is not reading, and the writer
 * reports it instead of growing. What happens before that point
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
import type { Observer } from 'rxjs';
import type { Backpressure, FlowStatus } from '../core/backpressure.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { LocalError } from '../core/errors.ts';
import { isAnswerPayload } from '../core/jsonrpc.ts';
import { type ProgressToken, reportedProgressTokenOf } from '../core/progress-token.ts';
import type { ExchangeKey, OutboundFrame, Transport } from '../core/transport.ts';
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
  /** The last queued frame went to the transport: a closing session's flush is over (told, never polled). */
  readonly onQueueEmpty?: () => void;
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

/** The lane of every frame on a medium whose backpressure holds everything back (one stream of frames). */
const ONE_LANE = Symbol('one lane');
type Lane = ExchangeKey | undefined | typeof ONE_LANE;

/**
 * The writer is the session's outbound sink, an Observer of frames: whatever produces frames (an answer, a
 * request's progress, a notification) may be subscribed to it or call `next`. Its backpressure is the sink's: a
 * transport that cannot take more holds the sink (frames queue behind it, per lane), and the session stops reading
 * while it does (`onWaiting`). One producer ending is not the end of the session's output: `complete` does nothing.
 */
export class OutboundWriter implements Observer<OutboundFrame> {
  /**
   * The lanes the transport holds back now (its send returned a pending Promise for their last frame), each with
   * the frames waiting behind it, in order. Made for the first wait; a lane is here only while it waits.
   */
  private waiting: Map<Lane, OutboundFrame[]> | undefined;
  /** Frames waiting in every lane. */
  private queuedFrames = 0;
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
    return this.queuedFrames;
  }

  /** Whether the peer counts as a slow consumer now. */
  get isSlow(): boolean {
    return this.slow !== undefined;
  }

  /**
   * Settles when a producer may go on: at once unless the policy is `pause` and the peer is slow, then once
   * the queue drained to half the slow mark. A producer on an exchange the medium does not hold back
   * (`flowPerExchange`) goes on at once: only the stream that is not read waits. Rejects when the session closes
   * first.
   */
  whenWritable(exchange?: ExchangeKey): Promise<void> {
    const slow = this.slow;
    if (slow === undefined || this.backpressure.policy !== 'pause') return resolved;
    if (this.transport.flowPerExchange === true && this.waiting?.has(exchange) !== true) return resolved;
    return new Promise((resolve, reject) => (slow.waiters ??= []).push({ resolve, reject }));
  }

  next(frame: OutboundFrame): void {
    this.write(frame);
  }

  /** A producer failed: as a transport failure, the session ends with it. */
  error(error: unknown): void {
    this.fail(error);
  }

  complete(): void {
    // A producer's end; the session's output goes on (see the class comment).
  }

  write(frame: OutboundFrame): void {
    if (!this.events.isWritable()) return;
    const waiting = this.waiting;
    // Nothing waits (the common case): straight to the transport, with no lane looked up.
    const queue = waiting === undefined ? undefined : waiting.get(this.laneOf(frame));
    if (queue === undefined) {
      this.send(frame);
      return;
    }
    if (this.slow !== undefined && this.backpressure.policy === 'pause' && this.mergeProgress(queue, frame)) return;
    const queued = this.queuedFrames;
    if (queued >= this.maxQueued) {
      const answer = isAnswerPayload(frame.payload);
      if (!answer || queued >= this.maxQueued + this.answerReserve) {
        const bound = answer ? `${this.maxQueued} frames and ${this.answerReserve} more for answers` : `${this.maxQueued} frames`;
        this.events.onOverflow(
          new LocalError('SlowConsumer', `The outbound queue is full (maxOutboundQueue: ${bound}): the peer is not reading`),
        );
        return;
      }
    }
    queue.push(frame);
    this.queuedFrames = queued + 1;
    if (this.slow === undefined && this.queuedFrames >= this.backpressure.slowAfterFrames) this.becomeSlow(this.queuedFrames);
  }

  /** Drops queued frames (the session is closing); producers waiting to write are told. */
  discard(reason?: LocalError): void {
    this.waiting = undefined;
    this.queuedFrames = 0;
    this.endSlow(reason ?? new LocalError('ConnectionClosed', 'The session closed'), false);
  }

  private laneOf(frame: OutboundFrame): Lane {
    return this.transport.flowPerExchange === true ? frame.exchange : ONE_LANE;
  }

  /**
   * Hands `frame` to the transport; when it must wait, the frame's lane waits with `behind` (the frames queued
   * after it, in order). Returns whether it waits.
   */
  private send(frame: OutboundFrame, behind?: OutboundFrame[]): boolean {
    let accepted: void | Promise<void>;
    const tap = this.tap;
    if (tap !== undefined) tap.outbound(frame.payload);
    try {
      accepted = this.transport.send(frame);
    } catch (error) {
      this.fail(error);
      return false;
    }
    if (accepted === undefined) return false;
    const lane = this.laneOf(frame);
    (this.waiting ??= new Map()).set(lane, behind ?? []);
    accepted.then(() => this.drain(lane), (error: unknown) => this.fail(error));
    if (!this.holding) {
      this.holding = true;
      this.events.onWaiting(true);
    }
    return true;
  }

  private drain(lane: Lane): void {
    const waiting = this.waiting;
    const queue = waiting?.get(lane);
    if (waiting === undefined || queue === undefined) return;
    waiting.delete(lane);
    const held = this.queuedFrames;
    while (queue.length > 0 && this.events.isWritable()) {
      this.queuedFrames--;
      if (this.send(queue.shift() as OutboundFrame, queue)) break;
    }
    if (held > 0 && this.queuedFrames === 0) this.events.onQueueEmpty?.();
    if (waiting.size === 0 && this.waiting === waiting) {
      this.waiting = undefined;
      if (this.holding) {
        this.holding = false;
        this.events.onWaiting(false);
      }
    }
    const slow = this.slow;
    if (slow === undefined) return;
    if (this.queuedFrames < this.backpressure.flowingBelowFrames) this.endSlow(undefined, true);
    else {
      // The peer read something: the stall clock starts again.
      slow.stall?.cancel();
      slow.stall = this.armStall();
    }
  }

  private fail(error: unknown): void {
    this.waiting = undefined;
    this.queuedFrames = 0;
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
