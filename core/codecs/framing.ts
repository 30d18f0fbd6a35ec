/**
 * Framing for byte streams (stdio, TCP): NDJSON for self-delimiting codecs, a 4-byte big-endian length prefix
 * for the others.
 */
import type { WirePayload } from '../jsonrpc.ts';
import type { Codec, StreamDecoder } from './codec.ts';
import { createLengthPrefixDecoder, LENGTH_PREFIX_BYTES } from './length-prefix.ts';
import { createNdjsonDecoder } from './ndjson.ts';

/**
 * A decoder for a byte stream carrying `codec` frames. Frames longer than `maxFrameBytes` are reported as
 * `FrameTooLarge` once each and skipped without being buffered; decoding then carries on.
 */
export function createStreamDecoder(codec: Codec, maxFrameBytes: number): StreamDecoder {
  if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < 0) {
    throw new RangeError(`maxFrameBytes must be a non-negative integer, got ${maxFrameBytes}`);
  }
  return codec.selfDelimiting ? createNdjsonDecoder(codec, maxFrameBytes) : createLengthPrefixDecoder(codec, maxFrameBytes);
}

const NEWLINE = 0x0a;
const MAX_LENGTH_PREFIXED = 0xffff_ffff;

/** Encodes `payload` as one frame ready to write to a byte stream (body plus its framing bytes). */
export function encodeFrame(codec: Codec, payload: WirePayload): Uint8Array {
  const body = codec.encode(payload);
  if (codec.selfDelimiting) {
    const frame = Buffer.allocUnsafe(body.byteLength + 1);
    frame.set(body, 0);
    frame[body.byteLength] = NEWLINE;
    return frame;
  }
  if (body.byteLength > MAX_LENGTH_PREFIXED) {
    throw new RangeError(`a ${body.byteLength}-byte frame does not fit a 32-bit length prefix`);
  }
  const frame = Buffer.allocUnsafe(LENGTH_PREFIX_BYTES + body.byteLength);
  frame.writeUInt32BE(body.byteLength, 0);
  frame.set(body, LENGTH_PREFIX_BYTES);
  return frame;
}
