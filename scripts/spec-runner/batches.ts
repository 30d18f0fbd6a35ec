/**
 * Spec files in shared processes. Most of what a spec file costs on its own is starting a process and loading the
 * library through tsx (about a second of CPU, where most files' tests take a fraction of that), so the concurrent
 * files run a few to a process: the process loads what they import once, and runs them one after the other.
 *
 * A batch is an entry module written for the run (under .tmp/spec-batches/<the runner's pid>/, removed at its end) that imports each of its files inside a
 * `describe` named by the file's path. node:test gives each file's tests and hooks (`before`, `after` at the top of
 * the file included) to that suite, so a file's hooks run around its own tests, as they would in a process of its
 * own, and its failures are reported under its path. The files of a batch are imported when the batch starts and
 * run in their order; a file tagged `@slow` or `@own-process` (scripts/spec-runner/groups.ts) gets a process of its
 * own, as does every `@serial` file (the runner never batches that group).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SpecFile } from './groups.ts';

/** What the runner starts one process for: a spec file, or a batch entry importing several. */
export interface SpecUnit {
  /** The module the process runs (absolute path). */
  readonly entry: string;
  /** The spec files it runs, in order. */
  readonly files: readonly SpecFile[];
}

/** Where a run writes its batch entries: a folder of its own (runs can nest: the runner's own spec starts one). */
export const batchDir = (root: string): string => join(root, '.tmp', 'spec-batches', String(process.pid));

/** A file that must not share its process. */
const alone = (file: SpecFile): boolean => file.slow !== undefined || file.ownProcess !== undefined || file.serial !== undefined;

/**
 * Groups `files` (in their order) into units of at most `size` files, those that must be alone in units of their
 * own, first in the order they came. The consecutive files of a batch are usually of one folder (the runner sorts
 * by path), so they import much the same modules.
 */
export function planUnits(files: readonly SpecFile[], size: number): { readonly alone: readonly SpecFile[]; readonly batches: readonly (readonly SpecFile[])[] } {
  const single = files.filter(alone);
  const shared = files.filter((file) => !alone(file));
  if (size <= 1) return { alone: [...single, ...shared], batches: [] };
  const batches: SpecFile[][] = [];
  for (let i = 0; i < shared.length; i += size) batches.push(shared.slice(i, i + size));
  return { alone: single, batches };
}

/** The text of a batch entry: each file imported inside a suite named by its path (relative to `root`). */
export function batchEntryText(files: readonly SpecFile[], root: string): string {
  const lines = [
    '// Written by scripts/spec-runner/batches.ts for one run of the specs: these spec files in one process, one after the other.',
    "import { describe } from 'node:test';",
    ...files.map((file) => `describe(${JSON.stringify(file.path)}, async () => { await import(${JSON.stringify(pathToFileURL(resolve(root, file.path)).href)}); });`),
    '',
  ];
  return lines.join('\n');
}

/** Writes the batch entries of `files` under `dir` and gives every unit to run, alone ones first. */
export function writeUnits(files: readonly SpecFile[], size: number, root: string, dir: string): SpecUnit[] {
  const { alone: single, batches } = planUnits(files, size);
  const units: SpecUnit[] = single.map((file) => ({ entry: resolve(root, file.path), files: [file] }));
  if (batches.length > 0) mkdirSync(dir, { recursive: true });
  for (const [i, batch] of batches.entries()) {
    // A batch of one is the file itself: nothing to share.
    if (batch.length === 1) {
      units.push({ entry: resolve(root, (batch[0] as SpecFile).path), files: batch });
      continue;
    }
    const entry = join(dir, `batch-${String(i + 1).padStart(3, '0')}.mjs`);
    writeFileSync(entry, batchEntryText(batch, root));
    units.push({ entry, files: batch });
  }
  return units;
}
