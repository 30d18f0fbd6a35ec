/**
 * Length-prefix specifics: the prefix itself, truncated streams at end(), and empty or split prefixes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createStreamDecoder, encodeFrame } from '../../../core/codecs/framing.ts';
import { msgpackCodec } from '../../../core/codecs/msgpack.ts';
import { isLocalError } from '../../../core/errors.ts';
import { notification, request } from '../../../core/jsonrpc.ts';
import { encodeStream, feed, split, summarize } from './support.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

function prefixed(body: readonly number[]): Buffer {
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.set(body, 4);
  return frame;
}

describe('length-prefix framing', () => {
  test('length-prefix framing - encodeFrame writes a big-endian body length, then the body', () => {
    const payload = request(1, 'tools/call', { name: 'x'.repeat(300) });
    const body = Buffer.from(msgpackCodec.encode(payload));
    const frame = Buffer.from(encodeFrame(msgpackCodec, payload));
    assert.equal(frame.readUInt32BE(0), body.length);
    assert.ok(body.length > 255, 'the length needs more than its lowest byte');
    assert.deepStrictEqual(frame.subarray(4), body);
  });

  test('length-prefix framing - a prefix split across chunks is reassembled', () => {
    const stream = encodeStream(msgpackCodec, [notification('a'), notification('b')]);
    for (let cut = 1; cut < stream.length; cut += 1) {
      const { items } = feed(createStreamDecoder(msgpackCodec, NO_LIMIT), [stream.subarray(0, cut), stream.subarray(cut)]);
      assert.deepStrictEqual(
        summarize(items),
        [{ value: { jsonrpc: '2.0', method: 'a' } }, { value: { jsonrpc: '2.0', method: 'b' } }],
        `cut at ${cut}`,
      );
    }
  });

  test('length-prefix framing - end() with a truncated body reports DecodeFailed', () => {
    const stream = encodeStream(msgpackCodec, [notification('whole'), notification('cut', { pad: 'p'.repeat(50) })]);
    const decoder = createStreamDecoder(msgpackCodec, NO_LIMIT);
    const { items } = feed(decoder, [stream.subarray(0, stream.length - 10)]);
    assert.deepStrictEqual(summarize(items), [{ value: { jsonrpc: '2.0', method: 'whole' } }, { error: 'DecodeFailed' }]);
    const [, last] = items;
    assert.ok(last !== undefined && !last.ok && /ended inside/.test(last.error.message));
    assert.equal(decoder.buffered, 0);
  });

  test('length-prefix framing - end() with a partial length prefix reports DecodeFailed', () => {
    const { items } = feed(createStreamDecoder(msgpackCodec, NO_LIMIT), [Buffer.from([0, 0])]);
    assert.deepStrictEqual(summarize(items), [{ error: 'DecodeFailed' }]);
  });

  test('length-prefix framing - end() on a frame boundary reports nothing', () => {
    const { items } = feed(createStreamDecoder(msgpackCodec, NO_LIMIT), [encodeStream(msgpackCodec, [notification('x')])]);
    assert.deepStrictEqual(summarize(items), [{ value: { jsonrpc: '2.0', method: 'x' } }]);
    assert.deepStrictEqual(summarize(feed(createStreamDecoder(msgpackCodec, NO_LIMIT), []).items), []);
  });

  test('length-prefix framing - end() inside a skipped oversized frame adds no second error', () => {
    const decoder = createStreamDecoder(msgpackCodec, 100);
    const { items } = feed(decoder, [Buffer.alloc(0), Buffer.from([0, 0, 1, 0]), Buffer.alloc(30)]);
    assert.deepStrictEqual(summarize(items), [{ error: 'FrameTooLarge' }]);
    assert.ok(items[0] !== undefined && !items[0].ok && items[0].error.message.includes('256'));
  });

  test('length-prefix framing - end() resets, so the decoder starts clean on the next stream', () => {
    const decoder = createStreamDecoder(msgpackCodec, NO_LIMIT);
    feed(decoder, [Buffer.from([0, 0, 0, 9, 1])]);
    const { items } = feed(decoder, [encodeStream(msgpackCodec, [notification('fresh')])]);
    assert.deepStrictEqual(summarize(items), [{ value: { jsonrpc: '2.0', method: 'fresh' } }]);
  });

  test('length-prefix framing - an empty frame is DecodeFailed and the next frame still decodes', () => {
    for (const plan of ['single-bytes', []] as const) {
      const stream = Buffer.concat([prefixed([]), prefixed([0x01]), prefixed([])]);
      const { items } = feed(createStreamDecoder(msgpackCodec, NO_LIMIT), split(stream, plan));
      assert.deepStrictEqual(summarize(items), [{ error: 'DecodeFailed' }, { value: 1 }, { error: 'DecodeFailed' }]);
    }
  });

  test('length-prefix framing - an oversized frame is refused from its prefix, before its body arrives', () => {
    const decoder = createStreamDecoder(msgpackCodec, 1000);
    const errors: string[] = [];
    decoder.push(Buffer.from([0x7f, 0xff, 0xff, 0xff]), (item) => {
      if (!item.ok) errors.push(item.error.code);
    });
    assert.deepStrictEqual(errors, ['FrameTooLarge']);
    assert.equal(decoder.buffered, 0);
  });

  test('length-prefix framing - non-JSON msgpack inside a good frame is DecodeFailed, not a crash', () => {
    const { items } = feed(createStreamDecoder(msgpackCodec, NO_LIMIT), [
      Buffer.concat([prefixed([0xc4, 0x01, 0xff]), prefixed([0xa2, 0x6f, 0x6b])]),
    ]);
    assert.deepStrictEqual(summarize(items), [{ error: 'DecodeFailed' }, { value: 'ok' }]);
    const [first] = items;
    assert.ok(first !== undefined && !first.ok && isLocalError(first.error, 'DecodeFailed'));
  });
});
