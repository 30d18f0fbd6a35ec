/**
 * A `WWW-Authenticate` header read as RFC 9110 section 11.6.1 writes it:
 *
 *   WWW-Authenticate = #challenge                      (a comma-separated list; empty elements ignored)
 *   challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
 *   auth-param       = token BWS "=" BWS ( token / quoted-string )
 *
 * Commas separate both challenges and the parameters of one, so an element after a comma is a parameter when
 * it reads `name =`, else the next challenge. Schemes and parameter names are case-insensitive (lower-cased
 * here); quoted-string values are unescaped. Whatever the header says is a peer's: a challenge that breaks the
 * grammar (or names a parameter twice, which RFC 9110 forbids) ends the reading, and the challenges read before
 * it are the answer; a header longer than any real one is not read at all.
 */

export interface AuthChallenge {
  /** The scheme, lower case (`bearer`, `dpop`, `basic`...). */
  readonly scheme: string;
  /** The token68 form (`Negotiate abc==`), for a challenge that carries one instead of parameters. */
  readonly token68?: string;
  /** The parameters by lower-case name, values unquoted. */
  readonly parameters: Readonly<Record<string, string>>;
}

/** Far beyond any challenge an authorization server or resource server sends. */
const MAX_HEADER_CHARS = 16 * 1024;
/** RFC 9110 tchar. */
const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/;
/** RFC 9110 token68, without its trailing `=` padding. */
const TOKEN68_CHAR = /^[A-Za-z0-9\-._~+/]$/;

export function parseWwwAuthenticate(header: string): AuthChallenge[] {
  if (header.length > MAX_HEADER_CHARS) return [];
  const text = new Cursor(header);
  const challenges: AuthChallenge[] = [];
  text.skipSeparators();
  while (!text.done) {
    const challenge = readChallenge(text);
    if (challenge === undefined) break;
    challenges.push(challenge);
  }
  return challenges;
}

/** One challenge, with the separators after it; undefined when the grammar breaks. */
function readChallenge(text: Cursor): AuthChallenge | undefined {
  const scheme = text.token();
  if (scheme === undefined) return undefined;
  const afterScheme = text.at;
  text.skipSpaces();
  if (text.done || text.peek() === ',') {
    text.skipSeparators();
    return { scheme: scheme.toLowerCase(), parameters: {} };
  }
  if (text.at === afterScheme) return undefined;
  if (!text.startsParameter()) {
    const token68 = text.token68();
    text.skipSpaces();
    if (token68 === undefined || !(text.done || text.peek() === ',')) return undefined;
    text.skipSeparators();
    return { scheme: scheme.toLowerCase(), token68, parameters: {} };
  }
  const parameters = new Map<string, string>();
  do {
    const name = (text.token() as string).toLowerCase();
    text.skipSpaces();
    text.at += 1; // the "=" startsParameter saw
    text.skipSpaces();
    const value = text.peek() === '"' ? text.quotedString() : text.token();
    if (value === undefined || parameters.has(name)) return undefined;
    parameters.set(name, value);
    text.skipSpaces();
    if (!text.done && text.peek() !== ',') return undefined;
    text.skipSeparators();
  } while (!text.done && text.startsParameter());
  // fromEntries defines own properties: a parameter named `__proto__` stays a parameter.
  return { scheme: scheme.toLowerCase(), parameters: Object.fromEntries(parameters) };
}

class Cursor {
  at = 0;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.at >= this.text.length;
  }

  peek(): string | undefined {
    return this.text[this.at];
  }

  /** Optional whitespace (OWS, BWS). */
  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at += 1;
  }

  /** Whitespace and commas: the separators of a list, whose empty elements count for nothing. */
  skipSeparators(): void {
    while (this.peek() === ' ' || this.peek() === '\t' || this.peek() === ',') this.at += 1;
  }

  token(): string | undefined {
    const start = this.at;
    while (!this.done && TCHAR.test(this.text[this.at] as string)) this.at += 1;
    return this.at > start ? this.text.slice(start, this.at) : undefined;
  }

  token68(): string | undefined {
    const start = this.at;
    while (!this.done && TOKEN68_CHAR.test(this.text[this.at] as string)) this.at += 1;
    if (this.at === start) return undefined;
    while (this.peek() === '=') this.at += 1;
    return this.text.slice(start, this.at);
  }

  /** Whether what follows is `name BWS "=" BWS value` (looked at, not consumed). */
  startsParameter(): boolean {
    const start = this.at;
    const name = this.token();
    this.skipSpaces();
    let parameter = false;
    if (name !== undefined && this.peek() === '=') {
      this.at += 1;
      this.skipSpaces();
      // `abc==` and a trailing `abc=` are token68, not a parameter without a value.
      const next = this.peek();
      parameter = next === '"' || (next !== undefined && TCHAR.test(next));
    }
    this.at = start;
    return parameter;
  }

  /** DQUOTE *( qdtext / quoted-pair ) DQUOTE, unescaped; undefined when malformed or unterminated. */
  quotedString(): string | undefined {
    this.at += 1;
    let value = '';
    while (!this.done) {
      const char = this.text[this.at] as string;
      this.at += 1;
      if (char === '"') return value;
      if (char === '\\') {
        const escaped = this.text[this.at];
        if (escaped === undefined || !isQuotedPairChar(escaped)) return undefined;
        this.at += 1;
        value += escaped;
      } else if (isQdtext(char)) {
        value += char;
      } else {
        return undefined;
      }
    }
    return undefined;
  }
}

/** HTAB, SP, VCHAR except `"` and `\`, obs-text. */
function isQdtext(char: string): boolean {
  const code = char.charCodeAt(0);
  return code === 0x09 || code === 0x20 || code === 0x21 || (code >= 0x23 && code <= 0x5b) || (code >= 0x5d && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/** What may follow a backslash: HTAB, SP, VCHAR, obs-text. */
function isQuotedPairChar(char: string): boolean {
  const code = char.charCodeAt(0);
  return code === 0x09 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}
