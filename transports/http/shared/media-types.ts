/**
 * Content negotiation for the MCP HTTP transports: reading `Content-Type` and `Accept` (RFC 9110 §8.3, §12.5.1)
 * without a dependency. Parameters other than `q` are ignored; matching is case-insensitive.
 */

/** The `type/subtype` of a Content-Type value, lower case, without parameters; undefined when absent. */
export function essenceOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence.length === 0 ? undefined : essence;
}

/** Whether a Content-Type names JSON (`application/json`, with any parameters such as a charset). */
export function isJsonContentType(contentType: string | undefined): boolean {
  return essenceOf(contentType) === 'application/json';
}

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';');
    const slash = range.indexOf('/');
    if (slash <= 0) continue;
    let q = 1;
    for (const param of params) {
      const [name = '', value = ''] = param.split('=');
      if (name.trim().toLowerCase() === 'q') q = Number.parseFloat(value.trim());
    }
    if (!Number.isFinite(q)) q = 1;
    ranges.push({ type: range.slice(0, slash).trim().toLowerCase(), subtype: range.slice(slash + 1).trim().toLowerCase(), q });
  }
  return ranges;
}

/**
 * Whether an `Accept` header admits `mediaType` (given as `type/subtype`): a range naming it exactly, or
 * `type/*`, or `* /*`, with a non-zero quality. The most specific matching range decides, as RFC 9110 asks, so
 * `text/*, text/event-stream;q=0` refuses event streams. An absent header admits nothing here: the MCP
 * transports require clients to send one.
 */
export function accepts(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined) return false;
  const [type = '', subtype = ''] = mediaType.toLowerCase().split('/');
  let best: MediaRange | undefined;
  let bestRank = -1;
  for (const range of parseAccept(accept)) {
    const rank = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1;
    if (rank > bestRank) {
      best = range;
      bestRank = rank;
    }
  }
  return best !== undefined && best.q > 0;
}

/** What an `Accept` header admits of the two MCP answer types: bit 1 JSON, bit 2 an event stream. */
export const ACCEPTS_JSON = 1;
export const ACCEPTS_EVENT_STREAM = 2;

/** Clients send the same Accept header on every request: its reading is kept, for this many distinct values. */
const ACCEPTANCE_CACHE_SIZE = 64;
const acceptance = new Map<string, number>();

/** {@link accepts} for `application/json` and `text/event-stream` at once, parsed once per distinct header. */
export function acceptanceOf(accept: string | undefined): number {
  if (accept === undefined) return 0;
  let bits = acceptance.get(accept);
  if (bits === undefined) {
    bits = (accepts(accept, 'application/json') ? ACCEPTS_JSON : 0) | (accepts(accept, 'text/event-stream') ? ACCEPTS_EVENT_STREAM : 0);
    // Bounded: a client varying its header cannot grow it; the usual few values come straight back in.
    if (acceptance.size >= ACCEPTANCE_CACHE_SIZE) acceptance.clear();
    acceptance.set(accept, bits);
  }
  return bits;
}
