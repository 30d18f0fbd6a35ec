/**
 * Randomness from Web Crypto (`globalThis.crypto`), present in browsers, Node 20+, Deno, Bun and edge workers.
 */
import { encodeBase64url } from '../bytes.ts';

// getRandomValues fills at most 65,536 bytes per call; every caller here asks for a few dozen.
const MAX_RANDOM_BYTES = 65_536;

/** `length` cryptographically random bytes. */
export function randomBytes(length: number): Uint8Array {
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_RANDOM_BYTES) {
    throw new RangeError(`randomBytes takes 0 to ${MAX_RANDOM_BYTES} bytes, got ${length}`);
  }
  return globalThis.crypto.getRandomValues(new Uint8Array(length));
}

/** `length` random bytes as unpadded base64url. */
export function randomBase64url(length: number): string {
  return encodeBase64url(randomBytes(length));
}

/**
 * A random (version 4) UUID. `crypto.randomUUID` exists only in secure contexts in browsers (a page served over
 * plain http from a non-loopback host has none), so it is built from `getRandomValues` there.
 */
export function randomUuid(): string {
  const native = globalThis.crypto.randomUUID as (() => string) | undefined;
  if (typeof native === 'function') return native.call(globalThis.crypto);
  const bytes = randomBytes(16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80; // RFC 9562 variant
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
