/**
 * base64url (RFC 4648 section 5, unpadded) and UTF-8 bytes without importing anything from Node, so the core
 * runs in browsers, Deno, Bun and edge workers as in Node.
 *
 * Cursors and request states are encoded and checked on the request path, so each runtime's fastest native
 * codec is used, found by feature detection when this module loads: the standard
 * `Uint8Array.prototype.toBase64` / `Uint8Array.fromBase64` (ES2026: current browsers, newer Node and Deno),
 * else a global `Buffer` where the runtime has one (Node 20 and 22, Bun), else a table codec in plain
 * JavaScript. (`btoa`/`atob` exist everywhere but are slower than all three on Node 20.) The same goes for
 * UTF-8: `TextEncoder` costs a native call that dominates for the short strings signed here on Node 20.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ALPHABET_ONLY = /^[A-Za-z0-9_-]*$/;
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

interface NativeBase64 {
  toBase64?: (this: Uint8Array, options: { alphabet: 'base64url'; omitPadding: boolean }) => string;
}
interface NativeBase64Constructor {
  fromBase64?: (text: string, options: { alphabet: 'base64url'; lastChunkHandling: 'strict' | 'loose' }) => Uint8Array;
}

/** The part of Node's and Bun's Buffer used here (a Uint8Array with a fast base64url codec). */
interface RuntimeBuffer {
  isBuffer(value: unknown): boolean;
  from(text: string, encoding: 'utf8' | 'base64url'): Uint8Array & { toString(encoding: 'base64url' | 'utf8'): string };
  from(bytes: ArrayBufferLike, byteOffset: number, length: number): Uint8Array & { toString(encoding: 'base64url' | 'utf8'): string };
}

const nativeEncode = (Uint8Array.prototype as NativeBase64).toBase64;
const nativeDecode = (Uint8Array as NativeBase64Constructor).fromBase64;
const runtimeBuffer = (globalThis as { readonly Buffer?: RuntimeBuffer }).Buffer;
const utf8Encoder = new TextEncoder();

/** The UTF-8 bytes of `text`. */
export const utf8Bytes: (text: string) => Uint8Array =
  runtimeBuffer === undefined ? (text) => utf8Encoder.encode(text) : (text) => runtimeBuffer.from(text, 'utf8');

const utf8Decoder = new TextDecoder();

/** The text of UTF-8 `bytes`; invalid sequences become U+FFFD. */
export function utf8Text(bytes: Uint8Array): string {
  if (runtimeBuffer === undefined) return utf8Decoder.decode(bytes);
  // A Buffer is decoded as it is; any other Uint8Array is viewed as one, without copying.
  const view = runtimeBuffer.isBuffer(bytes) ? (bytes as ReturnType<RuntimeBuffer['from']>) : runtimeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.toString('utf8');
}

/** Unpadded base64url of `bytes`. */
export function encodeBase64url(bytes: Uint8Array): string {
  if (nativeEncode !== undefined) return nativeEncode.call(bytes, { alphabet: 'base64url', omitPadding: true });
  if (runtimeBuffer !== undefined) return runtimeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  return tableEncode(bytes);
}

/** The plain JavaScript encoder, for runtimes with neither native codec (exported for its spec). */
export function tableEncode(bytes: Uint8Array): string {
  let text = '';
  const whole = bytes.length - (bytes.length % 3);
  let i = 0;
  for (; i < whole; i += 3) {
    const triple = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    text += ALPHABET[triple >>> 18]! + ALPHABET[(triple >>> 12) & 63]! + ALPHABET[(triple >>> 6) & 63]! + ALPHABET[triple & 63]!;
  }
  const rest = bytes.length - whole;
  if (rest === 1) {
    const single = bytes[i] as number;
    text += ALPHABET[single >>> 2]! + ALPHABET[(single & 3) << 4]!;
  } else if (rest === 2) {
    const pair = ((bytes[i] as number) << 8) | (bytes[i + 1] as number);
    text += ALPHABET[pair >>> 10]! + ALPHABET[(pair >>> 4) & 63]! + ALPHABET[(pair & 15) << 2]!;
  }
  return text;
}

/** Unpadded base64url of the UTF-8 bytes of `text`. */
export function encodeBase64urlText(text: string): string {
  return encodeBase64url(utf8Bytes(text));
}

/**
 * The bytes of a canonical unpadded base64url string, or undefined for anything else: characters outside the
 * alphabet, padding, an impossible length, or unused low bits set in the last character. Refusing the
 * non-canonical spellings matters for MACs: otherwise several strings would decode to the same valid tag.
 */
export function decodeBase64url(text: string): Uint8Array | undefined {
  const tail = text.length % 4;
  if (tail === 1) return undefined;
  if (nativeDecode !== undefined) {
    // The native decoder skips ASCII whitespace and takes padding: both are refused here first. Padding is
    // then added so that 'strict' can refuse set unused bits in the last chunk.
    if (!ALPHABET_ONLY.test(text)) return undefined;
    try {
      return nativeDecode(tail === 0 ? text : text + (tail === 2 ? '==' : '='), { alphabet: 'base64url', lastChunkHandling: 'strict' });
    } catch {
      return undefined;
    }
  }
  if (runtimeBuffer !== undefined) {
    // Buffer's decoder skips characters outside the alphabet and ignores set unused bits: re-encoding and
    // comparing refuses every non-canonical spelling at once.
    const bytes = runtimeBuffer.from(text, 'base64url');
    return bytes.toString('base64url') === text ? bytes : undefined;
  }
  return tableDecode(text);
}

/** The plain JavaScript decoder, as strict as the others (exported for its spec). */
export function tableDecode(text: string): Uint8Array | undefined {
  const tail = text.length % 4;
  if (tail === 1) return undefined;
  const bytes = new Uint8Array(((text.length - tail) / 4) * 3 + (tail === 0 ? 0 : tail - 1));
  const whole = text.length - tail;
  let at = 0;
  for (let i = 0; i < whole; i += 4) {
    const quad = (sextet(text, i) << 18) | (sextet(text, i + 1) << 12) | (sextet(text, i + 2) << 6) | sextet(text, i + 3);
    if (quad < 0) return undefined;
    bytes[at++] = quad >>> 16;
    bytes[at++] = (quad >>> 8) & 255;
    bytes[at++] = quad & 255;
  }
  if (tail === 2) {
    const pair = (sextet(text, whole) << 6) | sextet(text, whole + 1);
    if (pair < 0 || (pair & 15) !== 0) return undefined;
    bytes[at] = pair >>> 4;
  } else if (tail === 3) {
    const triple = (sextet(text, whole) << 12) | (sextet(text, whole + 1) << 6) | sextet(text, whole + 2);
    if (triple < 0 || (triple & 3) !== 0) return undefined;
    bytes[at++] = triple >>> 10;
    bytes[at] = (triple >>> 2) & 255;
  }
  return bytes;
}

/** The value of one character, or -1 if it is none: shifted and combined, a -1 keeps the sign bit set. */
function sextet(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (VALUES[code] as number) : -1;
}
