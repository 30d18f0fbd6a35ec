/**
 * The run's books: every call is counted when sent and when it ends, in the run's total (or the warm-up's),
 * its era's, the window of time it was due in (a step, a fault and what came after it), and the interval it
 * ended in (the time series). Latency is from the time a call was due (open loop; no coordinated omission: a
 * stalled server's backlog counts from when each call should have left) or sent (closed loop); service time is
 * from the time it left.
 */
import { type LatencyHistogram, newHistogram, recordMs } from './latency.ts';
import { type Outcome, Tally } from './tally.ts';

export type WindowKind = 'warm-up' | 'step' | 'fault' | 'after-fault';

export class TimeWindow {
  readonly tally = new Tally();
  to: number | undefined;

  constructor(
    readonly label: string,
    readonly kind: WindowKind,
    readonly from: number,
  ) {}
}

/** What one interval of the time series counted. */
export class IntervalCounts {
  sent = 0;
  ok = 0;
  errors = 0;
  wrong = 0;
  hung = 0;
  readonly latency: LatencyHistogram = newHistogram();

  reset(): void {
    this.sent = this.ok = this.errors = this.wrong = this.hung = 0;
    this.latency.reset();
  }
}

/** A call's scopes, fixed when it is sent. */
export interface CallScopes {
  readonly measured: boolean;
  readonly era: Tally;
  readonly window: TimeWindow;
}

export class Accounts {
  readonly total = new Tally();
  readonly warmup = new Tally();
  readonly serviceTime = newHistogram();
  readonly windows: TimeWindow[] = [];
  readonly interval = new IntervalCounts();
  private readonly eras = new Map<string, Tally>();
  /** Told of every ok answer (a fault waiting to see the server answer again). */
  okWatcher: (() => void) | undefined;

  constructor(private readonly warmupMs: number) {}

  eraTally(era: string): Tally {
    let tally = this.eras.get(era);
    if (tally === undefined) {
      tally = new Tally();
      this.eras.set(era, tally);
    }
    return tally;
  }

  get byEra(): ReadonlyMap<string, Tally> {
    return this.eras;
  }

  /** Starts a window at `at` (ending the one before). */
  openWindow(label: string, kind: WindowKind, at: number): TimeWindow {
    const current = this.windows[this.windows.length - 1];
    if (current !== undefined && current.to === undefined) {
      // A window that would hold no time at all gives its place to the new one.
      if (current.from >= at && current.tally.sent === 0) this.windows.pop();
      else current.to = at;
    }
    const window = new TimeWindow(label, kind, at);
    this.windows.push(window);
    return window;
  }

  closeWindows(at: number): void {
    const current = this.windows[this.windows.length - 1];
    if (current !== undefined && current.to === undefined) current.to = at;
  }

  /** The window holding time `at` (calls are due in order, so it is almost always the last). */
  windowAt(at: number): TimeWindow {
    for (let index = this.windows.length - 1; index > 0; index--) {
      const window = this.windows[index];
      if (window !== undefined && window.from <= at) return window;
    }
    const first = this.windows[0];
    if (first === undefined) throw new Error('no window is open');
    return first;
  }

  sent(dueAt: number, era: string): CallScopes {
    const measured = dueAt >= this.warmupMs;
    const scopes: CallScopes = { measured, era: this.eraTally(era), window: this.windowAt(dueAt) };
    (measured ? this.total : this.warmup).sent++;
    if (measured) scopes.era.sent++;
    scopes.window.tally.sent++;
    this.interval.sent++;
    return scopes;
  }

  settled(scopes: CallScopes, outcome: Outcome, latencyMs: number, serviceMs: number): void {
    if (scopes.measured) {
      this.total.settle(outcome, latencyMs);
      scopes.era.settle(outcome, latencyMs);
      if (outcome.kind !== 'hung') recordMs(this.serviceTime, serviceMs);
    } else {
      this.warmup.settle(outcome, latencyMs);
    }
    scopes.window.tally.settle(outcome, latencyMs);
    const interval = this.interval;
    switch (outcome.kind) {
      case 'ok':
        interval.ok++;
        this.okWatcher?.();
        break;
      case 'error':
        interval.errors++;
        break;
      case 'wrong':
        interval.wrong++;
        break;
      case 'hung':
        interval.hung++;
        return;
    }
    recordMs(interval.latency, latencyMs);
  }
}
