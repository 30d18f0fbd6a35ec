/**
 * How the spec runner schedules a spec file, from tags in its comments. A spec file is concurrent by default: it runs
 * beside other spec files, in a process it shares with a few others, one after the other (scripts/spec-runner/
 * batches.ts: each file a suite of its own, its hooks its own; the modules they import loaded once). Three tags,
 * each on a comment line of its own, with its reason:
 *
 *   // @serial: kills nodes of a 3-node nats cluster and bounds the failover in wall-clock time
 *   // @slow: runs the whole feature suite again over NATS in a child runner (a minute or more)
 *   // @own-process: registers the OpenTelemetry SDK globally, once per process
 *
 * (or ` * @serial: ...` inside the file's header comment).
 * - `@serial`: the file cannot share the machine; it runs after the concurrent files, one at a time, with nothing
 *   else running.
 * - `@slow`: the file takes much longer than most; it starts before the other concurrent files, so that it does
 *   not end the run alone at its tail (in a process of its own).
 * - `@own-process`: the file changes or measures what a process has one of (global providers, the heap, its CPU
 *   time), so it shares its process with no other file.
 * A `@serial` file always has a process of its own.
 * The reason is required: it is what a reader of the file or of the CI log needs in order to judge whether the tag
 * still holds.
 */

export interface SpecFile {
  /** The path as given (relative to the repository root when found by the runner). */
  readonly path: string;
  /** Why the file runs alone; undefined when it runs concurrently. */
  readonly serial: string | undefined;
  /** Why the file starts first; undefined when it takes its place in the order given. */
  readonly slow: string | undefined;
  /** Why the file shares its process with no other; undefined when it may. */
  readonly ownProcess: string | undefined;
}

/** A line that is only a comment holding a tag: `// @tag: why`, ` * @tag: why` or `/* @tag: why *\/`. */
const tagLine = (tag: string): RegExp => new RegExp(`^[ \\t]*(?://|/?\\*+)[ \\t]*@${tag}\\b(.*)$`, 'm');
const TAGS = { serial: tagLine('serial'), slow: tagLine('slow'), ownProcess: tagLine('own-process') } as const;

function reasonOf(path: string, tag: keyof typeof TAGS, text: string): string | undefined {
  const match = TAGS[tag].exec(text);
  if (match === null) return undefined;
  const reason = (match[1] ?? '').replace(/^[ \t]*:?[ \t]*/, '').replace(/[ \t]*(\*\/)?[ \t]*$/, '');
  const name = tag === 'ownProcess' ? 'own-process' : tag;
  if (reason === '') throw new Error(`${path}: "@${name}" needs its reason: // @${name}: <why>`);
  return reason;
}

/** Reads a spec file's tags from its text. Throws when a tag has no reason. */
export function specFile(path: string, text: string): SpecFile {
  return { path, serial: reasonOf(path, 'serial', text), slow: reasonOf(path, 'slow', text), ownProcess: reasonOf(path, 'ownProcess', text) };
}

export interface SpecGroups {
  /** The `@slow` files first, then the others; each part in the order given. */
  readonly concurrent: readonly SpecFile[];
  readonly serial: readonly SpecFile[];
}

export function groupSpecs(files: readonly SpecFile[]): SpecGroups {
  const concurrent = files.filter((file) => file.serial === undefined);
  return {
    concurrent: [...concurrent.filter((file) => file.slow !== undefined), ...concurrent.filter((file) => file.slow === undefined)],
    serial: files.filter((file) => file.serial !== undefined),
  };
}
