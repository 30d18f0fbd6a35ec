/**
 * The codec contract, and the framing that carries codec output over byte streams (stdio, TCP).
 *
 * A codec turns one payload into one frame body and back; it knows nothing about streams. Framing is chosen
 * by {@link Codec.selfDelimiting}: a self-delimiting codec (JSON) is framed as NDJSON, one message per line;
 * any other (msgpack, whose bytes may contain any value) gets a 4-byte big-endian length prefix.
 * Message-oriented transports (HTTP bodies, NATS messages) use `encode`/`decode` directly and skip framing.
 * The framing functions live in framing.ts; this module holds only the contract, so every codec and framer can
 * depend on it without a cycle.
 */
import type { LocalError } from '../errors.ts';
import type { WirePayload } from '../jsonrpc.ts';

export interface Codec {
  /** 'json' | 'msgpack'. */
  readonly name: string;
  /** 'application/json' | 'application/msgpack'. */
  readonly contentType: string;
  /** Whether encoded frames delimit themselves on a byte stream (NDJSON: yes, one message per line). */
  readonly selfDelimiting: boolean;
  /** One frame body, without framing bytes. Throws on values the format cannot carry (cycles, bigints). */
  encode(payload: WirePayload): Uint8Array;
  /**
   * Decodes one frame body into plain JSON-compatible data. Throws `LocalError('FrameTooLarge')` when
   * `bytes` is longer than `maxBytes`, and `LocalError('DecodeFailed', ..., { cause })` on malformed input.
   */
  decode(bytes: Uint8Array, maxBytes: number): unknown;
}

/** One outcome of stream decoding: a decoded value, or the error for one bad frame (decoding goes on). */
export type DecodedItem =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: LocalError };

/**
 * Incremental decoder for one byte stream. Feed it chunks as they arrive; it calls `sink` once per frame,
 * in stream order. The sink must not throw: an exception propagates out of `push` and the rest of that
 * chunk is lost.
 */
export interface StreamDecoder {
  push(chunk: Uint8Array, sink: (item: DecodedItem) => void): void;
  /** The stream ended: deliver or report what is left over, then reset to an empty state. */
  end(sink: (item: DecodedItem) => void): void;
  /** Bytes currently held for an incomplete frame. Never much more than the frame limit. */
  readonly buffered: number;
}
