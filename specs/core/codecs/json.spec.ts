import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import * as codecs from '../../../core/codecs/index.ts';
import { encodeFrame } from '../../../core/codecs/framing.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { LocalError, isLocalError } from '../../../core/errors.ts';
import { request } from '../../../core/jsonrpc.ts';
import { viaJson, wirePayload } from './support.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

describe('json codec', () => {
  test('json codec - describes itself as self-delimiting application/json', () => {
    assert.equal(jsonCodec.name, 'json');
    assert.equal(jsonCodec.contentType, 'application/json');
    assert.equal(jsonCodec.selfDelimiting, true);
  });

  test('json codec - encode then decode round-trips any JSON-RPC payload', () => {
    fc.assert(
      fc.property(wirePayload, (payload) => {
        assert.deepStrictEqual(jsonCodec.decode(jsonCodec.encode(payload), NO_LIMIT), viaJson(payload));
      }),
      { numRuns: 300 },
    );
  });

  test('json codec - an encoded payload is one line, whatever its strings contain', () => {
    fc.assert(
      fc.property(wirePayload, (payload) => {
        const frame = Buffer.from(encodeFrame(jsonCodec, payload));
        assert.equal(frame.indexOf(0x0a), frame.length - 1);
      }),
    );
  });

  test('json codec - astral characters survive as UTF-8', () => {
    const message = request(1, 'echo', { text: 'a😀b𝄞c' });
    const bytes = Buffer.from(jsonCodec.encode(message));
    assert.ok(bytes.includes(Buffer.from('😀', 'utf8')));
    assert.deepStrictEqual(jsonCodec.decode(bytes, NO_LIMIT), message);
  });

  test('json codec - undefined members are left out as JSON.stringify does', () => {
    const encoded = jsonCodec.encode({ jsonrpc: '2.0', id: 1, result: { kept: 1, dropped: undefined } });
    assert.deepStrictEqual(jsonCodec.decode(encoded, NO_LIMIT), { jsonrpc: '2.0', id: 1, result: { kept: 1 } });
  });

  test('json codec - decode accepts a Uint8Array that is not a Buffer', () => {
    const plain = new Uint8Array(Buffer.from('{"jsonrpc":"2.0","method":"ping"}'));
    assert.deepStrictEqual(jsonCodec.decode(plain, NO_LIMIT), { jsonrpc: '2.0', method: 'ping' });
  });

  test('json codec - a frame past the limit is FrameTooLarge naming the limit', () => {
    const bytes = jsonCodec.encode(request(1, 'x', { pad: 'y'.repeat(100) }));
    assert.throws(
      () => jsonCodec.decode(bytes, 50),
      (error: unknown) => isLocalError(error, 'FrameTooLarge') && error.message.includes('50'),
    );
    assert.doesNotThrow(() => jsonCodec.decode(bytes, bytes.byteLength));
  });

  test('json codec - malformed text is DecodeFailed carrying the parser error as cause', () => {
    for (const text of ['{"jsonrpc":', 'nope', '', '{"a":1}}', '\uFEFF{}']) {
      assert.throws(
        () => jsonCodec.decode(Buffer.from(text), NO_LIMIT),
        (error: unknown) => isLocalError(error, 'DecodeFailed') && error.cause instanceof SyntaxError,
        text,
      );
    }
  });

  test('json codec - a value with no JSON text is refused at encode', () => {
    const nothing: unknown = undefined;
    assert.throws(() => jsonCodec.encode(nothing as never), TypeError);
  });
});

describe('codecs entry point', () => {
  test('codecs entry point - exposes the contract helpers and the JSON codec only', () => {
    assert.deepStrictEqual(Object.keys(codecs).sort(), ['createStreamDecoder', 'encodeFrame', 'jsonCodec']);
    assert.equal(codecs.jsonCodec, jsonCodec);
  });

  test('codecs entry point - errors are LocalErrors usable with isLocalError', () => {
    try {
      jsonCodec.decode(Buffer.from('{'), NO_LIMIT);
      assert.fail('expected a throw');
    } catch (error) {
      assert.ok(error instanceof LocalError);
      assert.equal(error.code, 'DecodeFailed');
    }
  });
});
