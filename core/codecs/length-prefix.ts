/**
 * Length-prefixed stream decoding: each frame is a 4-byte big-endian body length, then the body.
 *
 * The prefix announces the size up front, so an oversized frame is rejected before any of its body arrives
 * and its bytes are counted off as they pass, never held. A body wholly inside one chunk is decoded in place;
 * one that spans chunks is copied once into a buffer of exactly its announced size.
 */
import { LocalError } from '../errors.ts';
import type { Codec, DecodedItem, StreamDecoder } from './codec.ts';
import { asBuffer, decodeInto, frameTooLarge } from './frame-items.ts';

export const LENGTH_PREFIX_BYTES = 4;

/** No frame is being read: the next bytes are a length prefix. */
const AWAITING_HEADER = -1;

export function createLengthPrefixDecoder(codec: Codec, maxFrameBytes: number): StreamDecoder {
  const header = Buffer.alloc(LENGTH_PREFIX_BYTES);
  let headerFill = 0;
  // Announced body length of the frame being read, or AWAITING_HEADER.
  let bodyLength = AWAITING_HEADER;
  let body: Buffer | undefined;
  let bodyFill = 0;
  // Bytes of an oversized frame still to be dropped.
  let skip = 0;

  /** Reads a length prefix starting at `pos`; returns the new position, with `bodyLength` set if complete. */
  function readHeader(bytes: Buffer, pos: number, sink: (item: DecodedItem) => void): number {
    let size: number;
    if (headerFill === 0 && bytes.length - pos >= LENGTH_PREFIX_BYTES) {
      size = bytes.readUInt32BE(pos);
      pos += LENGTH_PREFIX_BYTES;
    } else {
      const take = Math.min(LENGTH_PREFIX_BYTES - headerFill, bytes.length - pos);
      bytes.copy(header, headerFill, pos, pos + take);
      headerFill += take;
      pos += take;
      if (headerFill < LENGTH_PREFIX_BYTES) return pos;
      headerFill = 0;
      size = header.readUInt32BE(0);
    }
    if (size > maxFrameBytes) {
      skip = size;
      sink(frameTooLarge(maxFrameBytes, `a ${size}-byte frame`));
    } else if (size === 0) {
      // Complete with its header, even at the very end of a chunk; the codec decides what an empty body means.
      decodeInto(codec, bytes.subarray(pos, pos), maxFrameBytes, sink);
    } else {
      bodyLength = size;
    }
    return pos;
  }

  /** Reads body bytes starting at `pos` and emits the frame once complete; returns the new position. */
  function readBody(bytes: Buffer, pos: number, sink: (item: DecodedItem) => void): number {
    const length = bodyLength;
    if (bodyFill === 0 && bytes.length - pos >= length) {
      bodyLength = AWAITING_HEADER;
      decodeInto(codec, bytes.subarray(pos, pos + length), maxFrameBytes, sink);
      return pos + length;
    }
    body ??= Buffer.allocUnsafe(length);
    const take = Math.min(length - bodyFill, bytes.length - pos);
    bytes.copy(body, bodyFill, pos, pos + take);
    bodyFill += take;
    if (bodyFill === length) {
      const frame = body;
      body = undefined;
      bodyFill = 0;
      bodyLength = AWAITING_HEADER;
      decodeInto(codec, frame, maxFrameBytes, sink);
    }
    return pos + take;
  }

  function reset(): void {
    headerFill = 0;
    bodyLength = AWAITING_HEADER;
    body = undefined;
    bodyFill = 0;
    skip = 0;
  }

  return {
    push(chunk, sink) {
      const bytes = asBuffer(chunk);
      let pos = 0;
      while (pos < bytes.length) {
        if (skip > 0) {
          const drop = Math.min(skip, bytes.length - pos);
          skip -= drop;
          pos += drop;
          continue;
        }
        if (bodyLength === AWAITING_HEADER) {
          pos = readHeader(bytes, pos, sink);
        } else {
          pos = readBody(bytes, pos, sink);
        }
      }
    },

    end(sink) {
      // An oversized frame cut short was reported already; any other partial frame is reported now.
      const partial = skip === 0 && (headerFill > 0 || bodyLength !== AWAITING_HEADER);
      const detail =
        bodyLength === AWAITING_HEADER
          ? `${headerFill} of ${LENGTH_PREFIX_BYTES} length-prefix bytes`
          : `${bodyFill} of ${bodyLength} body bytes`;
      reset();
      if (partial) {
        sink({ ok: false, error: new LocalError('DecodeFailed', `the stream ended inside a ${codec.name} frame (${detail})`) });
      }
    },

    get buffered() {
      return headerFill + bodyFill;
    },
  };
}
