/**
 * The MessagePack codec, framed with a 4-byte length prefix on byte streams.
 *
 * Kept behind its own import path (`rxmcp/msgpack`) so that only applications that ask for it load msgpackr.
 *
 * The codec promises the same data the JSON codec would deliver: plain objects, arrays, strings, finite
 * numbers, booleans and null. Standard msgpack can carry more than that (binary, timestamps, extension types,
 * non-string map keys, NaN), so every decoded value is checked and, where JSON has an answer, converted the
 * way a JSON round trip would convert it; anything JSON cannot express is a DecodeFailed.
 */
import { Packr, Unpackr, type Options } from 'msgpackr';
import { LocalError } from '../errors.ts';
import type { WirePayload } from '../jsonrpc.ts';
import type { Codec } from './codec.ts';

// `skipValues` exists at runtime in msgpackr 2 but is missing from its typings.
const packOptions: Options & { readonly skipValues: readonly unknown[] } = {
  // Records are a msgpackr-only extension; plain maps keep the output readable by any msgpack library.
  useRecords: false,
  // Mirror JSON.stringify: object members whose value is undefined are left out...
  skipValues: [undefined],
  // ...and undefined elsewhere (array slots) becomes null.
  encodeUndefinedAsNil: true,
};

const packer = new Packr(packOptions);

const unpacker = new Unpackr({
  useRecords: false,
  // Maps come back as Map so that every key is seen as sent: msgpackr's object mode renames a "__proto__"
  // key (JSON.parse keeps it as an own property) and quietly stringifies non-string keys.
  mapsAsObjects: false,
  // 64-bit integers become numbers, losing precision past 2^53 exactly as JSON.parse does.
  int64AsType: 'number',
});

/** Thrown inside the walk when a value has no JSON meaning; turned into DecodeFailed at the top. */
class NotJsonData extends Error {}

/** Converts one decoded value into JSON data, in place where the decoder handed us a fresh container. */
function toJsonData(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON.stringify writes NaN and the infinities as null.
      return Number.isFinite(value) ? value : null;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return arrayToJson(value);
      if (value instanceof Map) return mapToJson(value);
      // msgpackr writes a Date as a timestamp extension instead of calling its toJSON.
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
      throw new NotJsonData(`${Object.prototype.toString.call(value)} is not JSON data`);
    default:
      throw new NotJsonData(`a ${typeof value} is not JSON data`);
  }
}

function arrayToJson(items: unknown[]): unknown[] {
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    items[index] = item === undefined ? null : toJsonData(item);
  }
  return items;
}

function mapToJson(map: Map<unknown, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, item] of map) {
    if (item === undefined) continue;
    let name: string;
    if (typeof key === 'string') name = key;
    else if (typeof key === 'number') name = String(key);
    else throw new NotJsonData(`a ${typeof key} map key is not a JSON member name`);
    const converted = toJsonData(item);
    if (name === '__proto__') {
      // Plain assignment would replace the prototype; JSON.parse makes an ordinary own property instead.
      Object.defineProperty(result, name, { value: converted, writable: true, enumerable: true, configurable: true });
    } else {
      result[name] = converted;
    }
  }
  return result;
}

export const msgpackCodec: Codec = Object.freeze({
  name: 'msgpack',
  contentType: 'application/msgpack',
  // Any byte may occur inside msgpack data, so byte streams need a length prefix.
  selfDelimiting: false,

  encode(payload: WirePayload): Uint8Array {
    return packer.pack(payload);
  },

  decode(bytes: Uint8Array, maxBytes: number): unknown {
    if (bytes.byteLength > maxBytes) {
      throw new LocalError('FrameTooLarge', `a ${bytes.byteLength}-byte frame exceeds the frame limit of ${maxBytes} bytes (maxMessageBytes)`);
    }
    let raw: unknown;
    try {
      raw = unpacker.unpack(bytes) as unknown;
    } catch (error) {
      throw new LocalError('DecodeFailed', `malformed msgpack in a ${bytes.byteLength}-byte frame`, { cause: error });
    }
    // JSON has no top-level undefined (msgpackr's reading of the 0xd4 0x00 extension).
    if (raw === undefined) throw new LocalError('DecodeFailed', 'the msgpack frame holds undefined, which is not JSON data');
    try {
      return toJsonData(raw);
    } catch (error) {
      const reason = error instanceof NotJsonData ? error.message : 'the value is not JSON data';
      throw new LocalError('DecodeFailed', `the msgpack frame does not hold JSON data: ${reason}`, { cause: error });
    }
  },
});
