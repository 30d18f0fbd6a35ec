/**
 * Time, injected. Sessions and actors never call the global timer functions directly, so tests can drive
 * timeouts and keepalives with a simulated clock and never sleep.
 */
export interface TimerHandle {
  readonly cancel: () => void;
}

export interface Clock {
  now(): number;
  /** Runs `callback` once after `ms`. Timers do not keep the process alive. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Runs `callback` every `ms` until cancelled. Timers do not keep the process alive. */
  setInterval(callback: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
  setInterval(callback, ms) {
    const timer = setInterval(callback, ms);
    timer.unref();
    return { cancel: () => clearInterval(timer) };
  },
};
