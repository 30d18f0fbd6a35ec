/**
 * Opaque, tamper-evident list cursors. A cursor names an offset into a list at a given catalog revision,
 * authenticated with a per-process key so a client cannot forge one (forged or garbled cursors are refused
 * with -32602 by the caller). Clients must treat cursors as opaque; only this module reads them.
 */
import { decodeBase64url, encodeBase64url, encodeBase64urlText } from '../bytes.ts';
import { HmacSha256Key } from '../crypto/hmac.ts';
import { randomBytes } from '../crypto/random.ts';

// The tag is the first 12 bytes of the HMAC: 16 base64url characters, as before.
const TAG_BYTES = 12;

const processKey = randomBytes(32);
// Each key is prepared once (its HMAC pads absorbed), on first use; the cache dies with the key.
const preparedKeys = new WeakMap<Uint8Array, HmacSha256Key>();

function prepared(key: Uint8Array): HmacSha256Key {
  let found = preparedKeys.get(key);
  if (found === undefined) preparedKeys.set(key, (found = new HmacSha256Key(key)));
  return found;
}

function tag(body: string, key: Uint8Array): string {
  return encodeBase64url(prepared(key).mac(body).subarray(0, TAG_BYTES));
}

const utf8Decoder = new TextDecoder();

export interface CursorPosition {
  /** Which list the cursor belongs to ("tools", "resources", ...): a cursor of one list is refused by another. */
  readonly list: string;
  /** The list's revision when the cursor was issued: after a change the offset would skip or repeat items. */
  readonly revision: number;
  readonly offset: number;
}

export function encodeCursor(position: CursorPosition, key: Uint8Array = processKey): string {
  const body = `${position.list}:${position.revision}:${position.offset}`;
  return `${encodeBase64urlText(body)}.${tag(body, key)}`;
}

/** The position a cursor names, or undefined when it is not a cursor this process issued for `list`. */
export function decodeCursor(cursor: unknown, list: string, key: Uint8Array = processKey): CursorPosition | undefined {
  if (typeof cursor !== 'string' || cursor.length > 256) return undefined;
  const dot = cursor.indexOf('.');
  if (dot <= 0) return undefined;
  const bytes = decodeBase64url(cursor.slice(0, dot));
  if (bytes === undefined) return undefined;
  const body = utf8Decoder.decode(bytes);
  if (tag(body, key) !== cursor.slice(dot + 1)) return undefined;
  const parts = body.split(':');
  if (parts.length !== 3 || parts[0] !== list) return undefined;
  const revision = Number(parts[1]);
  const offset = Number(parts[2]);
  if (!Number.isSafeInteger(revision) || !Number.isSafeInteger(offset) || offset < 0) return undefined;
  return { list, revision, offset };
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | undefined;
}

/** Slices one page of the list as it is at `revision`. */
export function pageOf<T>(all: readonly T[], list: string, revision: number, offset: number, pageSize: number): Page<T> {
  const end = offset + pageSize;
  return {
    items: all.slice(offset, end),
    nextCursor: end < all.length ? encodeCursor({ list, revision, offset: end }) : undefined,
  };
}
