/**
 * The inverse of expansion: extracting variables from a concrete URI. See `index.ts` for what is supported.
 *
 * Compiled once per template into a list of steps: literals (exact text) and spans (one expression, or a run
 * of adjacent `{?…}{&…}` expressions merged into one query span). A span's language is deliberately simple:
 *
 * - operators without a leading character (`{var}`, `{+var}`): one or more characters of the span's class;
 * - every other operator: nothing (all its variables undefined), or one of its lead characters followed by
 *   any number of characters of its class.
 *
 * Which substring each span takes is decided without backtracking: one right-to-left pass per step computes
 * `rest[i][p]` ("steps i.. can match uri[p..]"), then one left-to-right pass gives each span the longest
 * substring after which the rest still matches (leftmost-greedy, like a backtracking regex would choose). Time
 * and memory are O(uri length × steps), plus literal comparisons; input is capped at
 * {@link MAX_MATCH_URI_LENGTH}. The chosen substring is then split into variables (by position or by name);
 * if that fails the match fails: no other split is tried.
 */
import { codePointLength, decodeText, firstCodePoints } from './encoding.ts';
import type { Expression, Operator, OperatorChar, TemplatePart, VarSpec } from './parse.ts';

/** Longest URI (UTF-16 code units) `match` examines; longer input does not match. */
export const MAX_MATCH_URI_LENGTH = 8192;

export type MatchResult = Record<string, string | string[]>;
export type Matcher = (uri: string) => MatchResult | undefined;

interface Occurrence {
  readonly spec: VarSpec;
  readonly value: string | string[];
}

/** Splits a span's text (lead character removed) into variables; false when it cannot. */
type Extract = (body: string, sink: Occurrence[]) => boolean;

interface LiteralStep {
  readonly kind: 'literal';
  readonly text: string;
}

interface SpanStep {
  readonly kind: 'span';
  /** Character codes that may start the span; empty for `{var}` and `{+var}` (whose span is then non-empty). */
  readonly leads: readonly number[];
  /** Per ASCII code, 1 when the character may follow the lead. Non-ASCII code units always may. */
  readonly chars: Uint8Array;
  readonly extract: Extract;
}

type Step = LiteralStep | SpanStep;

/** A literal, or one expression, or a query expression with the `{&…}` expressions right after it, matched as one. */
type Unit =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'group'; readonly expressions: readonly Expression[] };

/**
 * ASCII characters that never belong to an operator's span (beyond its lead). Values are matched leniently (a
 * raw ":" or space is accepted where expansion would have encoded it), but the URI delimiters that expansion
 * always encodes for the operator end the span: "/" for `{var}`, `{.var}`, `{;var}`; "?" and "#" for all of
 * those and `{/var}`; "#" for queries. `{+var}` and `{#var}` may hold anything.
 */
const EXCLUDED: Readonly<Record<OperatorChar, string>> = {
  '': '/?#',
  '+': '',
  '#': '',
  '.': '/?#',
  '/': '?#',
  ';': '/?#',
  '?': '#',
  '&': '#',
};

function charTable(excluded: string): Uint8Array {
  const table = new Uint8Array(128).fill(1);
  for (let code = 0; code < 0x20; code++) table[code] = 0;
  table[0x7f] = 0;
  for (let index = 0; index < excluded.length; index++) table[excluded.charCodeAt(index)] = 0;
  return table;
}

function inClass(chars: Uint8Array, code: number): boolean {
  return code >= 0x80 || chars[code] === 1;
}

function isQuery(expression: Expression): boolean {
  return expression.operator.char === '?' || expression.operator.char === '&';
}

function groupParts(parts: readonly TemplatePart[]): Unit[] {
  const units: Unit[] = [];
  for (const part of parts) {
    if (part.kind === 'literal') {
      units.push({ kind: 'literal', text: part.expanded });
      continue;
    }
    const previous = units.at(-1);
    const head = previous?.kind === 'group' ? previous.expressions[0] : undefined;
    if (previous?.kind === 'group' && head !== undefined && isQuery(head) && part.operator.char === '&') {
      units[units.length - 1] = { kind: 'group', expressions: [...previous.expressions, part] };
    } else {
      units.push({ kind: 'group', expressions: [part] });
    }
  }
  return units;
}

function leadsOf(expressions: readonly Expression[]): string {
  const head = expressions[0];
  if (head === undefined) return '';
  const first = head.operator.first;
  return expressions.length > 1 && first !== '&' ? `${first}&` : first;
}

/** `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`: variables in order, split on the operator's separator. */
function positionalExtract(op: Operator, variables: readonly VarSpec[]): Extract | undefined {
  if (variables.some((spec, index) => spec.explode && index < variables.length - 1)) return undefined;
  // Only "/" is always encoded inside a value; with the other separators the last variable takes the rest.
  const joinRest = op.char !== '/';
  return (body, sink) => {
    const pieces = body.split(op.separator);
    let next = 0;
    for (const [index, spec] of variables.entries()) {
      if (next >= pieces.length) break;
      if (spec.explode) {
        const items: string[] = [];
        for (const piece of pieces.slice(next)) {
          const item = decodeText(piece);
          if (item === undefined) return false;
          items.push(item);
        }
        sink.push({ spec, value: items });
        next = pieces.length;
        continue;
      }
      const last = index === variables.length - 1;
      const raw = last && joinRest ? pieces.slice(next).join(op.separator) : (pieces[next] ?? '');
      next = last && joinRest ? pieces.length : next + 1;
      const value = decodeText(raw);
      if (value === undefined) return false;
      sink.push({ spec, value });
    }
    return next >= pieces.length;
  };
}

/** `{;x,y}`, `{?x,y}{&z}`: `name[=value]` pieces in any order; exploded variables collect repeated names. */
function namedExtract(separator: string, variables: readonly VarSpec[]): Extract | undefined {
  const byName = new Map<string, VarSpec>();
  for (const spec of variables) {
    if (byName.has(spec.name)) return undefined;
    byName.set(spec.name, spec);
  }
  return (body, sink) => {
    const seen = new Set<string>();
    const lists = new Map<string, string[]>();
    for (const piece of body.split(separator)) {
      if (piece === '') continue;
      const equals = piece.indexOf('=');
      const name = equals < 0 ? piece : piece.slice(0, equals);
      const spec = byName.get(name);
      const value = decodeText(equals < 0 ? '' : piece.slice(equals + 1));
      if (spec === undefined || value === undefined) return false;
      if (spec.explode) {
        const list = lists.get(name);
        if (list === undefined) lists.set(name, [value]);
        else list.push(value);
      } else {
        if (seen.has(name)) return false;
        seen.add(name);
        sink.push({ spec, value });
      }
    }
    for (const [name, list] of lists) {
      const spec = byName.get(name);
      if (spec !== undefined) sink.push({ spec, value: list });
    }
    return true;
  };
}

function compileSteps(parts: readonly TemplatePart[]): Step[] | undefined {
  const units = groupParts(parts);
  const steps: Step[] = [];
  for (const [index, unit] of units.entries()) {
    if (unit.kind === 'literal') {
      steps.push(unit);
      continue;
    }
    const head = unit.expressions[0];
    if (head === undefined) return undefined;
    const op = head.operator;
    const variables = unit.expressions.flatMap((expression) => expression.variables);
    const extract = op.named ? namedExtract(op.separator, variables) : positionalExtract(op, variables);
    if (extract === undefined) return undefined;

    let excluded = EXCLUDED[op.char];
    const later = units.slice(index + 1);
    if (op.char === '+') {
      // A reserved expansion stops where a later query or fragment begins.
      const startsQuery = later.some((u) =>
        u.kind === 'literal' ? u.text.includes('?') : u.expressions.some(isQuery),
      );
      const startsFragment = later.some((u) =>
        u.kind === 'literal' ? u.text.includes('#') : u.expressions.some((e) => e.operator.char === '#'),
      );
      excluded += (startsQuery ? '?' : '') + (startsFragment ? '#' : '');
    }
    // Never swallow a character that starts one of the expressions written right after this one (any of them
    // may be absent): `{name}{.ext}`, `{host}{/path*}{?q}{&more}`.
    for (const following of later) {
      const leadChars = following.kind === 'group' ? leadsOf(following.expressions) : '';
      if (leadChars === '') break;
      excluded += leadChars;
    }

    const leads = leadsOf(unit.expressions);
    steps.push({
      kind: 'span',
      leads: [...leads].map((char) => char.charCodeAt(0)),
      chars: charTable(excluded),
      extract,
    });
  }
  return steps;
}

/** `rest[i][p] === 1` when steps i.. match uri[p..] exactly. */
function reachability(steps: readonly Step[], uri: string): Uint8Array[] {
  const n = uri.length;
  const rest: Uint8Array[] = new Array<Uint8Array>(steps.length + 1);
  let after = new Uint8Array(n + 1);
  after[n] = 1;
  rest[steps.length] = after;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    const here = new Uint8Array(n + 1);
    if (step === undefined) break;
    if (step.kind === 'literal') {
      const length = step.text.length;
      for (let p = 0; p + length <= n; p++) {
        if (after[p + length] === 1 && uri.startsWith(step.text, p)) here[p] = 1;
      }
    } else if (step.leads.length === 0) {
      // One or more class characters, then the rest.
      let run = 0;
      for (let p = n - 1; p >= 0; p--) {
        run = inClass(step.chars, uri.charCodeAt(p)) && (after[p + 1] === 1 || run === 1) ? 1 : 0;
        here[p] = run;
      }
    } else {
      // Empty, or a lead then zero or more class characters, then the rest. `body` is "class* then the rest" at p + 1.
      let body = after[n] ?? 0;
      here[n] = body;
      for (let p = n - 1; p >= 0; p--) {
        const code = uri.charCodeAt(p);
        here[p] = after[p] === 1 || (body === 1 && step.leads.includes(code)) ? 1 : 0;
        body = after[p] === 1 || (body === 1 && inClass(step.chars, code)) ? 1 : 0;
      }
    }
    rest[i] = here;
    after = here;
  }
  return rest;
}

function sameValue(a: string | string[], b: string | string[]): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * One value per name, keys in template order. Repeated names must agree; a prefix occurrence must be a prefix of
 * the full value.
 */
function merge(occurrences: readonly Occurrence[], names: readonly string[]): MatchResult | undefined {
  const byName = new Map<string, Occurrence[]>();
  for (const occurrence of occurrences) {
    const list = byName.get(occurrence.spec.name);
    if (list === undefined) byName.set(occurrence.spec.name, [occurrence]);
    else list.push(occurrence);
  }
  const result: MatchResult = {};
  for (const name of names) {
    const list = byName.get(name);
    if (list === undefined) continue;
    let chosen: string | string[] | undefined = list.find((o) => o.spec.prefix === undefined)?.value;
    if (chosen === undefined) {
      for (const o of list) {
        if (typeof o.value === 'string' && (chosen === undefined || o.value.length > chosen.length)) chosen = o.value;
      }
    }
    if (chosen === undefined) return undefined;
    for (const o of list) {
      const { prefix } = o.spec;
      if (prefix === undefined) {
        if (!sameValue(o.value, chosen)) return undefined;
      } else if (
        typeof o.value !== 'string' ||
        typeof chosen !== 'string' ||
        codePointLength(o.value) > prefix ||
        o.value !== firstCodePoints(chosen, prefix)
      ) {
        return undefined;
      }
    }
    // defineProperty: a variable may be called `__proto__`.
    Object.defineProperty(result, name, { value: chosen, enumerable: true, writable: true, configurable: true });
  }
  return result;
}

/** Compiles the matcher, or returns undefined when the template uses a form `match` does not support. */
export function compileMatcher(parts: readonly TemplatePart[], names: readonly string[]): Matcher | undefined {
  const steps = compileSteps(parts);
  if (steps === undefined) return undefined;
  return (uri) => {
    if (typeof uri !== 'string' || uri.length > MAX_MATCH_URI_LENGTH) return undefined;
    const n = uri.length;
    const rest = reachability(steps, uri);
    if (rest[0]?.[0] !== 1) return undefined;
    const occurrences: Occurrence[] = [];
    let pos = 0;
    for (const [i, step] of steps.entries()) {
      if (step.kind === 'literal') {
        pos += step.text.length;
        continue;
      }
      const after = rest[i + 1];
      if (after === undefined) return undefined;
      const lead = step.leads.length > 0;
      const start = !lead ? pos : pos < n && step.leads.includes(uri.charCodeAt(pos)) ? pos + 1 : -1;
      let end = -1;
      if (start >= 0) {
        if (lead && after[start] === 1) end = start;
        for (let q = start; q < n && inClass(step.chars, uri.charCodeAt(q)); ) {
          q += 1;
          if (after[q] === 1) end = q;
        }
      }
      if (end < 0) {
        if (!lead || after[pos] !== 1) return undefined;
        end = pos; // absent: every variable of the expression undefined
      }
      if (end > pos && !step.extract(uri.slice(lead ? pos + 1 : pos, end), occurrences)) return undefined;
      pos = end;
    }
    return merge(occurrences, names);
  };
}
