/**
 * How specs start a TypeScript program of their own as a child process (a fixture server, a scenario's peer):
 * bundled once by esbuild (specs/support/program-bundler.mjs) into .tmp/spec-programs/ and run by plain node.
 * Through `node --import tsx` every module of a child went through tsx's loader thread, some 5 ms of CPU each: a
 * fixture importing the server cost about 1.5 s of CPU per start, against about 0.3 s bundled, and the suite starts
 * such children hundreds of times. The spec files themselves still run through tsx (scripts/run-specs.ts).
 *
 * A bundle is used while every file that went into it has the size and mtime it had then; otherwise (or when it is
 * missing) it is built again before the child starts. Source maps are inline, so a child's stack traces still name
 * the .ts files.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = join(REPO, '.tmp', 'spec-programs');
const BUNDLER = fileURLToPath(new URL('./program-bundler.mjs', import.meta.url));

interface InputsRecord {
  readonly entry: string;
  readonly inputs: readonly (readonly [string, number, number])[];
}

/** Built in this process already: checked once. */
const ready = new Map<string, string>();

function isFresh(inputsFile: string, entry: string): boolean {
  let record: InputsRecord;
  try {
    record = JSON.parse(readFileSync(inputsFile, 'utf8')) as InputsRecord;
  } catch {
    return false;
  }
  if (record.entry !== entry) return false;
  for (const [path, size, mtimeMs] of record.inputs) {
    try {
      const stat = statSync(path);
      if (stat.size !== size || stat.mtimeMs !== mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The bundle of `entry` (an absolute .ts path), built first when missing or stale. */
export function programBundle(entry: string): string {
  const known = ready.get(entry);
  if (known !== undefined) return known;
  const key = createHash('sha256').update(relative(REPO, entry)).digest('hex').slice(0, 12);
  const out = join(OUT_DIR, `${basename(entry).replace(/\.[cm]?ts$/, '')}-${key}.mjs`);
  const inputsFile = `${out}.inputs.json`;
  if (!isFresh(inputsFile, entry)) {
    mkdirSync(OUT_DIR, { recursive: true });
    const built = spawnSync(process.execPath, [BUNDLER, entry, out, inputsFile], { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
    if (built.status !== 0) throw new Error(`bundling ${relative(REPO, entry)} failed (exit ${String(built.status)}): ${built.stderr}${built.error?.message ?? ''}`);
  }
  ready.set(entry, out);
  return out;
}

/** Node's arguments that run the TypeScript program `entry` (an absolute path); its own arguments follow them. */
export function programArgs(entry: string): string[] {
  return ['--enable-source-maps', programBundle(entry)];
}
