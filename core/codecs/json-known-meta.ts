/**
 * Reading the `_meta` the modern era (2026-07-28) repeats in every message without parsing it again: a client's
 * envelope (protocol version, capabilities, info: about 270 of a `tools/call` request's 400 bytes) and a server's
 * info on every result are the same text in every message of a session, and parsing that text was most of the
 * JSON work a modern message costs over a legacy one.
 *
 * A message ending in `"_meta":<known text>}}`, where the known text was seen at that place before, is read as
 * its text without that member (`JSON.parse` of the rest, closed) plus `_meta` set to a copy of the object parsed
 * from the known text the first time. Everything else is parsed in full, as before. The result is the value
 * `JSON.parse` makes of the whole text (same members, same values, same key order; see {@link readWithKnown} for
 * why), and like every decoded message it is the receiver's own: a handler may write into its `params._meta` on
 * its thousandth call as on its first (the official SDKs' handlers can), and never sees another message's writes.
 * The copy walks the parsed template (a few small objects) instead of the text: about a third of the parse.
 *
 * Bounded: at most {@link MAX_KNOWN} texts, each at most {@link MAX_META_CHARS} long; a text is remembered only
 * when it is seen a second time among recent misses, so a `_meta` that differs in every message (a progress token
 * in it) is never remembered and costs a miss only a backward search near the end of the text.
 */
import type { JsonObject } from '../jsonrpc.ts';

/** Distinct `_meta` texts remembered (a few clients' envelopes, a few servers' infos), oldest replaced first. */
const MAX_KNOWN = 8;
/** A longer `_meta` is not remembered: its parse is a small part of its message's cost anyway. */
const MAX_META_CHARS = 4096;
/** A longer message is not looked at for a `_meta` to remember (its candidate text would keep the message alive). */
const MAX_LEARN_CHARS = 16 * 1024;
/** Candidate texts seen once, the last few misses: one seen again is remembered. */
const MAX_CANDIDATES = 4;

const META_KEY = '"_meta":';
const QUOTE = 0x22;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;

interface Known {
  /** `"_meta":<text>}}`: how a message carrying it ends. */
  readonly tail: string;
  /** The object parsed from the text: the template of every message's own copy (frozen: never handed out). */
  readonly meta: JsonObject;
}

const known: Known[] = [];
let nextKnown = 0;
const candidates: (string | undefined)[] = [];
let nextCandidate = 0;
/** Messages read with a remembered `_meta` (for specs: the optimisation takes effect). */
let reads = 0;

/** `JSON.parse(text)`, reusing the parsed `_meta` of a message whose `_meta` text was seen before (see above). */
export function parseJsonMessage(text: string): unknown {
  const length = text.length;
  for (let index = 0; index < known.length; index++) {
    const entry = known[index] as Known;
    const tailLength = entry.tail.length;
    // The length and the first character rule out almost every other text before the whole tail is compared (a
    // slice and `===`, which V8 compares as memory: less than half of what `endsWith` costs here).
    if (length > tailLength && text.charCodeAt(length - tailLength) === QUOTE && text.slice(length - tailLength) === entry.tail) {
      const read = readWithKnown(text, length - tailLength, entry.meta);
      if (read !== undefined) return read;
      break;
    }
  }
  const message = JSON.parse(text) as unknown;
  // Only a message that could be read with a known `_meta` is looked at: a legacy message (no `_meta`) costs two reads.
  if (length <= MAX_LEARN_CHARS && typeof metaOf(message) === 'object' && bodyOf(message) !== undefined) learn(text);
  return message;
}

/**
 * The message `text` is, given that it ends in `"_meta":<known>}}` with that key's `"` at `cut`; undefined when this
 * cannot be told without parsing the whole text (then the caller does, and reports any syntax error).
 *
 * Why the result is `JSON.parse(text)`: the `"` at `cut` follows `,` or `{`, not a backslash, so it opens or closes a
 * string; were it closing one, `_` would follow a string, which no JSON text has, so the text is invalid and would
 * not parse after the cut either (`head}}` would end inside that string). So it opens the key `_meta` of a member
 * outside any string. When `head}}` (the text before that member, closed) parses as a JSON-RPC message, the two
 * braces close the member's object and the message, so that object is the value of the message's last member, at
 * depth two. Its key is `params` or `result`: the other members' values are not objects (checked), and of repeated
 * keys JSON.parse keeps the last value, the last member's. The known text parsed on its own to an object (when it
 * was remembered), so in the whole text it is exactly that member's value; and setting `_meta` on the object
 * parsed from `head}}` adds it last, or replaces the value of an earlier `_meta` in place, as JSON.parse does. A
 * `,` right after `{` or after whitespace is not checked here (`{,` is invalid, `1 ,` is not): the full parse judges.
 */
function readWithKnown(text: string, cut: number, meta: JsonObject): unknown {
  const before = text.charCodeAt(cut - 1);
  let head: string;
  if (before === COMMA) {
    const last = text.charCodeAt(cut - 2);
    if (last === OPEN_BRACE || last <= 0x20) return undefined;
    head = text.slice(0, cut - 1);
  } else if (before === OPEN_BRACE) {
    head = text.slice(0, cut);
  } else {
    return undefined;
  }
  let message: unknown;
  try {
    message = JSON.parse(`${head}}}`);
  } catch {
    return undefined;
  }
  const body = bodyOf(message);
  if (body === undefined) return undefined;
  body['_meta'] = copyOf(meta);
  reads++;
  return message;
}

/** A deep copy of a JSON value (objects, arrays and primitives only, as a parsed text is). */
function copyOf<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyOf) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const item = copyOf((value as Record<string, unknown>)[key]);
    // A `__proto__` member is an own property in what JSON.parse makes; assigned, it would set the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}

/**
 * The params of a request `{ jsonrpc: '2.0', id, method, params }` or the result of `{ jsonrpc: '2.0', id, result }`
 * (members in any order, none other), when it is an object; undefined for anything else.
 */
function bodyOf(message: unknown): Record<string, unknown> | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const fields = message as Record<string, unknown>;
  if (fields['jsonrpc'] !== '2.0') return undefined;
  const id = fields['id'];
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  let members = 0;
  for (const _ in fields) members++;
  const body = members === 4 && typeof fields['method'] === 'string' ? fields['params'] : members === 3 ? fields['result'] : undefined;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** The `_meta` of a message's params or result, unchecked (undefined when there is none). */
function metaOf(message: unknown): unknown {
  if (typeof message !== 'object' || message === null) return undefined;
  const body = (message as { readonly params?: unknown }).params ?? (message as { readonly result?: unknown }).result;
  return typeof body === 'object' && body !== null ? (body as { readonly _meta?: unknown })._meta : undefined;
}

/** Notes the `_meta` text a message (of {@link bodyOf}'s shapes) ends with; the second time, remembers it. */
function learn(text: string): void {
  const at = text.lastIndexOf(META_KEY);
  if (at < 0 || text.length - at - META_KEY.length - 2 > MAX_META_CHARS || !text.endsWith('}}')) return;
  const tail = text.slice(at);
  const seen = candidates.indexOf(tail);
  if (seen < 0) {
    candidates[nextCandidate] = tail;
    nextCandidate = (nextCandidate + 1) % MAX_CANDIDATES;
    return;
  }
  candidates[seen] = undefined;
  let meta: unknown;
  try {
    meta = JSON.parse(tail.slice(META_KEY.length, -2));
  } catch {
    // Not the text of one JSON value (the last `"_meta":` of the text was not the member's key): not a tail.
    return;
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return;
  // The tail may share the text of the message it was cut from: at most MAX_LEARN_CHARS per entry stay alive.
  known[nextKnown] = { tail, meta: deepFreeze(meta as JsonObject) };
  nextKnown = (nextKnown + 1) % MAX_KNOWN;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** How many `_meta` texts are remembered now (for specs: the bound holds). */
export function knownMetaCount(): number {
  return known.length;
}

/** How many messages were read with a remembered `_meta` so far (for specs). */
export function knownMetaReads(): number {
  return reads;
}
