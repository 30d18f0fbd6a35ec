/**
 * Character sets and percent-encoding for RFC 6570 (sets from RFC 3986 section 2).
 *
 * - unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
 * - reserved   = gen-delims / sub-delims = ":" "/" "?" "#" "[" "]" "@" / "!" "$" "&" "'" "(" ")" "*" "+" "," ";" "="
 *
 * Encoding works on Unicode code points: a character outside the allowed set becomes the percent-encoded octets
 * of its UTF-8 form, hex digits in upper case. A lone surrogate (not a code point) is encoded as U+FFFD, the way
 * WHATWG URL and TextEncoder treat it.
 */

const HEX = '0123456789ABCDEF';

const UNRESERVED = 1;
const RESERVED = 2;

/** Per ASCII code: {@link UNRESERVED}, {@link RESERVED} or 0. */
const ASCII_SETS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  if (/^[A-Za-z0-9\-._~]$/.test(char)) ASCII_SETS[code] = UNRESERVED;
  else if (":/?#[]@!$&'()*+,;=".includes(char)) ASCII_SETS[code] = RESERVED;
}

export function isAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

export function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

export function isHexDigit(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}

/** True when `text` has a pct-encoded triplet ("%" HEXDIG HEXDIG) at `index`. */
export function isPctTriplet(text: string, index: number): boolean {
  return (
    text.charCodeAt(index) === 0x25 && isHexDigit(text.charCodeAt(index + 1)) && isHexDigit(text.charCodeAt(index + 2))
  );
}

/** Length in UTF-16 code units of the code point (or lone surrogate) starting at `index`. */
export function codePointWidth(text: string, index: number): number {
  const code = text.codePointAt(index) ?? 0;
  return code > 0xffff ? 2 : 1;
}

function pctByte(byte: number): string {
  return `%${HEX.charAt(byte >> 4)}${HEX.charAt(byte & 0x0f)}`;
}

/** The pct-encoded UTF-8 octets of one code point; a surrogate code unit is encoded as U+FFFD. */
export function pctEncodeCodePoint(codePoint: number): string {
  const cp = codePoint >= 0xd800 && codePoint <= 0xdfff ? 0xfffd : codePoint;
  if (cp < 0x80) return pctByte(cp);
  if (cp < 0x800) return pctByte(0xc0 | (cp >> 6)) + pctByte(0x80 | (cp & 0x3f));
  if (cp < 0x10000) {
    return pctByte(0xe0 | (cp >> 12)) + pctByte(0x80 | ((cp >> 6) & 0x3f)) + pctByte(0x80 | (cp & 0x3f));
  }
  return (
    pctByte(0xf0 | (cp >> 18)) +
    pctByte(0x80 | ((cp >> 12) & 0x3f)) +
    pctByte(0x80 | ((cp >> 6) & 0x3f)) +
    pctByte(0x80 | (cp & 0x3f))
  );
}

/**
 * Encodes a value for an expression. Unreserved characters always pass through; with `allowReserved` (the `+`
 * and `#` operators) reserved characters and well-formed pct-encoded triplets pass through too. Everything
 * else, including a "%" that does not start a triplet, is pct-encoded.
 */
export function encodeText(text: string, allowReserved: boolean): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      const set = ASCII_SETS[code];
      if (set === UNRESERVED || (allowReserved && set === RESERVED)) {
        out += text.charAt(index);
      } else if (allowReserved && isPctTriplet(text, index)) {
        out += text.slice(index, index + 3);
        index += 3;
        continue;
      } else {
        out += pctByte(code);
      }
      index += 1;
    } else {
      out += pctEncodeCodePoint(text.codePointAt(index) ?? code);
      index += codePointWidth(text, index);
    }
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes every run of pct-encoded triplets as UTF-8; other characters (a stray "%", a "+") are kept as they
 * are. Returns undefined when a run is not well-formed UTF-8.
 */
export function decodeText(text: string): string | undefined {
  let index = text.indexOf('%');
  if (index < 0) return text;
  let out = text.slice(0, index);
  while (index < text.length) {
    if (!isPctTriplet(text, index)) {
      out += text.charAt(index);
      index += 1;
      continue;
    }
    const bytes: number[] = [];
    while (isPctTriplet(text, index)) {
      bytes.push(Number.parseInt(text.slice(index + 1, index + 3), 16));
      index += 3;
    }
    try {
      out += utf8.decode(Uint8Array.from(bytes));
    } catch {
      return undefined;
    }
  }
  return out;
}

/** The first `count` code points of `text`. */
export function firstCodePoints(text: string, count: number): string {
  let index = 0;
  for (let taken = 0; taken < count && index < text.length; taken++) index += codePointWidth(text, index);
  return text.slice(0, index);
}

/** Number of code points in `text` (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index += codePointWidth(text, index)) length++;
  return length;
}
