/**
 * Whether the tester, not the server, holds a run back. Per interval it reads this process's CPU
 * (`process.cpuUsage`, 1 = one core), the event loop's delay (`monitorEventLoopDelay`: how late timers and I/O
 * callbacks ran) and how late calls left against their schedule (the driver records it). A send held back by
 * the limit on calls in flight, or by no session being up, is the server's doing (or a fault's), not the
 * tester's: the driver tells those apart.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { type LatencyHistogram, newHistogram, recordMs } from './latency.ts';

/** This process past this share of a core over an interval is the bottleneck. */
export const CPU_BOUND = 0.9;
/** Past this share of a core, lateness is this process's own doing. */
const BUSY = 0.5;
/** Timers running this late (p99) mean the loop cannot keep up. */
export const LOOP_DELAY_BOUND_MS = 50;
/**
 * One call in ten leaving this late (p90), with nothing else holding them back, means the tester could not send
 * them in time (a few late ones are a timer's or a collector's hiccup, not a bottleneck).
 */
export const SLIP_BOUND_MS = 20;

export interface SelfSample {
  /** Share of one core over the interval. */
  readonly cpu: number;
  readonly loopDelayP99Ms: number;
  /** How late calls left, p99 (open loop), in ms. */
  readonly slipP99Ms: number | undefined;
  readonly bound: boolean;
  /** Why, when bound: `cpu`, `event loop`, `send schedule` (this process), or `machine busy` (other processes). */
  readonly reason: string | undefined;
}

export class SelfWatch {
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  private lastCpu = process.cpuUsage();
  private lastAt: number;
  /** Lateness of each send against its schedule in this interval. */
  readonly slip: LatencyHistogram = newHistogram();
  /** Lateness over the whole measured run. */
  readonly slipTotal: LatencyHistogram = newHistogram();
  /** Set by the driver when a due call waited for a free slot or a session (not the tester's doing). */
  heldBack = false;
  /** Over the whole run (measured part): CPU ms, wall ms, intervals, intervals bound. */
  cpuMs = 0;
  wallMs = 0;
  intervals = 0;
  boundIntervals = 0;
  loopDelayMaxP99Ms = 0;
  /** Why the tester was the bottleneck, over the intervals it was. */
  readonly reasons = new Set<string>();

  constructor(private readonly now: () => number) {
    this.lastAt = now();
    this.loop.enable();
  }

  recordSlip(ms: number, measured: boolean): void {
    recordMs(this.slip, ms);
    if (measured) recordMs(this.slipTotal, ms);
  }

  sample(openLoop: boolean, measured: boolean): SelfSample {
    const usage = process.cpuUsage(this.lastCpu);
    this.lastCpu = process.cpuUsage();
    const at = this.now();
    const wall = Math.max(1, at - this.lastAt);
    this.lastAt = at;
    const cpuMs = (usage.user + usage.system) / 1000;
    const cpu = cpuMs / wall;
    const loopDelayP99Ms = this.loop.count === 0 ? 0 : this.loop.percentile(99) / 1e6;
    this.loop.reset();
    const slipP99Ms = openLoop && this.slip.totalCount > 0 ? this.slip.getValueAtPercentile(99) / 1000 : undefined;
    const slipP90Ms = openLoop && this.slip.totalCount > 0 ? this.slip.getValueAtPercentile(90) / 1000 : undefined;
    this.slip.reset();
    const late = loopDelayP99Ms >= LOOP_DELAY_BOUND_MS || (slipP90Ms !== undefined && slipP90Ms >= SLIP_BOUND_MS && !this.heldBack);
    // Late while busy: this process's own work held it back. Late while nearly idle: the machine did (other
    // processes had the cores); the figures are as distorted, but the cure is a quieter machine, not more testers.
    const reason = cpu >= CPU_BOUND ? 'cpu' : !late ? undefined : cpu >= BUSY ? (loopDelayP99Ms >= LOOP_DELAY_BOUND_MS ? 'event loop' : 'send schedule') : 'machine busy';
    this.heldBack = false;
    if (measured) {
      this.cpuMs += cpuMs;
      this.wallMs += wall;
      this.intervals++;
      if (reason !== undefined) this.boundIntervals++;
      this.loopDelayMaxP99Ms = Math.max(this.loopDelayMaxP99Ms, loopDelayP99Ms);
    }
    return { cpu, loopDelayP99Ms, slipP99Ms, bound: reason !== undefined, reason };
  }

  stop(): void {
    this.loop.disable();
  }
}
