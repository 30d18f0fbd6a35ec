/**
 * Sealed `requestState` for MCP 2026-07-28 input-required retries.
 *
 * A server that answers `tools/call` (and similar) with an `InputRequiredResult` may hand the client an opaque
 * `requestState` string; the client sends it back, unchanged, when it retries. Two facts shape this module:
 *
 * - The retry may land on a different server process (a load balancer, a restart), so the state has to carry
 *   what the server needs to continue, and every process that holds the key must be able to check it. No
 *   shared store is needed.
 * - The string comes back from the client, so it is attacker-controlled. It is authenticated with
 *   HMAC-SHA256 and bound to what it was issued for (`purpose`, for example `tools/call\u0000<tool name>`)
 *   and to whom (`principal`), so a forged, edited, expired or transplanted state is refused.
 *
 * What it does not do: it does not encrypt (the payload is base64url JSON the client can read, so never put a
 * secret in it), and it does not make a state single-use (a state can be replayed, by the same principal, for
 * the same purpose, until it expires). A server that needs single use can record {@link OpenedState.nonce}.
 *
 * Token layout (ASCII, URL-safe, `.`-separated):
 *
 *     rxs1 . <key id> . <body> . <tag>
 *
 * - `rxs1`: format version, so a later format can be told apart instead of failing the MAC.
 * - key id: base64url of the first 4 bytes of HMAC-SHA256(key, "rxmcp/request-state/key-id"), so the opener
 *   picks the right key directly during a rotation instead of trying each one.
 * - body: base64url of the UTF-8 JSON envelope `{ payload, exp, iat, nonce }` (times in clock milliseconds).
 * - tag: base64url of HMAC-SHA256(key, MAC_LABEL + JSON.stringify([principal ?? null, purpose]) + "\n" +
 *   "rxs1.<key id>.<body>"). The binding is part of the MAC input only; it is never stored in the token.
 *
 * Pure: Web Crypto randomness, HMAC-SHA256 from core/crypto (the same bytes node:crypto computes, so tokens
 * verify across versions and runtimes that share a key) and the injected clock only.
 */
import { decodeBase64url, encodeBase64url, encodeBase64urlText } from './bytes.ts';
import { HmacSha256Key, constantTimeEqual } from './crypto/hmac.ts';
import { randomBase64url, randomBytes } from './crypto/random.ts';
import { systemClock, type Clock } from './clock.ts';
import { LocalError } from './errors.ts';
import type { JsonObject } from './jsonrpc.ts';
import { isJsonObject } from './protocol/guards.ts';

/** What the state was issued for, and to whom. Both are supplied by the server on seal and on open. */
export interface StateBinding {
  /** The authenticated caller. Absent (or undefined) means anonymous, which is distinct from `''`. */
  readonly principal?: string | undefined;
  /** What the state continues, for example `tools/call\u0000<tool name>`. Non-empty. */
  readonly purpose: string;
}

export type StateRefusal = 'malformed' | 'bad-signature' | 'expired' | 'too-large';

export interface OpenedState {
  readonly ok: true;
  /** The payload as sealed (after a JSON round trip). Authentic, but its shape is the sealing server's. */
  readonly payload: JsonObject;
  /** Random per seal: record it if a state must be usable only once. */
  readonly nonce: string;
  /** Clock milliseconds after which the state is refused. */
  readonly expiresAt: number;
}

export type OpenResult = OpenedState | { readonly ok: false; readonly reason: StateRefusal };

export interface StateSealerOptions {
  /**
   * Secret keys, each at least 32 bytes (strings count as UTF-8). The first seals; all are accepted when
   * opening, so a new key can be put first while states sealed with the old one are still in flight.
   */
  readonly keys: readonly (string | Uint8Array)[];
  /** How long a sealed state stays valid. Default 10 minutes. */
  readonly ttlMs?: number;
  /** Only `now()` is used. Default {@link systemClock}. */
  readonly clock?: Pick<Clock, 'now'>;
  /** Largest sealed token, in bytes (the token is ASCII). Default 64 KiB. */
  readonly maxBytes?: number;
}

export interface StateSealer {
  /** Seals `payload` for `binding`. Throws a {@link LocalError} if the token would exceed `maxBytes`. */
  seal(payload: JsonObject, binding: StateBinding): string;
  /** Checks a token the client sent back. Never throws on the token, whatever it is. */
  open(token: unknown, binding: StateBinding): OpenResult;
}

const VERSION = 'rxs1';
const KEY_ID_LABEL = 'rxmcp/request-state/key-id';
// Domain separation: a tag made here can never be mistaken for an HMAC the same key makes for anything else.
const MAC_LABEL = 'rxmcp/request-state/v1\n';
const MIN_KEY_BYTES = 32;
const TAG_BYTES = 32;
// base64url of 32 bytes, unpadded.
const TAG_CHARS = 43;
const NONCE_BYTES = 16;
const DEFAULT_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_BYTES = 64 * 1024;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const utf8Encoder = new TextEncoder();
// fatal: a body that is not UTF-8 is refused, not silently repaired.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** 32 random bytes: the key for a single-process server that was not given one (states die with the process). */
export function randomStateKey(): Uint8Array {
  return randomBytes(MIN_KEY_BYTES);
}

interface SealingKey {
  readonly id: string;
  readonly key: HmacSha256Key;
}

/**
 * Creates a sealer. Validates its options eagerly (a short key is a RangeError here, not a weak token later).
 *
 * @example
 * ```ts
 * import { createStateSealer, randomStateKey } from './request-state.ts';
 *
 * const sealer = createStateSealer({ keys: [randomStateKey()] });
 * const binding = { principal: 'user-42', purpose: 'tools/call\u0000deploy' };
 * const requestState = sealer.seal({ step: 2 }, binding);
 * const opened = sealer.open(requestState, binding);
 * if (opened.ok) console.log(opened.payload['step']);
 * ```
 */
export function createStateSealer(options: StateSealerOptions): StateSealer {
  const keys = importKeys(options.keys);
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new RangeError(`ttlMs must be a positive finite number, got ${ttlMs}`);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0)) throw new RangeError(`maxBytes must be a positive integer, got ${maxBytes}`);
  const clock = options.clock ?? systemClock;
  // importKeys refuses an empty list, so the first key exists.
  const sealingKey = keys[0] as SealingKey;

  // Several keys may share an id (the same key listed twice, or a 32-bit collision): keep them all.
  const byId = new Map<string, HmacSha256Key[]>();
  for (const { id, key } of keys) byId.set(id, [...(byId.get(id) ?? []), key]);

  return {
    seal(payload, binding) {
      const bound = bindingText(binding);
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new TypeError('the requestState payload must be a JSON object');
      }
      const iat = clock.now();
      const envelope = { payload, exp: iat + ttlMs, iat, nonce: randomBase64url(NONCE_BYTES) };
      const signed = `${VERSION}.${sealingKey.id}.${encodeBase64urlText(JSON.stringify(envelope))}`;
      // The tag has a fixed length, so the final size is known before spending an HMAC on it.
      const size = signed.length + 1 + TAG_CHARS;
      if (size > maxBytes) {
        throw new LocalError('FrameTooLarge', `the sealed requestState would be ${size} bytes, over the ${maxBytes}-byte limit; keep less in it`);
      }
      return `${signed}.${encodeBase64url(mac(sealingKey.key, bound, signed))}`;
    },

    open(token, binding) {
      const bound = bindingText(binding);
      if (typeof token !== 'string') return refuse('malformed');
      // Checked first, on the length alone: an oversized token costs no decoding and no crypto.
      if (token.length > maxBytes) return refuse('too-large');
      const parts = token.split('.');
      if (parts.length !== 4) return refuse('malformed');
      const [version, keyId, body, tagText] = parts as [string, string, string, string];
      if (version !== VERSION) return refuse('malformed');
      if (!BASE64URL.test(keyId) || !BASE64URL.test(body)) return refuse('malformed');
      const tag = decodeBase64url(tagText);
      if (tag === undefined || tag.length !== TAG_BYTES) return refuse('malformed');

      const candidates = byId.get(keyId);
      if (candidates === undefined) return refuse('bad-signature');
      const signed = token.slice(0, token.length - tagText.length - 1);
      // Every candidate is checked (no early exit) so the time taken does not depend on which one matched.
      let authentic = false;
      for (const key of candidates) authentic = constantTimeEqual(mac(key, bound, signed), tag) || authentic;
      if (!authentic) return refuse('bad-signature');

      // Authentic from here on, so these checks only catch a sealer bug or a format change, never an attacker.
      const envelope = parseEnvelope(body);
      if (envelope === undefined) return refuse('malformed');
      if (clock.now() >= envelope.exp) return refuse('expired');
      return { ok: true, payload: envelope.payload, nonce: envelope.nonce, expiresAt: envelope.exp };
    },
  };
}

function importKeys(keys: readonly (string | Uint8Array)[]): SealingKey[] {
  if (!Array.isArray(keys) || keys.length === 0) throw new RangeError('a state sealer needs at least one key');
  return keys.map((key, index) => {
    let bytes: Uint8Array;
    if (typeof key === 'string') bytes = utf8Encoder.encode(key);
    else if (key instanceof Uint8Array) bytes = key.slice(); // a copy: later changes to the caller's array do not reach us
    else throw new TypeError(`key ${index} must be a string or a Uint8Array`);
    if (bytes.length < MIN_KEY_BYTES) {
      throw new RangeError(`key ${index} is ${bytes.length} bytes; request-state keys need at least ${MIN_KEY_BYTES}`);
    }
    // The prepared key keeps only the HMAC pad states, not the key: do not leave our copy lying in the heap.
    const secret = new HmacSha256Key(bytes);
    bytes.fill(0);
    const id = encodeBase64url(secret.mac(KEY_ID_LABEL).subarray(0, 4));
    return { id, key: secret };
  });
}

/**
 * The binding as MAC input. A JSON array is self-delimiting, so no choice of principal and purpose can be
 * confused with another, and `null` keeps "anonymous" apart from an empty principal.
 */
function bindingText(binding: StateBinding): string {
  const { principal, purpose } = binding;
  if (typeof purpose !== 'string' || purpose.length === 0) throw new TypeError('binding.purpose must be a non-empty string');
  if (principal !== undefined && typeof principal !== 'string') throw new TypeError('binding.principal must be a string when present');
  return JSON.stringify([principal ?? null, purpose]);
}

function mac(key: HmacSha256Key, bound: string, signed: string): Uint8Array {
  return key.mac(MAC_LABEL, bound, '\n', signed);
}

interface Envelope {
  readonly payload: JsonObject;
  readonly exp: number;
  readonly nonce: string;
}

function parseEnvelope(body: string): Envelope | undefined {
  // decodeBase64url refuses non-canonical spellings, so no two bodies decode alike.
  const bytes = decodeBase64url(body);
  if (bytes === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(strictUtf8.decode(bytes));
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const { payload, exp, nonce } = value;
  if (!isJsonObject(payload) || typeof exp !== 'number' || !Number.isFinite(exp) || typeof nonce !== 'string') return undefined;
  return { payload, exp, nonce };
}

function refuse(reason: StateRefusal): OpenResult {
  return { ok: false, reason };
}
