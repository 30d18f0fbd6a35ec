/**
 * What one end of the NATS binding was asked to send while its connection was down (nats.js reconnecting):
 * nats.js would drop it, so it waits here, in order, for the connection to come back. Bounded in count, and in
 * time: a frame that has waited `waitMs` is given up (its owner fails it), the oldest first, by one timer at a
 * time. The client transport keeps its requests here (client/client-transport.ts), a serving process its answers
 * and notifications (server/outbox.ts).
 */
import type { Clock, TimerHandle } from '../../core/clock.ts';

interface Waiting<T> {
  readonly frame: T;
  readonly at: number;
}

export class ReconnectWait<T> {
  private waiting: Waiting<T>[] = [];
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    /** How long a frame may wait; 0: frames never wait. */
    readonly waitMs: number,
    private readonly maxFrames: number,
    /** A frame that waited `waitMs` with the connection still down. */
    private readonly gaveUp: (frame: T) => void,
  ) {}

  /** Keeps `frame` until {@link takeAll}; false when `maxFrames` already wait. */
  add(frame: T): boolean {
    if (this.waiting.length >= this.maxFrames) return false;
    this.waiting.push({ frame, at: this.clock.now() });
    this.timer ??= this.clock.setTimeout(() => this.expire(), this.waitMs);
    return true;
  }

  /** The connection is back: every waiting frame, oldest first, and none waits any more. */
  takeAll(): T[] {
    const frames = this.waiting.map((entry) => entry.frame);
    this.clear();
    return frames;
  }

  /** How many frames wait. */
  get size(): number {
    return this.waiting.length;
  }

  /** Forgets every waiting frame and the timer (the transport closed). */
  clear(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.waiting = [];
  }

  /** Gives up the frames whose wait is over, then sets the timer for the next one's. */
  private expire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    let over = 0;
    while (over < this.waiting.length && (this.waiting[over] as Waiting<T>).at + this.waitMs <= now) over++;
    const expired = this.waiting.splice(0, over);
    const next = this.waiting[0];
    if (next !== undefined) this.timer = this.clock.setTimeout(() => this.expire(), Math.max(1, next.at + this.waitMs - now));
    for (const { frame } of expired) this.gaveUp(frame);
  }
}
