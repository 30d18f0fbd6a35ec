/**
 * The measuring loop shared by the ping (bench/ping-roundtrip.ts) and features benchmarks:
 * contenders interleaved in rounds, the order rotating each round, CPU from process.cpuUsage (user+system,
 * all threads) divided by the operations, medians over rounds, no forced gc between runs. Also a
 * benchmark.js suite runner for deferred operations.
 */
import Benchmark from 'benchmark';
import { fmt, median } from './lib.ts';

/** One thing to measure: an asynchronous operation, run again and again. */
export interface Op<N extends string = string> {
  readonly name: N;
  readonly label: string;
  run(): Promise<unknown>;
}

export interface Sample {
  readonly opsPerSec: number;
  readonly cpuUsPerOp: number;
}

export interface Figures {
  readonly label: string;
  readonly samples: readonly Sample[];
  readonly medianOpsPerSec: number;
  readonly medianCpuUsPerOp: number;
}

/** `count` operations one after another: await one, start the next. */
export async function sequential(op: Op, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await op.run();
}

/** `count` operations with `width` in flight: a window, refilled as each completes. */
export function windowed(op: Op, count: number, width: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let started = 0;
    let done = 0;
    const onDone = (): void => {
      done++;
      if (started < count) launch();
      else if (done === count) resolve();
    };
    const launch = (): void => {
      started++;
      op.run().then(onDone, reject);
    };
    for (let i = 0; i < Math.min(width, count); i++) launch();
  });
}

/** Runs `body` (which performs `count` operations) and returns throughput and CPU per operation. */
export async function timed(count: number, body: () => Promise<void>): Promise<Sample> {
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  await body();
  const elapsedNs = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpuBefore);
  return { opsPerSec: count / (elapsedNs / 1e9), cpuUsPerOp: (cpu.user + cpu.system) / count };
}

export function figuresOf(label: string, samples: readonly Sample[]): Figures {
  return {
    label,
    samples,
    medianOpsPerSec: median(samples.map((s) => s.opsPerSec)),
    medianCpuUsPerOp: median(samples.map((s) => s.cpuUsPerOp)),
  };
}

/**
 * `rounds` rounds; in each, every contender runs once (`measureOne`), in an order rotated by one each round
 * so that none always runs first or last. Returns the figures per contender name.
 */
export async function interleave<C extends { readonly name: string; readonly label: string }>(
  contenders: readonly C[],
  rounds: number,
  measureOne: (contender: C) => Promise<Sample>,
  unit = 'op',
): Promise<Record<string, Figures>> {
  const samples = new Map<string, Sample[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    const line: string[] = [];
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(i + round) % contenders.length] as C;
      const sample = await measureOne(contender);
      samples.get(contender.name)?.push(sample);
      line.push(`${contender.name} ${fmt(sample.opsPerSec, 0)}/s ${fmt(sample.cpuUsPerOp)}us`);
    }
    console.log(`  round ${round + 1}: ${line.join(' | ')}`);
  }
  const out: Record<string, Figures> = {};
  for (const c of contenders) out[c.name] = figuresOf(c.label, samples.get(c.name) ?? []);
  for (const f of Object.values(out)) {
    console.log(`  median ${f.label.padEnd(34)} ${fmt(f.medianOpsPerSec, 0).padStart(10)} ${unit}s/s  ${fmt(f.medianCpuUsPerOp).padStart(8)} CPU us/${unit}`);
  }
  return out;
}

export interface SuiteFigure {
  readonly label: string;
  /** Cycles (of `opsPerCycle` operations) per second. */
  readonly hz: number;
  /** Relative margin of error, percent. */
  readonly rme: number;
  readonly samples: number;
  readonly opsPerSec: number;
}

/** A benchmark.js suite of deferred benchmarks, each cycle running `opsPerCycle` sequential operations. */
export async function runSuite(ops: readonly Op[], opsPerCycle: number, maxTime = 4): Promise<Record<string, SuiteFigure>> {
  const figures: Record<string, SuiteFigure> = {};
  const suite = new Benchmark.Suite(`x${opsPerCycle}`);
  for (const op of ops) {
    suite.add(op.label, {
      defer: true,
      maxTime,
      fn: (deferred: Benchmark.Deferred) => {
        sequential(op, opsPerCycle).then(
          () => deferred.resolve(),
          (error: unknown) => {
            console.error(error);
            deferred.resolve();
          },
        );
      },
      onComplete: (event: Benchmark.Event) => {
        const target = event.target;
        const hz = target.hz ?? Number.NaN;
        figures[op.name] = { label: op.label, hz, rme: target.stats?.rme ?? Number.NaN, samples: target.stats?.sample.length ?? 0, opsPerSec: hz * opsPerCycle };
      },
    });
  }
  suite.on('cycle', (event: Benchmark.Event) => console.log(`  ${String(event.target)}  (${opsPerCycle} sequential calls per op)`));
  await new Promise<void>((resolve) => {
    suite.on('complete', () => resolve());
    suite.run({ async: true });
  });
  return figures;
}
