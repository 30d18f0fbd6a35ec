/**
 * The core's runtime-neutral crypto (core/crypto/) computes exactly what node:crypto and Buffer compute, so
 * cursors, request states and ids keep their formats, and tokens made before the move still verify.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes as nodeRandomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from '../../core/catalog/pagination.ts';
import { decodeBase64url, encodeBase64url, tableDecode, tableEncode, utf8Bytes } from '../../core/bytes.ts';
import { HmacSha256Key, constantTimeEqual, sha256 } from '../../core/crypto/hmac.ts';
import { randomBase64url, randomBytes, randomUuid } from '../../core/crypto/random.ts';
import { newSessionId } from '../../core/ids.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('base64url', () => {
  for (const [name, encode, decode] of [
    ['the chosen codec', encodeBase64url, decodeBase64url],
    ['the table codec', tableEncode, tableDecode],
  ] as const) {
    test(`${name} matches Buffer both ways, for every length 0..200`, () => {
      for (let length = 0; length <= 200; length++) {
        const bytes = nodeRandomBytes(length);
        const text = encode(bytes);
        assert.equal(text, bytes.toString('base64url'));
        assert.deepEqual(Buffer.from(decode(text) ?? []), bytes);
      }
    });

    test(`${name} refuses every non-canonical spelling (padding, whitespace, foreign characters, set unused bits)`, () => {
      assert.equal(decode('AB=='), undefined);
      assert.equal(decode('AB CD'), undefined);
      assert.equal(decode('AB+/'), undefined);
      assert.equal(decode('ABCDE'), undefined, 'a length of 4n+1 is impossible');
      assert.equal(decode('AB'), undefined, '"AB" sets unused bits: the canonical spelling of that byte is "AA"');
      assert.deepEqual([...(decode('AA') ?? [])], [0]);
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(), fc.constantFrom('A', 'B', '-', '_', '=', ' ', '+', '.', 'é'), (bytes, at, swap) => {
          const text = encode(bytes);
          if (text.length === 0) return;
          const index = at % text.length;
          const edited = text.slice(0, index) + swap + text.slice(index + 1);
          const decoded = decode(edited);
          // Whatever decodes must be the one canonical spelling of its bytes.
          if (decoded !== undefined) assert.equal(Buffer.from(decoded).toString('base64url'), edited);
        }),
      );
    });
  }

  test('utf8Bytes encodes as UTF-8, surrogate pairs included', () => {
    assert.deepEqual(Buffer.from(utf8Bytes('a\u00e9\u20ac\u{1f600}')), Buffer.from('a\u00e9\u20ac\u{1f600}', 'utf8'));
  });
});

describe('HMAC-SHA256 and SHA-256', () => {
  test('a prepared key gives node:crypto\'s HMAC, call after call, over parts that are concatenated', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 100 }), fc.array(fc.string({ unit: 'grapheme', maxLength: 90 }), { maxLength: 4 }), (key, parts) => {
        const prepared = new HmacSha256Key(key);
        const expected = createHmac('sha256', key).update(parts.join('')).digest();
        assert.deepEqual(Buffer.from(prepared.mac(...parts)), expected);
        assert.deepEqual(Buffer.from(prepared.mac(...parts)), expected, 'the reused state starts afresh');
      }),
    );
  });

  test('sha256 gives node:crypto\'s digest', () => {
    for (const text of ['', 'abc', 'x'.repeat(1000), '\u{1f600}']) {
      assert.deepEqual(Buffer.from(sha256(text)), createHash('sha256').update(text, 'utf8').digest());
    }
  });

  test('constantTimeEqual tells equal arrays from different ones and different lengths', () => {
    assert.equal(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])), true);
    assert.equal(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4])), false);
    assert.equal(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3])), false);
  });
});

describe('cursors keep their format', () => {
  test('a cursor is base64url(body) "." the first 16 base64url characters of HMAC-SHA256(key, body)', () => {
    const key = nodeRandomBytes(32);
    const cursor = encodeCursor({ list: 'tools', revision: 7, offset: 50 }, key);
    const body = 'tools:7:50';
    const tag = createHmac('sha256', key).update(body).digest('base64url').slice(0, 16);
    assert.equal(cursor, `${Buffer.from(body).toString('base64url')}.${tag}`);
    assert.deepEqual(decodeCursor(cursor, 'tools', key), { list: 'tools', revision: 7, offset: 50 });
    assert.equal(decodeCursor(cursor, 'tools', nodeRandomBytes(32)), undefined, 'another key refuses it');
    assert.equal(decodeCursor(`${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`, 'tools', key), undefined, 'an edited tag is refused');
  });
});

describe('randomness from Web Crypto', () => {
  test('randomBytes gives fresh bytes of the asked length and refuses lengths getRandomValues cannot fill', () => {
    assert.equal(randomBytes(32).length, 32);
    assert.notDeepEqual(randomBytes(32), randomBytes(32));
    assert.throws(() => randomBytes(65_537), /0 to 65536 bytes, got 65537/);
    assert.throws(() => randomBytes(-1), RangeError);
    assert.match(randomBase64url(16), /^[A-Za-z0-9_-]{22}$/);
    assert.match(newSessionId(), /^[A-Za-z0-9_-]{43}$/);
  });

  test('randomUuid is a version 4 UUID, also where crypto.randomUUID is missing (insecure browser contexts)', () => {
    assert.match(randomUuid(), UUID_V4);
    // An own property hides the prototype's method, as a browser's insecure context lacks it.
    Object.defineProperty(globalThis.crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 100; i++) {
        const uuid = randomUuid();
        assert.match(uuid, UUID_V4);
        seen.add(uuid);
      }
      assert.equal(seen.size, 100);
    } finally {
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
    assert.equal(typeof globalThis.crypto.randomUUID, 'function');
  });
});
