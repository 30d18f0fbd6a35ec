/**
 * NDJSON specifics: line endings, empty lines, end-of-stream and UTF-8 across chunk boundaries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createStreamDecoder, encodeFrame } from '../../../core/codecs/framing.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { notification, request } from '../../../core/jsonrpc.ts';
import { chunkPlan, feed, split, summarize, viaJson, wirePayload } from './support.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

function decodeText(text: string, limit = NO_LIMIT, end = true): unknown[] {
  return summarize(feed(createStreamDecoder(jsonCodec, limit), [Buffer.from(text, 'utf8')], end).items);
}

describe('ndjson framing', () => {
  test('ndjson framing - encodeFrame writes the JSON text and one newline', () => {
    const frame = Buffer.from(encodeFrame(jsonCodec, notification('ping')));
    assert.equal(frame.toString('utf8'), '{"jsonrpc":"2.0","method":"ping"}\n');
  });

  test('ndjson framing - CRLF endings and blank lines anywhere decode to the same messages', () => {
    const separator = fc.constantFrom('\n', '\r\n');
    const blanks = fc.array(separator, { maxLength: 3 }).map((lines) => lines.join(''));
    fc.assert(
      fc.property(fc.array(fc.tuple(blanks, wirePayload, separator), { maxLength: 8 }), blanks, chunkPlan, (lines, tail, plan) => {
        const text = lines.map(([before, payload, ending]) => before + JSON.stringify(payload) + ending).join('') + tail;
        const { items } = feed(createStreamDecoder(jsonCodec, NO_LIMIT), split(Buffer.from(text, 'utf8'), plan));
        assert.deepStrictEqual(summarize(items), lines.map(([, payload]) => ({ value: viaJson(payload) })));
      }),
      { numRuns: 150 },
    );
  });

  test('ndjson framing - a CRLF line decodes without its carriage return', () => {
    assert.deepStrictEqual(decodeText('{"jsonrpc":"2.0","method":"a"}\r\n"b"\r\n'), [
      { value: { jsonrpc: '2.0', method: 'a' } },
      { value: 'b' },
    ]);
  });

  test('ndjson framing - empty lines and bare carriage returns are skipped, not reported', () => {
    assert.deepStrictEqual(decodeText('\n\r\n\n1\n\n\r\n2\n\n'), [{ value: 1 }, { value: 2 }]);
  });

  test('ndjson framing - a whitespace-only line is not empty and fails to decode', () => {
    assert.deepStrictEqual(decodeText('1\n  \n2\n'), [{ value: 1 }, { error: 'DecodeFailed' }, { value: 2 }]);
  });

  test('ndjson framing - the carriage return of a CRLF does not count against the limit', () => {
    assert.deepStrictEqual(decodeText('"abc"\r\n', 5), [{ value: 'abc' }]);
    assert.deepStrictEqual(decodeText('"abcd"\r\n', 5), [{ error: 'FrameTooLarge' }]);
    // Byte by byte, so the line is held while it is still unknown whether a `\r` will end it.
    const chunks = split(Buffer.from('"abc"\r\n"abcd"\r\n7\n'), 'single-bytes');
    assert.deepStrictEqual(summarize(feed(createStreamDecoder(jsonCodec, 5), chunks).items), [
      { value: 'abc' },
      { error: 'FrameTooLarge' },
      { value: 7 },
    ]);
  });

  test('ndjson framing - a character split across chunks at every byte decodes intact', () => {
    const text = `${JSON.stringify(request('é😀', 'echo', { text: '日本語 𝄞 👩‍👩‍👧' }))}\n`;
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const { items } = feed(createStreamDecoder(jsonCodec, NO_LIMIT), [bytes.subarray(0, cut), bytes.subarray(cut)]);
      assert.deepStrictEqual(summarize(items), [{ value: JSON.parse(text) as unknown }], `cut at ${cut}`);
    }
  });

  test('ndjson framing - end() flushes a final unterminated line as a frame', () => {
    assert.deepStrictEqual(decodeText('1\n{"jsonrpc":"2.0","method":"last"}'), [
      { value: 1 },
      { value: { jsonrpc: '2.0', method: 'last' } },
    ]);
    assert.deepStrictEqual(decodeText('1\n{"jsonrpc":'), [{ value: 1 }, { error: 'DecodeFailed' }]);
    assert.deepStrictEqual(decodeText('1\n2\r'), [{ value: 1 }, { value: 2 }]);
  });

  test('ndjson framing - end() after a complete line or an empty tail reports nothing', () => {
    assert.deepStrictEqual(decodeText('1\n'), [{ value: 1 }]);
    assert.deepStrictEqual(decodeText('1\n\r'), [{ value: 1 }]);
    assert.deepStrictEqual(decodeText(''), []);
  });

  test('ndjson framing - without end() an unterminated line is held, not emitted', () => {
    const decoder = createStreamDecoder(jsonCodec, NO_LIMIT);
    const { items } = feed(decoder, [Buffer.from('1\n22')], false);
    assert.deepStrictEqual(summarize(items), [{ value: 1 }]);
    assert.equal(decoder.buffered, 2);
  });

  test('ndjson framing - end() in the middle of an oversized line reports it once only', () => {
    const decoder = createStreamDecoder(jsonCodec, 8);
    const { items } = feed(decoder, [Buffer.from('1\n"'), Buffer.from('x'.repeat(20))]);
    assert.deepStrictEqual(summarize(items), [{ value: 1 }, { error: 'FrameTooLarge' }]);
    assert.equal(decoder.buffered, 0);
  });

  test('ndjson framing - end() resets, so the decoder starts clean on the next stream', () => {
    const decoder = createStreamDecoder(jsonCodec, 8);
    feed(decoder, [Buffer.from('"'), Buffer.from('y'.repeat(20))]);
    const { items } = feed(decoder, [Buffer.from('3\n'), Buffer.from('4')]);
    assert.deepStrictEqual(summarize(items), [{ value: 3 }, { value: 4 }]);
  });

  test('ndjson framing - an oversized line is FrameTooLarge whether found whole or in pieces', () => {
    const line = `"${'z'.repeat(30)}"\n`;
    const whole = decodeText(`1\n${line}2\n`, 16);
    const pieces = summarize(feed(createStreamDecoder(jsonCodec, 16), split(Buffer.from(`1\n${line}2\n`), 'single-bytes')).items);
    const expected = [{ value: 1 }, { error: 'FrameTooLarge' }, { value: 2 }];
    assert.deepStrictEqual(whole, expected);
    assert.deepStrictEqual(pieces, expected);
  });

  test('ndjson framing - a sink that throws leaves the decoder at a line boundary', () => {
    const decoder = createStreamDecoder(jsonCodec, NO_LIMIT);
    assert.throws(() =>
      decoder.push(Buffer.from('1\n'), () => {
        throw new Error('sink failed');
      }),
    );
    const { items } = feed(decoder, [Buffer.from('2\n')]);
    assert.deepStrictEqual(summarize(items), [{ value: 2 }]);
  });

  test('ndjson framing - a negative or fractional limit is refused up front', () => {
    assert.throws(() => createStreamDecoder(jsonCodec, -1), RangeError);
    assert.throws(() => createStreamDecoder(jsonCodec, 1.5), RangeError);
  });
});
