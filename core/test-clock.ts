/**
 * A simulated {@link Clock} for tests, published as `rxmcp/testing`: time moves only when the test calls `advance`,
 * so a session's timeouts, keepalives and deadlines run without sleeping. Give it where a clock is taken
 * (`server.accept(transport, { clock })`, `createSessionHost(server, { clock })`, `createClient({ session: { clock } })`,
 * a transport's `clock`).
 *
 * Timers due at the same instant fire in the order they were scheduled; an interval is rescheduled after its
 * callback ran (as Node does), so a timer set inside that callback fires before it. `pending` counts live timers:
 * a test that tears a session down can assert `pending === 0` to prove every timer it started was cancelled.
 */
import type { Clock, TimerHandle } from './clock.ts';
import { nextTurn } from './next-turn.ts';

interface ScheduledTimer {
  readonly id: number;
  at: number;
  seq: number;
  readonly callback: () => void;
  readonly every: number | undefined;
}

export class TestClock implements Clock {
  private time: number;
  private nextSeq = 0;
  private readonly timers = new Map<number, ScheduledTimer>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    return this.schedule(callback, ms, undefined);
  }

  setInterval(callback: () => void, ms: number): TimerHandle {
    return this.schedule(callback, ms, Math.max(1, ms));
  }

  /** Timers scheduled and not yet fired (timeouts) or cancelled (intervals). */
  get pending(): number {
    return this.timers.size;
  }

  /** Repeating timers (intervals) scheduled and not cancelled: a session that polls would hold one. */
  get intervals(): number {
    let count = 0;
    for (const timer of this.timers.values()) if (timer.every !== undefined) count++;
    return count;
  }

  /** Timers due in exactly `ms` from now (a deadline of that length, armed now), for specs that find one timer. */
  dueIn(ms: number): number {
    let count = 0;
    for (const timer of this.timers.values()) if (timer.at === this.time + ms) count++;
    return count;
  }

  /** The instant the next timer is due, if any. */
  get nextDue(): number | undefined {
    return this.next(Infinity)?.at;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way, in order, synchronously. Time
   * is set to each timer's instant while it runs. Microtasks do not run in between: use {@link advanceAsync}
   * when deliveries must happen between timers.
   */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`advance needs a non-negative duration, got ${ms}`);
    const target = this.time + ms;
    for (let timer = this.next(target); timer !== undefined; timer = this.next(target)) this.fire(timer);
    this.time = target;
  }

  /**
   * Like {@link advance}, but lets pending deliveries (microtasks, immediates) settle before each timer
   * fires and at the end, as a real event loop would between timer callbacks.
   */
  async advanceAsync(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advanceAsync needs a non-negative duration, got ${ms}`);
    const target = this.time + ms;
    await yieldToEventLoop();
    for (let timer = this.next(target); timer !== undefined; timer = this.next(target)) {
      this.fire(timer);
      await yieldToEventLoop();
    }
    this.time = target;
    await yieldToEventLoop();
  }

  private schedule(callback: () => void, ms: number, every: number | undefined): TimerHandle {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    const timer: ScheduledTimer = { id: this.nextSeq, at: this.time + delay, seq: this.nextSeq++, callback, every };
    this.timers.set(timer.id, timer);
    return { cancel: () => void this.timers.delete(timer.id) };
  }

  /** The earliest timer due at or before `limit` (ties: the one scheduled first). */
  private next(limit: number): ScheduledTimer | undefined {
    let best: ScheduledTimer | undefined;
    for (const timer of this.timers.values()) {
      if (timer.at > limit) continue;
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq)) best = timer;
    }
    return best;
  }

  private fire(timer: ScheduledTimer): void {
    this.time = Math.max(this.time, timer.at);
    if (timer.every === undefined) this.timers.delete(timer.id);
    try {
      timer.callback();
    } finally {
      // An interval goes back in line after its callback, unless the callback cancelled it.
      if (timer.every !== undefined && this.timers.has(timer.id)) {
        timer.at = this.time + timer.every;
        timer.seq = this.nextSeq++;
      }
    }
  }
}

/** Lets queued microtasks and immediates run, a few rounds (deliveries hop through both); {@link nextTurn} picks the runtime's way. */
async function yieldToEventLoop(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => nextTurn(resolve));
}
