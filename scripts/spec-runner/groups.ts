/**
 * How the spec runner schedules a spec file, from tags in its comments. A spec file is concurrent by default: it runs
 * beside other spec files, each in its own process. Two tags, each on a comment line of its own, with its reason:
 *
 *   // @serial: kills nodes of a 3-node nats cluster and bounds the failover in wall-clock time
 *   // @slow: runs the whole feature suite again over NATS in a child runner (a minute or more)
 *
 * (or ` * @serial: ...` inside the file's header comment).
 * - `@serial`: the file cannot share the machine; it runs after the concurrent files, one at a time, with nothing
 *   else running.
 * - `@slow`: the file takes much longer than most; it starts before the other concurrent files, so that it does
 *   not end the run alone at its tail.
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
}

/** A line that is only a comment holding a tag: `// @tag: why`, ` * @tag: why` or `/* @tag: why *\/`. */
const tagLine = (tag: string): RegExp => new RegExp(`^[ \\t]*(?://|/?\\*+)[ \\t]*@${tag}\\b(.*)$`, 'm');
const TAGS = { serial: tagLine('serial'), slow: tagLine('slow') } as const;

function reasonOf(path: string, tag: keyof typeof TAGS, text: string): string | undefined {
  const match = TAGS[tag].exec(text);
  if (match === null) return undefined;
  const reason = (match[1] ?? '').replace(/^[ \t]*:?[ \t]*/, '').replace(/[ \t]*(\*\/)?[ \t]*$/, '');
  if (reason === '') throw new Error(`${path}: "@${tag}" needs its reason: // @${tag}: <why>`);
  return reason;
}

/** Reads a spec file's tags from its text. Throws when a tag has no reason. */
export function specFile(path: string, text: string): SpecFile {
  return { path, serial: reasonOf(path, 'serial', text), slow: reasonOf(path, 'slow', text) };
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
