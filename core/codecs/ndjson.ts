/**
 * NDJSON stream decoding: one frame per line, `\n` terminated, an optional `\r` before it, empty lines skipped.
 *
 * Lines are found by byte (0x0A never occurs inside a multi-byte UTF-8 sequence), so characters split across
 * chunks need no special care: each complete line's bytes are decoded at once. Lines wholly inside a chunk are
 * decoded straight from that chunk; only the unterminated tail of a chunk is copied, into one carry buffer,
 * and new chunks are scanned from their own start, so no byte is scanned twice.
 */
import type { Codec, DecodedItem, StreamDecoder } from './codec.ts';
import { asBuffer, decodeInto, frameTooLarge } from './frame-items.ts';

const LF = 0x0a;
const CR = 0x0d;
/** Past this size an idle carry buffer is dropped rather than kept for reuse, so one big line does not pin memory. */
const RETAINED_CARRY_BYTES = 64 * 1024;
const INITIAL_CARRY_BYTES = 1024;

export function createNdjsonDecoder(codec: Codec, maxFrameBytes: number): StreamDecoder {
  // A held partial line may reach maxFrameBytes + 1: its last byte could be the `\r` of a `\r\n` that is
  // still to come, and that byte does not count against the limit.
  const holdLimit = maxFrameBytes + 1;
  let carry: Buffer | undefined;
  let held = 0;
  // Set once a line is known to be too large; its remaining bytes are dropped up to the next newline.
  let discarding = false;

  function startDiscarding(sink: (item: DecodedItem) => void): void {
    releaseCarry();
    discarding = true;
    sink(frameTooLarge(maxFrameBytes, 'a line'));
  }

  function append(source: Buffer, start: number, end: number): void {
    const needed = held + (end - start);
    if (carry === undefined || carry.length < needed) {
      const grown = Buffer.allocUnsafe(Math.min(holdLimit, Math.max(needed, INITIAL_CARRY_BYTES, (carry?.length ?? 0) * 2)));
      if (carry !== undefined) carry.copy(grown, 0, 0, held);
      carry = grown;
    }
    source.copy(carry, held, start, end);
    held = needed;
  }

  function releaseCarry(): void {
    held = 0;
    if (carry !== undefined && carry.length > RETAINED_CARRY_BYTES) carry = undefined;
  }

  /** Emits the frame in `source[start, end)`, a complete line without its `\n`. */
  function emitLine(source: Buffer, start: number, end: number, sink: (item: DecodedItem) => void): void {
    const stop = end > start && source[end - 1] === CR ? end - 1 : end;
    if (stop === start) return;
    if (stop - start > maxFrameBytes) {
      sink(frameTooLarge(maxFrameBytes, `a ${stop - start}-byte line`));
      return;
    }
    decodeInto(codec, source.subarray(start, stop), maxFrameBytes, sink);
  }

  /** Completes the held partial line with `source[start, end)` and emits it. */
  function completeHeld(source: Buffer, start: number, end: number, sink: (item: DecodedItem) => void): void {
    if (held + (end - start) > holdLimit) {
      // Too long even if it ends in `\r`: report it without copying the rest in.
      const total = held + (end - start);
      releaseCarry();
      sink(frameTooLarge(maxFrameBytes, `a ${total}-byte line`));
      return;
    }
    append(source, start, end);
    emitHeld(sink);
  }

  /** Emits the held bytes as one line, resetting first so a throwing sink leaves a clean line boundary. */
  function emitHeld(sink: (item: DecodedItem) => void): void {
    const line = carry;
    const length = held;
    releaseCarry();
    if (line !== undefined && length > 0) emitLine(line, 0, length, sink);
  }

  return {
    push(chunk, sink) {
      const bytes = asBuffer(chunk);
      let start = 0;
      while (start < bytes.length) {
        const newline = bytes.indexOf(LF, start);
        if (newline === -1) {
          if (discarding) return;
          if (held + (bytes.length - start) > holdLimit) {
            startDiscarding(sink);
            return;
          }
          append(bytes, start, bytes.length);
          return;
        }
        const lineStart = start;
        start = newline + 1;
        if (discarding) {
          discarding = false;
        } else if (held === 0) {
          emitLine(bytes, lineStart, newline, sink);
        } else {
          completeHeld(bytes, lineStart, newline, sink);
        }
      }
    },

    end(sink) {
      // A line being discarded was reported already; an unterminated last line still counts as a frame.
      const wasDiscarding = discarding;
      discarding = false;
      if (wasDiscarding) releaseCarry();
      else emitHeld(sink);
    },

    get buffered() {
      return held;
    },
  };
}
