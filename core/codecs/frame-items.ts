/**
 * Small pieces shared by the two stream framings: turning one frame into one {@link DecodedItem}.
 */
import { LocalError } from '../errors.ts';
import type { Codec, DecodedItem } from './codec.ts';

/** Views any Uint8Array as a Buffer without copying, so Buffer's fast indexOf/toString/copy apply. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function frameTooLarge(maxFrameBytes: number, detail: string): DecodedItem {
  return { ok: false, error: new LocalError('FrameTooLarge', `${detail} exceeds the frame limit of ${maxFrameBytes} bytes (maxMessageBytes)`) };
}

/**
 * Decodes one frame and hands the outcome to `sink`. Decoding errors become items; the sink is called
 * outside the try so that its own exceptions are not mistaken for bad input.
 */
export function decodeInto(codec: Codec, frame: Uint8Array, maxFrameBytes: number, sink: (item: DecodedItem) => void): void {
  let item: DecodedItem;
  try {
    item = { ok: true, value: codec.decode(frame, maxFrameBytes) };
  } catch (error) {
    item = { ok: false, error: toDecodeError(codec, error) };
  }
  sink(item);
}

/** Codecs should throw LocalError already; anything else is still a frame we could not read. */
function toDecodeError(codec: Codec, error: unknown): LocalError {
  if (error instanceof LocalError) return error;
  return new LocalError('DecodeFailed', `${codec.name} frame could not be decoded`, { cause: error });
}
