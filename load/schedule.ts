/**
 * When each call is meant to be sent. The level (an open-loop rate, or a closed-loop concurrency) over the run is
 * piecewise linear: the warm-up at the first step's level, then each step's, all multiplied by the ramp (from 0
 * to 1 over the first `rampMs`). In an open loop the k-th call is due when the number of calls the rate allows so
 * far reaches k: computed exactly from the start, segment by segment, so a late tick never shifts the calls after
 * it (the schedule does not drift, and a call sent late keeps the time it was due: its latency counts from then).
 */

interface Segment {
  readonly start: number;
  readonly end: number;
  /** Level per millisecond at the start and the end (calls/ms in an open loop). */
  readonly from: number;
  readonly to: number;
  /** Calls due before the segment's start. */
  readonly before: number;
}

export interface SchedulePlan {
  readonly warmupMs: number;
  readonly rampMs: number;
  /** Levels per second (open loop: calls/s; closed loop: calls in flight) and how long each lasts. */
  readonly steps: readonly { readonly level: number; readonly durationMs: number }[];
}

export class Schedule {
  private readonly segments: Segment[] = [];
  private cursor = 0;
  /** When the schedule ends (warm-up included). */
  readonly endMs: number;
  /** When each step begins: the warm-up ends at the first. */
  readonly stepStarts: readonly number[];

  constructor(private readonly plan: SchedulePlan) {
    const starts: number[] = [];
    let at = plan.warmupMs;
    for (const step of plan.steps) {
      starts.push(at);
      at += step.durationMs;
    }
    this.endMs = at;
    this.stepStarts = starts;
    const cuts = new Set<number>([0, this.endMs, ...starts]);
    if (plan.rampMs > 0 && plan.rampMs < this.endMs) cuts.add(plan.rampMs);
    const points = [...cuts].sort((a, b) => a - b);
    let before = 0;
    for (let index = 0; index + 1 < points.length; index++) {
      const start = points[index] ?? 0;
      const end = points[index + 1] ?? start;
      if (end <= start) continue;
      // Evaluated just inside the segment: a step's level holds from its start, up to (not at) its end.
      const from = this.levelPerMs(start, start, end);
      const to = this.levelPerMs(end, start, end);
      this.segments.push({ start, end, from, to, before });
      before += ((from + to) / 2) * (end - start);
    }
  }

  /** The level at `t` (per second: calls/s, or calls in flight). */
  levelAt(t: number): number {
    return this.baseLevel(t) * this.rampFactor(t);
  }

  /** Closed loop: how many calls should be in flight at `t` (at least one once the run is on). */
  concurrencyAt(t: number): number {
    return Math.max(1, Math.ceil(this.levelAt(t) - 1e-9));
  }

  /** Calls due in the whole run (open loop). */
  get totalCalls(): number {
    const last = this.segments[this.segments.length - 1];
    return last === undefined ? 0 : Math.ceil(last.before + ((last.from + last.to) / 2) * (last.end - last.start));
  }

  /** Calls due before `t` (open loop). */
  callsBefore(t: number): number {
    let calls = 0;
    for (const segment of this.segments) {
      if (t <= segment.start) break;
      const until = Math.min(t, segment.end);
      const slope = (segment.to - segment.from) / (segment.end - segment.start);
      const tau = until - segment.start;
      calls = segment.before + segment.from * tau + (slope * tau * tau) / 2;
    }
    return Math.ceil(calls - 1e-9);
  }

  /**
   * When the call numbered `k` (from 0) is due, or undefined once the schedule is over. Calls are asked for in
   * order, so the segment is found by walking forward from the last one.
   */
  timeOf(k: number): number | undefined {
    while (this.cursor < this.segments.length) {
      const segment = this.segments[this.cursor];
      if (segment === undefined) break;
      const width = segment.end - segment.start;
      const inside = ((segment.from + segment.to) / 2) * width;
      const wanted = k - segment.before;
      if (wanted < inside) {
        const slope = (segment.to - segment.from) / width;
        const tau = Math.abs(slope) < 1e-15 ? wanted / segment.from : (-segment.from + Math.sqrt(segment.from * segment.from + 2 * slope * wanted)) / slope;
        return segment.start + Math.max(0, tau);
      }
      this.cursor++;
    }
    return undefined;
  }

  private levelPerMs(t: number, start: number, end: number): number {
    // The base level of the step the segment belongs to (a segment never crosses a step boundary).
    const base = this.baseLevel((start + end) / 2);
    return (base * this.rampFactor(t)) / 1000;
  }

  private baseLevel(t: number): number {
    const steps = this.plan.steps;
    let index = 0;
    while (index + 1 < steps.length && t >= (this.stepStarts[index + 1] ?? Infinity)) index++;
    return steps[index]?.level ?? 0;
  }

  private rampFactor(t: number): number {
    return this.plan.rampMs > 0 ? Math.min(1, Math.max(0, t) / this.plan.rampMs) : 1;
  }
}
