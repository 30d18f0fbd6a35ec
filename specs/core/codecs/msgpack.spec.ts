import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { msgpackCodec } from '../../../core/codecs/msgpack.ts';
import { isLocalError } from '../../../core/errors.ts';
import type { WirePayload } from '../../../core/jsonrpc.ts';
import { request } from '../../../core/jsonrpc.ts';
import { viaJson, wirePayload } from './support.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Tests feed the codec values outside the WirePayload type on purpose, to check JSON-like handling. */
function encodeLoose(value: unknown): Uint8Array {
  return msgpackCodec.encode(value as WirePayload);
}

function decodeFails(bytes: readonly number[] | Uint8Array): boolean {
  try {
    msgpackCodec.decode(Uint8Array.from(bytes), NO_LIMIT);
    return false;
  } catch (error) {
    return isLocalError(error, 'DecodeFailed');
  }
}

describe('msgpack codec', () => {
  test('msgpack codec - describes itself as length-prefixed application/msgpack', () => {
    assert.equal(msgpackCodec.name, 'msgpack');
    assert.equal(msgpackCodec.contentType, 'application/msgpack');
    assert.equal(msgpackCodec.selfDelimiting, false);
  });

  test('msgpack codec - encode then decode round-trips any JSON-RPC payload', () => {
    fc.assert(
      fc.property(wirePayload, (payload) => {
        assert.deepStrictEqual(msgpackCodec.decode(msgpackCodec.encode(payload), NO_LIMIT), viaJson(payload));
      }),
      { numRuns: 300 },
    );
  });

  test('msgpack codec - values JSON would rewrite decode as a JSON round trip leaves them', () => {
    // undefined members and slots, NaN, infinities, -0 and dates: each has a JSON answer the codec must match.
    const leaf = fc.oneof(
      fc.constant(undefined),
      fc.double(),
      fc.date(),
      fc.string({ unit: 'binary' }),
      fc.boolean(),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.object({ values: [leaf], maxDepth: 3 }), (value) => {
        assert.deepStrictEqual(msgpackCodec.decode(encodeLoose(value), NO_LIMIT), viaJson(value));
      }),
      { numRuns: 300 },
    );
  });

  test('msgpack codec - an undefined member is omitted and an undefined slot becomes null', () => {
    const decoded = msgpackCodec.decode(encodeLoose({ a: undefined, b: 1, c: [undefined, 2], d: { e: undefined } }), NO_LIMIT);
    assert.deepStrictEqual(decoded, { b: 1, c: [null, 2], d: {} });
    assert.ok(typeof decoded === 'object' && decoded !== null && !('a' in decoded));
  });

  test('msgpack codec - output is standard msgpack maps, not msgpackr records', () => {
    const bytes = msgpackCodec.encode({ jsonrpc: '2.0', method: 'ping' });
    // 0x82: a fixmap of two entries, then the fixstr "jsonrpc".
    assert.deepStrictEqual([...bytes.subarray(0, 2)], [0x82, 0xa7]);
  });

  test('msgpack codec - decoded objects are plain objects', () => {
    const decoded = msgpackCodec.decode(msgpackCodec.encode(request(7, 'tools/list', { cursor: 'x' })), NO_LIMIT);
    assert.ok(typeof decoded === 'object' && decoded !== null);
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.deepStrictEqual(decoded, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'x' } });
  });

  test('msgpack codec - a "__proto__" key stays an own member and never becomes the prototype', () => {
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as unknown;
    const decoded = msgpackCodec.decode(encodeLoose(hostile), NO_LIMIT);
    assert.deepStrictEqual(decoded, hostile);
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  test('msgpack codec - integer map keys from other encoders become member names', () => {
    // {1: "a"} as a fixmap with a positive fixint key.
    assert.deepStrictEqual(msgpackCodec.decode(Uint8Array.from([0x81, 0x01, 0xa1, 0x61]), NO_LIMIT), { '1': 'a' });
  });

  test('msgpack codec - 64-bit integers decode as numbers, as JSON.parse would read them', () => {
    const uint64 = [0xcf, 0, 0, 0, 1, 0, 0, 0, 0];
    assert.equal(msgpackCodec.decode(Uint8Array.from(uint64), NO_LIMIT), 2 ** 32);
  });

  test('msgpack codec - every proper prefix of an encoding is DecodeFailed', () => {
    fc.assert(
      fc.property(wirePayload, fc.nat(), (payload, cut) => {
        const bytes = msgpackCodec.encode(payload);
        assert.ok(decodeFails(bytes.subarray(0, cut % bytes.length)));
      }),
    );
  });

  test('msgpack codec - garbage and non-JSON msgpack are DecodeFailed', () => {
    const cases: Record<string, number[]> = {
      'never-used byte 0xc1': [0xc1],
      'trailing bytes after a value': [0x01, 0x02],
      'binary data': [0xc4, 0x02, 0x01, 0x02],
      'an unknown extension type': [0xd4, 0x05, 0x00],
      'an array used as a map key': [0x81, 0x91, 0x01, 0x02],
      'a map key that is a map': [0x81, 0x80, 0x01],
      'a top-level undefined': [0xd4, 0x00, 0x00],
      'an empty frame': [],
      'a string length past the end': [0xd9, 0x20, 0x61],
    };
    for (const [name, bytes] of Object.entries(cases)) assert.ok(decodeFails(bytes), name);
  });

  test('msgpack codec - DecodeFailed carries the underlying error as cause', () => {
    assert.throws(
      () => msgpackCodec.decode(Uint8Array.from([0x92, 0x01]), NO_LIMIT),
      (error: unknown) => isLocalError(error, 'DecodeFailed') && error.cause instanceof Error,
    );
  });

  test('msgpack codec - a frame past the limit is FrameTooLarge naming the limit', () => {
    const bytes = msgpackCodec.encode(request(1, 'x', { pad: 'y'.repeat(100) }));
    assert.throws(
      () => msgpackCodec.decode(bytes, 64),
      (error: unknown) => isLocalError(error, 'FrameTooLarge') && error.message.includes('64'),
    );
  });

  test('msgpack codec - encoded frames stay valid after later encodes', () => {
    const first = msgpackCodec.encode(request(1, 'first'));
    const snapshot = Buffer.from(first);
    for (let index = 0; index < 2000; index += 1) msgpackCodec.encode(request(index, 'filler', { pad: 'z'.repeat(64) }));
    assert.deepStrictEqual(Buffer.from(first), snapshot);
  });
});
