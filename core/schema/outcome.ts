/**
 * The one shape every validation reports in, whether ajv or a Standard Schema library did the work:
 * issues with a JSON-pointer-like path to the offending field, and a one-line summary naming them
 * (`Invalid arguments: /city must be string; /days must be >= 1`) fit for a tool error result.
 */

export interface ValidationIssue {
  /** A JSON pointer to the offending value: `''` for the root, `/city`, `/items/0`. */
  readonly path: string;
  readonly message: string;
}

export type ValidationOutcome =
  /** `value` is what the validator produced: the input itself for JSON Schema, the parsed output of a Standard Schema. */
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[]; readonly summary: string };

/** How many issues the summary lists before it says how many more there are. */
const SUMMARY_ISSUES = 10;

/** Escapes one path segment as RFC 6901 does (`~` then `/`). */
export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Builds a pointer from path segments: `['items', 0]` -> `/items/0`. */
export function toPointer(segments: readonly PropertyKey[]): string {
  let pointer = '';
  for (const segment of segments) {
    pointer += `/${escapeSegment(typeof segment === 'symbol' ? (segment.description ?? 'symbol') : String(segment))}`;
  }
  return pointer;
}

/** `'/city must be string'`; a message that reads as its own sentence gets a colon: `'/city: Expected string'`. */
function describe(issue: ValidationIssue): string {
  const where = issue.path === '' ? '(root)' : issue.path;
  return /^[a-z]/.test(issue.message) ? `${where} ${issue.message}` : `${where}: ${issue.message}`;
}

/** A failed outcome; `subject` names what was validated (`arguments`, `structured content`). */
export function failure(issues: readonly ValidationIssue[], subject: string): ValidationOutcome {
  const unique: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(issue);
  }
  if (unique.length === 0) unique.push({ path: '', message: 'is invalid' });
  const listed = unique.slice(0, SUMMARY_ISSUES).map(describe);
  if (unique.length > SUMMARY_ISSUES) listed.push(`and ${unique.length - SUMMARY_ISSUES} more`);
  return { ok: false, issues: unique, summary: `Invalid ${subject}: ${listed.join('; ')}` };
}
