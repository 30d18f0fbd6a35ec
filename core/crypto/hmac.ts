/**
 * Synchronous SHA-256 and HMAC-SHA256 for the core, without node:crypto.
 *
 * Web Crypto's `crypto.subtle` is async only, and cursors and request states are signed and checked inside
 * synchronous code on the request path, so the hashing comes from @noble/hashes (audited, no dependencies,
 * runs unchanged in every JavaScript runtime). The output is the standard HMAC-SHA256, byte for byte what
 * node:crypto computes, so tokens signed before this change still verify with the same key.
 */
import { type _HMAC, hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { utf8Bytes } from '../bytes.ts';

const MAC_BYTES = 32;
type Keyed = _HMAC<ReturnType<typeof nobleSha256.create>>;

/**
 * An HMAC-SHA256 key, prepared once: the key's inner and outer pads are absorbed up front and each MAC clones
 * that state, so a MAC costs the message's blocks and two finishing blocks, not the key's too. The prepared
 * state does not keep the raw key bytes.
 */
export class HmacSha256Key {
  private readonly keyed: Keyed;
  /** Reused for every MAC (the code is synchronous, so one MAC never interleaves with another). */
  private readonly scratch: Keyed;

  constructor(key: Uint8Array) {
    this.keyed = hmac.create(nobleSha256, key);
    this.scratch = this.keyed.clone();
  }

  /** HMAC-SHA256 over the UTF-8 bytes of the parts, concatenated (each part is one `update`). A fresh array. */
  mac(...parts: readonly string[]): Uint8Array {
    // _cloneInto copies the keyed state into the scratch's own buffers: no allocation per MAC, unlike clone().
    const state = this.keyed._cloneInto(this.scratch);
    for (const part of parts) state.update(utf8Bytes(part));
    const out = new Uint8Array(MAC_BYTES);
    state.digestInto(out);
    return out;
  }
}

/** SHA-256 of the UTF-8 bytes of `text`. */
export function sha256(text: string): Uint8Array {
  return nobleSha256(utf8Bytes(text));
}

/** SHA-256 of `bytes`. */
export function sha256Bytes(bytes: Uint8Array): Uint8Array {
  return nobleSha256(bytes);
}

/**
 * Compares two byte arrays in time that depends only on their lengths (lengths are public here: tags have a
 * fixed size), so a forger learns nothing from how long a refusal took.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}
