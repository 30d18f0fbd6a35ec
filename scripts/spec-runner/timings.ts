/**
 * The slowest spec files and tests of a run, for the end of the CI log: a file's time is its whole process
 * (start-up, imports, every test and hook) when it has one of its own, its suite's in a batch; a test's is node:test's own duration of it (suites left out, their
 * time is their tests'), shown with the file it is written in (a helper module for the tests a spec file makes
 * through a shared function, e.g. specs/fuzz/reliability.ts).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

export interface Timed {
  readonly file: string;
  /** The test's name (the file's path for a file). */
  readonly name: string;
  readonly ms: number;
}

export class Timings {
  readonly #files: Timed[] = [];
  readonly #tests: Timed[] = [];

  constructor(private readonly root: string) {}

  file(file: string, ms: number): void {
    this.#files.push({ file: relative(this.root, file), name: relative(this.root, file), ms });
  }

  test(file: string | undefined, name: string, ms: number): void {
    this.#tests.push({ file: file === undefined ? '?' : relative(this.root, file), name, ms });
  }

  slowestFiles(count: number): readonly Timed[] {
    return [...this.#files].sort((a, b) => b.ms - a.ms).slice(0, count);
  }

  slowestTests(count: number): readonly Timed[] {
    return [...this.#tests].sort((a, b) => b.ms - a.ms).slice(0, count);
  }

  /** The files' times added up: what the run would take with one file at a time. */
  get filesTotalMs(): number {
    return this.#files.reduce((sum, timed) => sum + timed.ms, 0);
  }
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Lines for the log: the `count` slowest files, then the `count` slowest tests with their files. */
export function slowestReport(timings: Timings, count: number): string[] {
  const files = timings.slowestFiles(count);
  const tests = timings.slowestTests(count);
  const width = Math.max(0, ...[...files, ...tests].map((timed) => seconds(timed.ms).length));
  const cell = (ms: number): string => seconds(ms).padStart(width);
  return [
    `slowest ${files.length} spec files (start-up included for a file in a process of its own):`,
    ...files.map((timed) => `  ${cell(timed.ms)}  ${timed.file}`),
    `slowest ${tests.length} tests (and the file each is written in):`,
    ...tests.map((timed) => `  ${cell(timed.ms)}  ${timed.name.replace(/\s+/g, ' ').slice(0, 150)}  (${timed.file})`),
  ];
}

/**
 * How many spec processes ran at once, over a group's run: the time spent with 1, 2, ... running. A group whose
 * last stretch runs one alone shows here (its file is worth a `@slow` tag, or splitting).
 */
export class Occupancy {
  readonly #starts = new Map<string, number>();
  readonly #edges: { readonly at: number; readonly step: 1 | -1 }[] = [];

  started(file: string, at: number): void {
    this.#starts.set(file, at);
  }

  ended(file: string, at: number): void {
    const start = this.#starts.get(file);
    if (start === undefined) return;
    this.#starts.delete(file);
    this.#edges.push({ at: start, step: 1 }, { at, step: -1 });
  }

  /** Milliseconds spent with each number of files running (at least one), most files first. */
  profile(): readonly { readonly running: number; readonly ms: number }[] {
    const edges = [...this.#edges].sort((a, b) => a.at - b.at || a.step - b.step);
    const spent = new Map<number, number>();
    let running = 0;
    let since = 0;
    for (const edge of edges) {
      if (running > 0) spent.set(running, (spent.get(running) ?? 0) + edge.at - since);
      running += edge.step;
      since = edge.at;
    }
    return [...spent].map(([count, ms]) => ({ running: count, ms })).sort((a, b) => b.running - a.running);
  }
}

export function occupancyLine(occupancy: Occupancy): string {
  const parts = occupancy.profile().map(({ running, ms }) => `${running} for ${seconds(ms)}`);
  return `spec processes running at once: ${parts.length === 0 ? 'none' : parts.join(', ')}`;
}

/**
 * The CPU time (user + system, ms) of this process's children that have ended, spec files and everything they
 * started included, from /proc (Linux; undefined elsewhere). Its rise over a group, against the group's wall time,
 * tells whether the group waited on the cores.
 */
export function endedChildrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // the fields after the command name, which is in parentheses and may hold spaces: (16) cutime (17) cstime
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
