/**
 * The JSON codec: UTF-8 JSON text, framed as NDJSON on byte streams.
 */
import { LocalError } from '../errors.ts';
import type { WirePayload } from '../jsonrpc.ts';
import type { Codec } from './codec.ts';
import { utf8Bytes, utf8Text } from '../bytes.ts';
import { parseJsonMessage } from './json-known-meta.ts';
import { encodeWithKnownMeta } from './json-text.ts';

export const jsonCodec: Codec = Object.freeze({
  name: 'json',
  contentType: 'application/json',
  // JSON.stringify escapes control characters inside strings and adds no whitespace, so an encoded message
  // never contains a raw newline and one line holds exactly one message.
  selfDelimiting: true,

  encode(payload: WirePayload): Uint8Array {
    // A modern message's repeated `_meta` (the client's envelope, the server's info) is written from its known text.
    const text: string | undefined = encodeWithKnownMeta(payload) ?? JSON.stringify(payload);
    // JSON.stringify returns undefined (not a string) for values JSON cannot represent at the top level.
    if (text === undefined) throw new TypeError('the payload has no JSON representation');
    return utf8Bytes(text);
  },

  decode(bytes: Uint8Array, maxBytes: number): unknown {
    if (bytes.byteLength > maxBytes) {
      throw new LocalError('FrameTooLarge', `a ${bytes.byteLength}-byte frame exceeds the frame limit of ${maxBytes} bytes (maxMessageBytes)`);
    }
    // Invalid UTF-8 becomes U+FFFD rather than an error, as with every lenient JSON reader; the JSON
    // grammar is still checked in full by JSON.parse.
    const text = utf8Text(bytes);
    try {
      // A modern message's repeated `_meta` text, seen before, is not parsed again.
      return parseJsonMessage(text);
    } catch (error) {
      throw new LocalError('DecodeFailed', `malformed JSON in a ${bytes.byteLength}-byte frame`, { cause: error });
    }
  },
});
