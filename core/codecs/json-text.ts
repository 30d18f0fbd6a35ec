/**
 * Values that carry their own JSON text, for the `_meta` objects the modern era (2026-07-28) repeats in every
 * message: a client's envelope (its protocol version, capabilities and info, about two thirds of a `tools/call`
 * request's bytes) and a server's info on every result. Each is the same frozen object in every message a session
 * sends, so its text is made once; the JSON codec writes that text instead of encoding the object again.
 *
 * Only a message of the plain shapes a session builds (core/jsonrpc.ts: `{ jsonrpc, id, method, params }`, the same
 * without `id`, `{ jsonrpc, id, result }`) whose params or result is a plain object with such a `_meta` takes this
 * path: its text is that of `JSON.stringify` with the message's members in that order and `_meta` last in the
 * params or result (where a session puts them), byte for byte the same in those cases. Anything else is encoded by
 * `JSON.stringify` as it is.
 */
import type { JsonObject, WirePayload } from '../jsonrpc.ts';

/** Where a value made by {@link withJsonText} keeps its text: a symbol, which no JSON encoder or reader sees. */
const JSON_TEXT: unique symbol = Symbol('rxmcp.jsonText');

interface WithText {
  readonly [JSON_TEXT]?: string;
}

/**
 * `value` as its JSON form (a deep copy: what a peer reads), frozen through and through and carrying its JSON text.
 * Frozen throughout, the text cannot go stale; a copy, the caller's own objects stay as they were (not frozen).
 */
export function withJsonText<T extends JsonObject>(value: T): T {
  const text = JSON.stringify(value);
  const copy = JSON.parse(text) as T;
  Object.defineProperty(copy, JSON_TEXT, { value: text });
  return deepFreeze(copy);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

type Shape = { readonly jsonrpc?: unknown; readonly id?: unknown; readonly method?: unknown; readonly params?: unknown; readonly result?: unknown };

/**
 * The JSON text of `payload` when it is a message whose params' or result's `_meta` carries its text (see the module
 * comment); undefined for anything else, which the caller encodes in full.
 */
export function encodeWithKnownMeta(payload: WirePayload): string | undefined {
  if (Array.isArray(payload)) return undefined;
  const message = payload as Shape;
  const params = message.params;
  const body = params ?? message.result;
  if (typeof body !== 'object' || body === null) return undefined;
  const text = ((body as { readonly _meta?: unknown })._meta as WithText | null | undefined)?.[JSON_TEXT];
  if (text === undefined || message.jsonrpc !== '2.0' || Object.getPrototypeOf(body) !== Object.prototype) return undefined;
  let members = 0;
  for (const _ in message) members++;
  const id = message.id;
  let head: string;
  // The head is written here, not by JSON.stringify: a call of it costs more than this whole head on short values.
  if (params !== undefined) {
    const method = message.method;
    if (typeof method !== 'string' || members !== (id === undefined ? 3 : 4)) return undefined;
    head = id === undefined ? `{"jsonrpc":"2.0","method":${jsonString(method)},"params":` : `{"jsonrpc":"2.0","id":${jsonId(id)},"method":${jsonString(method)},"params":`;
  } else {
    if (id === undefined || members !== 3) return undefined;
    head = `{"jsonrpc":"2.0","id":${jsonId(id)},"result":`;
  }
  // The body's other members are encoded as usual, in their order; the known text goes last as `_meta`.
  const rest: Record<string, unknown> = {};
  for (const key in body) if (key !== '_meta') rest[key] = (body as Record<string, unknown>)[key];
  const restText = JSON.stringify(rest);
  return `${head}${restText.length === 2 ? '{' : `${restText.slice(0, -1)},`}"_meta":${text}}}`;
}

/** An id's JSON text: an integer's digits as JSON writes them, anything else through JSON.stringify. */
function jsonId(id: unknown): string {
  return Number.isSafeInteger(id) ? String(id) : typeof id === 'string' ? jsonString(id) : (JSON.stringify(id) as string);
}

/**
 * A string's JSON text: quoted as it is when nothing in it needs escaping (no quote, backslash, control character or
 * surrogate, which JSON.stringify would escape), else through JSON.stringify.
 */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}
