/**
 * Helpers shared by the scale benchmarks (bench/scale.ts and its child programs bench/scale-*.ts): the node
 * arguments of every scale child, a bounded-concurrency loop, memory and live-handle readings.
 */
import { join } from 'node:path';
import { type ChildRun, repoRoot, runChild } from './lib.ts';

/** Every scale child runs with gc exposed, room for an 8 GiB old space, and the sources under tsx. */
export const scaleNodeArgs: readonly string[] = ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx'];

/** Runs `bench/<script>` in a fresh child process with {@link scaleNodeArgs}. */
export function runScaleChild(script: string, args: readonly string[]): Promise<ChildRun> {
  return runChild(scaleNodeArgs, join(repoRoot, 'bench', script), args);
}

/** Runs `task(i)` for i in [0, count), at most `concurrency` at a time; rejects on the first failure. */
export function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (count <= 0) {
      resolve();
      return;
    }
    let started = 0;
    let done = 0;
    let failed = false;
    const launch = (): void => {
      const index = started++;
      task(index).then(() => {
        done++;
        if (failed) return;
        if (started < count) launch();
        else if (done === count) resolve();
      }, (error: unknown) => {
        failed = true;
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    };
    for (let i = 0; i < Math.min(concurrency, count); i++) launch();
  });
}

/** Lets pending microtasks, immediates and short timers run. */
export async function settleLong(ms = 50): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, ms));
}

export function gcTwice(): void {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
}

export interface MemoryReading {
  readonly heapUsed: number;
  readonly rss: number;
}

/** Settles, runs gc twice, and reads heapUsed and RSS. */
export async function readMemory(): Promise<MemoryReading> {
  await settleLong();
  gcTwice();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

/** The process's live resources (timers, handles, requests), counted by type. */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

export const totalResources = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0);

/** Wall-clock and CPU time of `body`. */
export async function clocked<T>(body: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const value = await body();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuBefore);
  return { value, wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}
