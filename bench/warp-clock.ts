/**
 * A clock for the one-million-sessions benchmark (bench/scale-million.ts): the system clock, plus `advance(ms)`,
 * which moves `now()` forward and fires every timer that then falls due. It lets the benchmark expire a million
 * idle sessions at once (advance past the idle timeout) and time how long the runtime takes to close them and give
 * the memory back, instead of waiting out a real idle timeout per session while later sessions are still being
 * opened.
 *
 * Every timer is still a real system timer (so the heap per session counts what a deployment pays), and is also
 * kept in one set so that `advance` can find it; the set adds its entry to each pending timer (the figures note it).
 * Intervals (the session host's sweep) are plain system intervals: they read `now()`, so they see the jump.
 */
import { type Clock, type TimerHandle, systemClock } from '../core/clock.ts';

class WarpTimer implements TimerHandle {
  constructor(
    readonly due: number,
    private readonly callback: () => void,
    private readonly owner: WarpClock,
    public real: TimerHandle | undefined,
  ) {}

  cancel(): void {
    this.real?.cancel();
    this.owner.pending.delete(this);
  }

  fire(): void {
    this.real?.cancel();
    this.owner.pending.delete(this);
    this.callback();
  }
}

export class WarpClock implements Clock {
  /** The timers not yet fired or cancelled. */
  readonly pending = new Set<WarpTimer>();
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer = new WarpTimer(this.now() + ms, callback, this, undefined);
    timer.real = systemClock.setTimeout(() => timer.fire(), ms);
    this.pending.add(timer);
    return timer;
  }

  setInterval(callback: () => void, ms: number): TimerHandle {
    return systemClock.setInterval(callback, ms);
  }

  /**
   * Moves the clock `ms` forward and fires the timers now due, `chunk` at a time with the event loop turning in
   * between (a million callbacks in one turn would starve everything else). Resolves once all have been fired.
   */
  async advance(ms: number, chunk = 10_000): Promise<number> {
    this.offsetMs += ms;
    const now = this.now();
    let fired = 0;
    let batch: WarpTimer[] = [];
    const flush = async (): Promise<void> => {
      for (const timer of batch) timer.fire();
      fired += batch.length;
      batch = [];
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (const timer of [...this.pending]) {
      if (timer.due > now) continue;
      batch.push(timer);
      if (batch.length >= chunk) await flush();
    }
    await flush();
    return fired;
  }
}
