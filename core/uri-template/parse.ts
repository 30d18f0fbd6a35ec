/**
 * RFC 6570 section 2: the template grammar, parsed into literals and expressions.
 *
 * The parser is strict: anything outside the grammar throws a {@link UriTemplateError} carrying the offset
 * (in UTF-16 code units) of the offending character. That covers an unclosed "{", a stray "}", a character a
 * literal may not contain (space, controls, `"'<>\^|` and the backtick), a "%" that does not start a
 * pct-encoded triplet, an empty expression, a reserved operator (`= , ! @ |`), a malformed variable name,
 * a prefix length that is not 1-9999, and a modifier followed by anything but "," or "}" (so `{var:3*}` fails).
 */
import { codePointWidth, isAlpha, isDigit, isPctTriplet, pctEncodeCodePoint } from './encoding.ts';

export class UriTemplateError extends Error {
  readonly _tag = 'UriTemplateError' as const;
  /** The template that failed to parse. */
  readonly template: string;
  /** Offset in the template (UTF-16 code units) of the character where parsing failed. */
  readonly position: number;
  /** What is wrong, without the location. */
  readonly reason: string;

  constructor(reason: string, template: string, position: number) {
    const shown = template.length > 200 ? `${template.slice(0, 200)}…` : template;
    super(`${reason} at position ${position} of URI template ${JSON.stringify(shown)}`);
    this.name = 'UriTemplateError';
    this.template = template;
    this.position = position;
    this.reason = reason;
  }
}

export type OperatorChar = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

/** One column of the operator table in RFC 6570 appendix A. */
export interface Operator {
  readonly char: OperatorChar;
  /** Written before the first defined variable of the expression. */
  readonly first: string;
  /** Written between defined variables (and between members of an exploded value). */
  readonly separator: string;
  /** Whether each value is written as `name=value`. */
  readonly named: boolean;
  /** Written after the name when a named value is empty. */
  readonly ifEmpty: string;
  /** Whether reserved characters and pct-encoded triplets pass through unencoded. */
  readonly allowReserved: boolean;
}

function operator(
  char: OperatorChar,
  first: string,
  separator: string,
  named: boolean,
  ifEmpty: string,
  allowReserved: boolean,
): Operator {
  return Object.freeze({ char, first, separator, named, ifEmpty, allowReserved });
}

export const OPERATORS: Readonly<Record<OperatorChar, Operator>> = Object.freeze({
  '': operator('', '', ',', false, '', false),
  '+': operator('+', '', ',', false, '', true),
  '#': operator('#', '#', ',', false, '', true),
  '.': operator('.', '.', '.', false, '', false),
  '/': operator('/', '/', '/', false, '', false),
  ';': operator(';', ';', ';', true, '', false),
  '?': operator('?', '?', '&', true, '=', false),
  '&': operator('&', '&', '&', true, '=', false),
});

function isOperatorChar(char: string): char is Exclude<OperatorChar, ''> {
  return char.length === 1 && '+#./;?&'.includes(char);
}

export interface VarSpec {
  /** The name exactly as written (a pct-encoded triplet in it is kept as is). */
  readonly name: string;
  /** Length from a `:n` prefix modifier, 1-9999. */
  readonly prefix: number | undefined;
  /** Whether the `*` explode modifier is present. */
  readonly explode: boolean;
}

export interface Expression {
  readonly kind: 'expression';
  readonly operator: Operator;
  readonly variables: readonly VarSpec[];
  /** Offset of the expression's "{". */
  readonly position: number;
}

export interface Literal {
  readonly kind: 'literal';
  /** The literal as written. */
  readonly text: string;
  /** The literal as it appears in an expansion (section 3.1: non-ASCII characters pct-encoded as UTF-8). */
  readonly expanded: string;
  readonly position: number;
}

export type TemplatePart = Literal | Expression;

function fail(reason: string, template: string, position: number): never {
  throw new UriTemplateError(reason, template, position);
}

function describe(template: string, position: number): string {
  return position >= template.length ? 'end of template' : JSON.stringify(template.charAt(position));
}

/**
 * ASCII codes a literal may contain as is:
 * %x21 / %x23-24 / %x26 / %x28-3B / %x3D / %x3F-5B / %x5D / %x5F / %x61-7A / %x7E.
 */
function isLiteralAscii(code: number): boolean {
  return (
    code === 0x21 ||
    code === 0x23 ||
    code === 0x24 ||
    code === 0x26 ||
    (code >= 0x28 && code <= 0x3b) ||
    code === 0x3d ||
    (code >= 0x3f && code <= 0x5b) ||
    code === 0x5d ||
    code === 0x5f ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x7e
  );
}

/** ucschar / iprivate from RFC 3987: the non-ASCII code points a literal may contain. */
function isLiteralNonAscii(cp: number): boolean {
  if (cp < 0xa0) return false;
  if (cp <= 0xd7ff) return true;
  if (cp < 0xe000) return false; // surrogates
  if (cp <= 0xfdcf) return true; // iprivate E000-F8FF, ucschar F900-FDCF
  if (cp < 0xfdf0) return false; // noncharacters FDD0-FDEF
  if (cp <= 0xffef) return true;
  if (cp <= 0xffff) return false;
  if (cp >= 0xe0000 && cp <= 0xe0fff) return false;
  return (cp & 0xffff) <= 0xfffd; // every supplementary plane but its last two code points
}

function isVarChar(code: number): boolean {
  return isAlpha(code) || isDigit(code) || code === 0x5f;
}

/** Checks the literal character at `index` and returns how many code units it takes. */
function literalWidth(template: string, index: number): number {
  const code = template.charCodeAt(index);
  if (code === 0x25) {
    if (!isPctTriplet(template, index)) fail('"%" in a literal must start a pct-encoded triplet', template, index);
    return 3;
  }
  if (code < 0x80) {
    if (!isLiteralAscii(code)) {
      fail(`character ${describe(template, index)} is not allowed in a literal`, template, index);
    }
    return 1;
  }
  const cp = template.codePointAt(index) ?? code;
  if (!isLiteralNonAscii(cp)) {
    fail(`character U+${cp.toString(16).toUpperCase().padStart(4, '0')} is not allowed in a literal`, template, index);
  }
  return codePointWidth(template, index);
}

function expandLiteral(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; ) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      out += text.charAt(index);
      index += 1;
    } else {
      out += pctEncodeCodePoint(text.codePointAt(index) ?? code);
      index += codePointWidth(text, index);
    }
  }
  return out;
}

/** Scans `varname = varchar *( ["."] varchar )` from `index`; returns the offset after it. */
function scanVarname(template: string, index: number, close: number): number {
  const start = index;
  let at = index;
  while (at < close) {
    const code = template.charCodeAt(at);
    if (isVarChar(code)) {
      at += 1;
    } else if (code === 0x25) {
      if (!isPctTriplet(template, at)) fail('"%" in a variable name must start a pct-encoded triplet', template, at);
      at += 3;
    } else if (code === 0x2e) {
      if (at === start) fail('a variable name cannot start with "."', template, at);
      const following = template.charCodeAt(at + 1);
      if (at + 1 >= close || !(isVarChar(following) || following === 0x25)) {
        fail('"." in a variable name must be followed by a name character', template, at);
      }
      at += 1;
    } else {
      break;
    }
  }
  if (at === start) {
    const found = template.charAt(at);
    fail(
      at === close || found === ','
        ? 'expected a variable name'
        : `invalid character ${describe(template, at)} where a variable name should start`,
      template,
      at,
    );
  }
  return at;
}

function parseExpression(template: string, open: number, close: number): Expression {
  let at = open + 1;
  if (at === close) fail('empty expression', template, open);
  let op = OPERATORS[''];
  const first = template.charAt(at);
  if (isOperatorChar(first)) {
    op = OPERATORS[first];
    at += 1;
  } else if ('=,!@|'.includes(first)) {
    fail(`operator "${first}" is reserved`, template, at);
  }
  const variables: VarSpec[] = [];
  for (;;) {
    const nameStart = at;
    at = scanVarname(template, at, close);
    const name = template.slice(nameStart, at);
    let prefix: number | undefined;
    let explode = false;
    const modifier = template.charAt(at);
    if (modifier === ':') {
      at += 1;
      const digitsStart = at;
      while (at < close && isDigit(template.charCodeAt(at))) at += 1;
      const digits = template.slice(digitsStart, at);
      if (digits.length === 0 || digits.startsWith('0')) {
        fail('a prefix modifier needs a length from 1 to 9999', template, digitsStart);
      }
      if (digits.length > 4) fail(`prefix length ${digits} is greater than 9999`, template, digitsStart);
      prefix = Number(digits);
    } else if (modifier === '*') {
      explode = true;
      at += 1;
    }
    variables.push(Object.freeze({ name, prefix, explode }));
    if (at === close) break;
    if (template.charAt(at) !== ',') fail(`unexpected ${describe(template, at)} in expression`, template, at);
    at += 1;
  }
  return Object.freeze({ kind: 'expression', operator: op, variables: Object.freeze(variables), position: open });
}

/** Parses a whole template. Throws {@link UriTemplateError} on the first syntax error. */
export function parseTemplate(template: string): readonly TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literalStart = 0;
  const flushLiteral = (end: number): void => {
    if (end === literalStart) return;
    const text = template.slice(literalStart, end);
    parts.push(Object.freeze({ kind: 'literal', text, expanded: expandLiteral(text), position: literalStart }));
  };
  let index = 0;
  while (index < template.length) {
    const code = template.charCodeAt(index);
    if (code === 0x7b) {
      flushLiteral(index);
      const close = template.indexOf('}', index + 1);
      if (close < 0) fail('unclosed expression: "{" has no matching "}"', template, index);
      parts.push(parseExpression(template, index, close));
      index = close + 1;
      literalStart = index;
    } else if (code === 0x7d) {
      fail('"}" without a matching "{"', template, index);
    } else {
      index += literalWidth(template, index);
    }
  }
  flushLiteral(index);
  return Object.freeze(parts);
}
