/**
 * Properties every stream framing must have, checked for both: NDJSON (JSON) and length-prefix (msgpack).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Codec } from '../../../core/codecs/codec.ts';
import { createStreamDecoder, encodeFrame } from '../../../core/codecs/framing.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { msgpackCodec } from '../../../core/codecs/msgpack.ts';
import { notification, type WirePayload } from '../../../core/jsonrpc.ts';
import { chunkPlan, encodeStream, feed, split, summarize, viaJson, wirePayload } from './support.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;
const payloads = fc.array(wirePayload, { maxLength: 12 });

/** The size the frame limit is measured against: the frame body, without framing bytes. */
function bodySize(codec: Codec, payload: WirePayload): number {
  return codec.encode(payload).byteLength;
}

/** Garbage frames for each codec: bodies that are certainly not a JSON value, framed as that codec frames. */
const garbageFrames: Record<string, fc.Arbitrary<Buffer>> = {
  json: fc
    .oneof(
      // Arbitrary bytes (invalid UTF-8 included) that happen not to be JSON.
      fc.uint8Array({ minLength: 1, maxLength: 40 }).map((bytes) => Buffer.from(bytes.filter((byte) => byte !== 0x0a))),
      // A valid message cut short: a proper prefix of a JSON object or array is never JSON.
      fc.tuple(wirePayload, fc.nat()).map(([payload, cut]) => {
        const body = Buffer.from(jsonCodec.encode(payload));
        return body.subarray(0, 1 + (cut % (body.length - 1)));
      }),
    )
    .filter((body) => {
      const text = body.toString('utf8').replace(/\r$/, '');
      if (text.length === 0) return false;
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    })
    .map((body) => Buffer.concat([body, Buffer.from('\n')])),
  msgpack: fc
    .oneof(
      // A proper prefix of an encoding: msgpack is unambiguous about where a value ends, so it is incomplete.
      fc.tuple(wirePayload, fc.nat()).map(([payload, cut]) => {
        const body = Buffer.from(msgpackCodec.encode(payload));
        return body.subarray(0, cut % body.length);
      }),
      // A whole value followed by stray bytes.
      fc.tuple(wirePayload, fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([payload, extra]) =>
        Buffer.concat([msgpackCodec.encode(payload), extra]),
      ),
      fc.constant(Buffer.from([0xc1])),
    )
    .map((body) => {
      const header = Buffer.alloc(4);
      header.writeUInt32BE(body.length, 0);
      return Buffer.concat([header, body]);
    }),
};

for (const codec of [jsonCodec, msgpackCodec]) {
  const framing = codec.selfDelimiting ? 'ndjson framing' : 'length-prefix framing';

  describe(framing, () => {
    test(`${framing} - any chunk split yields the same messages in order`, () => {
      fc.assert(
        fc.property(payloads, chunkPlan, (messages, plan) => {
          const { items } = feed(createStreamDecoder(codec, NO_LIMIT), split(encodeStream(codec, messages), plan));
          assert.deepStrictEqual(summarize(items), messages.map((message) => ({ value: viaJson(message) })));
        }),
        { numRuns: 200 },
      );
    });

    test(`${framing} - an oversized frame is one FrameTooLarge in place, never buffered, the rest intact`, () => {
      fc.assert(
        fc.property(payloads, payloads, fc.nat(64), fc.nat(2048), chunkPlan, (before, after, slack, excess, plan) => {
          const normal = [...before, ...after];
          // The limit fits every normal frame (exactly, when slack is 0) and the oversized one misses it.
          const limit = Math.max(16, ...normal.map((payload) => bodySize(codec, payload))) + slack;
          const oversized = notification('big', { pad: 'x'.repeat(limit + excess) });
          const stream = encodeStream(codec, [...before, oversized, ...after]);
          const { items, maxBuffered } = feed(createStreamDecoder(codec, limit), split(stream, plan));
          assert.deepStrictEqual(summarize(items), [
            ...before.map((message) => ({ value: viaJson(message) })),
            { error: 'FrameTooLarge' },
            ...after.map((message) => ({ value: viaJson(message) })),
          ]);
          // At most the limit, plus the one byte an NDJSON line may hold in case it is the `\r` of `\r\n`.
          assert.ok(maxBuffered <= limit + 1, `buffered ${maxBuffered} bytes with a ${limit}-byte limit`);
        }),
        { numRuns: 150 },
      );
    });

    test(`${framing} - garbage frames are DecodeFailed each, good frames around them intact`, () => {
      const entry = fc.oneof(
        wirePayload.map((payload) => ({ good: true as const, payload })),
        garbageFrames[codec.name]!.map((bytes) => ({ good: false as const, bytes })),
      );
      fc.assert(
        fc.property(fc.array(entry, { maxLength: 12 }), chunkPlan, (entries, plan) => {
          const stream = Buffer.concat(entries.map((item) => (item.good ? encodeFrame(codec, item.payload) : item.bytes)));
          const { items } = feed(createStreamDecoder(codec, NO_LIMIT), split(stream, plan));
          assert.deepStrictEqual(
            summarize(items),
            entries.map((item) => (item.good ? { value: viaJson(item.payload) } : { error: 'DecodeFailed' })),
          );
        }),
        { numRuns: 200 },
      );
    });

    test(`${framing} - a 10 MB frame against a 1 MB limit in 64 KiB chunks is skipped without buffering it`, () => {
      const limit = 1024 * 1024;
      const stream = encodeStream(codec, [
        notification('before'),
        notification('huge', { pad: 'h'.repeat(10 * 1024 * 1024) }),
        notification('after'),
      ]);
      const chunks = split(stream, Array.from({ length: Math.ceil(stream.length / 65536) }, (_, index) => index * 65536));
      const decoder = createStreamDecoder(codec, limit);
      const { items, maxBuffered, maxChunk } = feed(decoder, chunks);
      assert.equal(maxChunk, 65536);
      assert.ok(maxBuffered < 2 * 1024 * 1024, `buffered ${maxBuffered} bytes`);
      assert.deepStrictEqual(summarize(items), [
        { value: { jsonrpc: '2.0', method: 'before' } },
        { error: 'FrameTooLarge' },
        { value: { jsonrpc: '2.0', method: 'after' } },
      ]);
      const [, tooLarge] = items;
      assert.ok(tooLarge !== undefined && !tooLarge.ok && tooLarge.error.message.includes(String(limit)));
      assert.equal(decoder.buffered, 0);
    });

    test(`${framing} - a frame of exactly the limit passes and one byte more does not`, () => {
      const message = notification('edge', { pad: 'e'.repeat(100) });
      const size = bodySize(codec, message);
      const stream = encodeStream(codec, [message]);
      assert.deepStrictEqual(summarize(feed(createStreamDecoder(codec, size), [stream]).items), [{ value: message }]);
      assert.deepStrictEqual(summarize(feed(createStreamDecoder(codec, size - 1), [stream]).items), [{ error: 'FrameTooLarge' }]);
    });

    test(`${framing} - buffered counts the held bytes of an incomplete frame and drops to 0 once it completes`, () => {
      const stream = encodeStream(codec, [notification('progress', { n: 1 })]);
      const decoder = createStreamDecoder(codec, NO_LIMIT);
      const { items } = feed(decoder, [stream.subarray(0, 10)], false);
      assert.equal(items.length, 0);
      // A parsed length prefix is not held, only the body bytes behind it.
      assert.equal(decoder.buffered, codec.selfDelimiting ? 10 : 10 - 4);
      decoder.push(stream.subarray(10), (item) => items.push(item));
      assert.equal(decoder.buffered, 0);
      assert.equal(items.length, 1);
    });
  });
}
