/**
 * Small helpers shared by the foundation benchmarks: statistics, argument parsing, and the line protocol a
 * child benchmark process uses to hand its figures to the runner.
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (the parent of bench/). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Prefix of the one stdout line a benchmark prints for machines: the prefix, a space, then JSON. */
export const RESULT_MARKER = 'BENCH_RESULT_JSON';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** `--name=value` from argv, or undefined. */
export function argValue(name: string): string | undefined {
  const prefix = `--${name}=`;
  const found = process.argv.find((arg) => arg.startsWith(prefix));
  return found === undefined ? undefined : found.slice(prefix.length);
}

export function argInt(name: string, fallback: number): number {
  const raw = argValue(name);
  if (raw === undefined) return fallback;
  const value = Number.parseInt(raw, 10);
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`--${name} must be a positive integer, got ${raw}`);
  return value;
}

export function hasFlag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

/** True when the module at `url` is the process's entry script. */
export function isMain(url: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(url);
}

export function emitResult(value: unknown): void {
  process.stdout.write(`${RESULT_MARKER} ${JSON.stringify(value)}\n`);
}

export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return String(value);
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * How a child process runs the TypeScript sources. `tsx` is how the project runs (esbuild with `keepNames`,
 * which renames every named closure with Object.defineProperty); `strip` strips types and nothing else
 * (bench/strip-types.mjs), as compiled JS or Node's own type stripping would run the code.
 */
export type Loader = 'tsx' | 'strip';

export function loaderArgs(loader: Loader): string[] {
  return loader === 'tsx' ? ['--import', 'tsx'] : ['--import', './bench/strip-types.mjs'];
}

export function argLoader(): Loader {
  const raw = argValue('loader') ?? 'tsx';
  if (raw !== 'tsx' && raw !== 'strip') throw new RangeError(`--loader must be tsx or strip, got ${raw}`);
  return raw;
}

export interface ChildRun {
  /** The exact command line, for the record. */
  readonly command: string;
  /** The parsed JSON of the child's result line. */
  readonly result: unknown;
}

/**
 * Runs `node <nodeArgs> <script> <args>` in the repo root, passes its output through to ours as it comes,
 * and returns the JSON it reported on its result line.
 */
export function runChild(nodeArgs: readonly string[], script: string, args: readonly string[]): Promise<ChildRun> {
  const argv = [...nodeArgs, script, ...args];
  const command = ['node', ...argv].join(' ');
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, argv, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    let result: unknown;
    let found = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.startsWith(`${RESULT_MARKER} `)) {
          result = JSON.parse(line.slice(RESULT_MARKER.length + 1)) as unknown;
          found = true;
        } else {
          process.stdout.write(`${line}\n`);
        }
        newline = buffered.indexOf('\n');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${command} exited with code ${String(code)}`));
      else if (!found) reject(new Error(`${command} printed no ${RESULT_MARKER} line`));
      else resolvePromise({ command, result });
    });
  });
}
