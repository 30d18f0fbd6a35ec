/**
 * The slowest spec files and tests of a run, for the end of the CI log: a file's time is its whole process
 * (start-up, imports, every test and hook); a test's is node:test's own duration of it (suites left out, their
 * time is their tests'), shown with the file it is written in (a helper module for the tests a spec file makes
 * through a shared function, e.g. specs/fuzz/reliability.ts).
 */
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
    `slowest ${files.length} spec files (each its own process, start-up included):`,
    ...files.map((timed) => `  ${cell(timed.ms)}  ${timed.file}`),
    `slowest ${tests.length} tests (and the file each is written in):`,
    ...tests.map((timed) => `  ${cell(timed.ms)}  ${timed.name.replace(/\s+/g, ' ').slice(0, 150)}  (${timed.file})`),
  ];
}
