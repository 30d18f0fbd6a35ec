/**
 * RFC 6570 section 3: expansion, following the algorithm of appendix A.
 *
 * Values:
 * - A variable is undefined when it is absent, `undefined` or `null`, an empty list, or an associative array
 *   with no defined member; undefined variables are skipped, and an expression whose variables are all
 *   undefined expands to "" (its operator character included). An empty string is defined: `{?x}` gives `?x=`,
 *   `{;x}` gives `;x`, `{.x}` gives `.`, `{#x}` gives `#`.
 * - Only own properties of the variables object are looked up (a template `{constructor}` does not see
 *   `Object.prototype`). List members and associative-array values that are `undefined` or `null` are skipped;
 *   numbers, booleans and bigints are written as strings.
 * - A prefix modifier counts code points of the value; with `+` and `#` a pct-encoded triplet in the value counts
 *   as one character, so it is never cut. It applies to string values only: a list or associative array with a
 *   prefix modifier is expanded in full (section 2.4.1 says prefixes do not apply to composite values).
 * - An exploded associative-array member with an empty value is written `name` for operators that are not
 *   form-style and `name=` for `?` and `&` (section 3.2.1; for `;`, `?`, `&` this is also what appendix A does).
 */
import { codePointWidth, encodeText, isPctTriplet } from './encoding.ts';
import type { Expression, Operator, TemplatePart, VarSpec } from './parse.ts';

/** A variable's value: a string, a list of strings, or an associative array; `undefined` means not defined. */
export type UriTemplateValue = string | readonly string[] | Readonly<Record<string, string>> | undefined;

export type UriTemplateVariables = Readonly<Record<string, UriTemplateValue>>;

type Defined =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | { readonly kind: 'assoc'; readonly entries: readonly (readonly [string, string])[] };

function scalar(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    default:
      return undefined;
  }
}

function lookup(variables: UriTemplateVariables, name: string): Defined | undefined {
  if (!Object.hasOwn(variables, name)) return undefined;
  const value: unknown = variables[name];
  const text = scalar(value);
  if (text !== undefined) return { kind: 'string', value: text };
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const member of value as readonly unknown[]) {
      const item = scalar(member);
      if (item !== undefined) items.push(item);
    }
    return items.length === 0 ? undefined : { kind: 'list', items };
  }
  if (typeof value === 'object' && value !== null) {
    const entries: (readonly [string, string])[] = [];
    for (const [key, member] of Object.entries(value as Readonly<Record<string, unknown>>)) {
      const item = scalar(member);
      if (item !== undefined) entries.push([key, item]);
    }
    return entries.length === 0 ? undefined : { kind: 'assoc', entries };
  }
  return undefined;
}

/** The first `length` characters of `text`; with `allowReserved`, a pct-encoded triplet is one character. */
function prefixOf(text: string, length: number, allowReserved: boolean): string {
  let index = 0;
  for (let taken = 0; taken < length && index < text.length; taken++) {
    index += allowReserved && isPctTriplet(text, index) ? 3 : codePointWidth(text, index);
  }
  return text.slice(0, index);
}

function expandVariable(op: Operator, spec: VarSpec, value: Defined): string {
  const encode = (text: string): string => encodeText(text, op.allowReserved);
  /** `name=value`, or `name` + ifEmpty for an empty value (named operators; exploded associative arrays). */
  const pair = (name: string, text: string): string => name + (text === '' ? op.ifEmpty : `=${encode(text)}`);
  switch (value.kind) {
    case 'string': {
      const text = spec.prefix === undefined ? value.value : prefixOf(value.value, spec.prefix, op.allowReserved);
      return op.named ? pair(spec.name, text) : encode(text);
    }
    case 'list': {
      if (!spec.explode) return (op.named ? `${spec.name}=` : '') + value.items.map(encode).join(',');
      if (op.named) return value.items.map((item) => pair(spec.name, item)).join(op.separator);
      return value.items.map(encode).join(op.separator);
    }
    case 'assoc': {
      if (!spec.explode) {
        const joined = value.entries.map(([key, item]) => `${encode(key)},${encode(item)}`).join(',');
        return (op.named ? `${spec.name}=` : '') + joined;
      }
      return value.entries.map(([key, item]) => pair(encode(key), item)).join(op.separator);
    }
  }
}

function expandExpression(expression: Expression, variables: UriTemplateVariables): string {
  const op = expression.operator;
  let out = '';
  let first = true;
  for (const spec of expression.variables) {
    const value = lookup(variables, spec.name);
    if (value === undefined) continue;
    out += first ? op.first : op.separator;
    first = false;
    out += expandVariable(op, spec, value);
  }
  return out;
}

export function expandTemplate(parts: readonly TemplatePart[], variables: UriTemplateVariables): string {
  let out = '';
  for (const part of parts) out += part.kind === 'literal' ? part.expanded : expandExpression(part, variables);
  return out;
}
