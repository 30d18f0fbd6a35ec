/**
 * Time, injected. Sessions and actors never call the global timer functions directly, so tests can drive
 * timeouts and keepalives with a simulated clock and never sleep.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Runs `callback` once after `ms`. Timers do not keep the process alive. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Runs `callback` every `ms` until cancelled. Timers do not keep the process alive. */
  setInterval(callback: () => void, ms: number): TimerHandle;
}

/** A system timer; `cancel` is a prototype method so a timer costs no closure (one is armed per request). */
class SystemTimer implements TimerHandle {
  constructor(private readonly timer: ReturnType<typeof setTimeout>) {
    // Node and Bun return a timer object that can stop holding the process open; browsers and Deno return a
    // number, and a page or worker has no process to hold open.
    const handle = timer as { unref?: unknown };
    if (typeof handle === 'object' && handle !== null && typeof handle.unref === 'function') (handle as { unref(): void }).unref();
  }

  cancel(): void {
    clearTimeout(this.timer);
  }
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => new SystemTimer(setTimeout(callback, ms)),
  setInterval: (callback, ms) => new SystemTimer(setInterval(callback, ms)),
};
