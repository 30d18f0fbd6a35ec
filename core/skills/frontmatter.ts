/**
 * SKILL.md frontmatter: the YAML block between the leading `---` lines, rendered as a JSON object. Parsed with the
 * `yaml` package under its JSON-compatible core schema (no dates, no custom tags), so what a server lists and what
 * a client compares are plain JSON values.
 */
import { parse } from 'yaml';
import type { JsonObject } from '../jsonrpc.ts';
import { isJsonObject } from '../protocol/guards.ts';

// A byte-order mark may precede it; the closing line may carry trailing blanks.
const BLOCK = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The frontmatter of a SKILL.md as a JSON object, or a reason why there is none. */
export function readFrontmatter(markdown: string): { readonly ok: true; readonly frontmatter: JsonObject } | { readonly ok: false; readonly reason: string } {
  const block = BLOCK.exec(markdown);
  if (block === null) return { ok: false, reason: 'SKILL.md does not begin with a --- delimited YAML frontmatter block' };
  let value: unknown;
  try {
    value = parse(block[1] as string, { schema: 'core', maxAliasCount: 0, uniqueKeys: true });
  } catch (error) {
    return { ok: false, reason: `its frontmatter is not valid YAML: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!isJsonObject(value)) return { ok: false, reason: 'its frontmatter is not a mapping' };
  for (const field of ['name', 'description'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '') return { ok: false, reason: `its frontmatter has no ${field}` };
  }
  return { ok: true, frontmatter: value };
}

/** Whether two JSON values are equal in content (object key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
  }
  return false;
}

/** The first field in which two frontmatters differ, or `undefined` when they are the same. */
export function frontmatterDifference(file: JsonObject, entry: JsonObject): string | undefined {
  for (const field of new Set([...Object.keys(file), ...Object.keys(entry)])) {
    if (!sameJson(file[field], entry[field])) return field;
  }
  return undefined;
}
