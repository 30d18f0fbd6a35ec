/**
 * Loads by concurrency level for the side-by-side transport benchmarks (bench/stdio-calls.ts, bench/http-calls.ts,
 * bench/modern-calls.ts): the levels argument, running a load at a level (a number of calls, or for about a time),
 * and the per-contender series a chart of throughput against concurrency is drawn from.
 */
import { type Figures, type Op, sequential, windowed } from './harness.ts';
import { argInt, argValue } from './lib.ts';

/** Medians of one level (calls in flight), per contender. */
export interface LevelLoad<N extends string> {
  /** Calls in flight: 1 = sequential (await each call), n = a window of n, refilled as each completes. */
  readonly width: number;
  readonly figures: Record<N, Figures>;
  /** The server child's CPU per call (from /proc), median over rounds. */
  readonly serverCpuUsPerCall: Record<N, number>;
}

/**
 * One contender's figures across the levels, index for index with the result's `levels`: what a chart of
 * throughput (or CPU) against concurrency plots.
 */
export interface LevelSeries {
  readonly label: string;
  /** Median calls/s (wall clock) per level. */
  readonly callsPerSecond: readonly number[];
  /** Median CPU µs per call in the benchmark process (the client), per level. */
  readonly clientCpuUsPerCall: readonly number[];
  /** Median CPU µs per call in the server child, per level. */
  readonly serverCpuUsPerCall: readonly number[];
  /** calls/s over the floor's at the same level, per level (1 = the floor). */
  readonly ofFloor: readonly number[];
  /** calls/s over rxmcp's at the same level, per level (1 = rxmcp; for HTTP, rxmcp in responseMode 'json'). */
  readonly ofRxmcp: readonly number[];
}

export const levelTitle = (width: number): string => (width <= 1 ? 'sequential' : `${width} in flight`);

/** `--levels=1,8,64` (calls in flight per load), or 1, 8 and `--window` when not given; sorted, deduplicated. */
export function argLevels(windowFallback = argInt('window', 64)): number[] {
  const raw = argValue('levels');
  const levels = raw === undefined ? [1, 8, windowFallback] : raw.split(',').map((l) => Number.parseInt(l.trim(), 10));
  if (levels.some((l) => !Number.isInteger(l) || l < 1)) throw new RangeError(`--levels takes positive integers, got ${String(raw)}`);
  return [...new Set(levels)].sort((a, b) => a - b);
}

/** `count` calls at `width` in flight (1: sequential). */
export const atLevel = (op: Op, count: number, width: number): Promise<void> => (width <= 1 ? sequential(op, count) : windowed(op, count, width));

/** Runs `width` in flight for about `ms`, in growing batches; returns the calls/s (of the batches after the first, if any). */
export async function runFor(op: Op, width: number, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let batch = Math.max(4, width * 2);
  const took: { calls: number; ms: number }[] = [];
  while (performance.now() < end) {
    const start = performance.now();
    await atLevel(op, batch, width);
    const elapsed = performance.now() - start;
    took.push({ calls: batch, ms: elapsed });
    if (elapsed < 100) batch *= 2;
  }
  const counted = took.length > 1 ? took.slice(1) : took;
  return (counted.reduce((sum, t) => sum + t.calls, 0) * 1000) / counted.reduce((sum, t) => sum + t.ms, 0);
}

/** Per-contender series over the loads, in the order of `levels`. */
export function seriesOf<N extends string>(names: readonly N[], loads: readonly LevelLoad<N>[], floor: N, rxmcp: N): Record<N, LevelSeries> {
  const out = {} as Record<N, LevelSeries>;
  for (const name of names) {
    out[name] = {
      label: loads[0]?.figures[name].label ?? name,
      callsPerSecond: loads.map((l) => l.figures[name].medianOpsPerSec),
      clientCpuUsPerCall: loads.map((l) => l.figures[name].medianCpuUsPerOp),
      serverCpuUsPerCall: loads.map((l) => l.serverCpuUsPerCall[name]),
      ofFloor: loads.map((l) => l.figures[name].medianOpsPerSec / l.figures[floor].medianOpsPerSec),
      ofRxmcp: loads.map((l) => l.figures[name].medianOpsPerSec / l.figures[rxmcp].medianOpsPerSec),
    };
  }
  return out;
}
