/**
 * The SSE parser: the WHATWG event stream rules (line endings split across chunks, multi-line data, comments,
 * event names, ids, retry), priming events, and the bound on event size.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LocalError } from '../../../core/errors.ts';
import { type SseEvent, SseParser } from '../../../transports/http/client/sse-parser.ts';

function parse(chunks: readonly (string | Uint8Array)[], maxEventBytes = 1024, resumeFrom?: string): { events: SseEvent[]; errors: LocalError[]; parser: SseParser } {
  const events: SseEvent[] = [];
  const errors: LocalError[] = [];
  const parser = new SseParser({ event: (event) => events.push(event), oversized: (error) => errors.push(error) }, maxEventBytes, resumeFrom);
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { events, errors, parser };
}

test('sse parser - data lines join with LF; comments ignored; event names; ids persist; unknown fields ignored', () => {
  const { events } = parse([': comment\nevent: message\nid: 1\ndata: {"a":\ndata: 1}\nfoo: bar\n\ndata: second\n\nevent: endpoint\ndata:/messages\n\n']);
  assert.deepEqual(events, [
    { type: 'message', data: '{"a":\n1}', id: '1' },
    { type: 'message', data: 'second', id: '1' },
    { type: 'endpoint', data: '/messages', id: '1' },
  ]);
});

test('sse parser - CRLF, CR and LF line endings, split anywhere across chunks (bytes or text)', () => {
  const text = 'id: 7\r\ndata: a\r\rdata: b\r\n\r\ndata: c\n\n';
  const whole = parse([text]).events;
  assert.deepEqual(whole, [
    { type: 'message', data: 'a', id: '7' },
    { type: 'message', data: 'b', id: '7' },
    { type: 'message', data: 'c', id: '7' },
  ]);
  const bytes = Buffer.from(text);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(parse([bytes.subarray(0, cut), bytes.subarray(cut)]).events, whole, `cut at ${cut}`);
    assert.deepEqual(parse([text.slice(0, cut), text.slice(cut)]).events, whole, `text cut at ${cut}`);
  }
});

test('sse parser - multi-byte UTF-8 split between chunks, and a leading BOM', () => {
  const bytes = Buffer.from('\ufeffdata: héllo ✓\n\n');
  const { events } = parse([bytes.subarray(0, 11), bytes.subarray(11)]); // splits the two bytes of "é"
  assert.deepEqual(events, [{ type: 'message', data: 'héllo ✓', id: undefined }]);
});

test('sse parser - bytes cut anywhere into three chunks decode as the whole (whole-character chunks and cut characters mixed)', () => {
  // A character cut after chunks that ended on ASCII (decoded without a stream decoder), and chunks ending on ASCII
  // after a cut one (the stream decoder goes on): every cut gives the events of the whole text.
  const text = 'data: a\n\ndata: é✓𝄞\n\ndata: b\n\nid: ü\ndata: 𝄞\n\n';
  const bytes = Buffer.from(text);
  const whole = parse([text]).events;
  assert.deepEqual(whole.map((event) => event.data), ['a', 'é✓𝄞', 'b', '𝄞']);
  for (let first = 1; first < bytes.length; first++) {
    for (let second = first; second < bytes.length; second++) {
      const chunks = [bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)];
      assert.deepEqual(parse(chunks).events, whole, `cut at ${first} and ${second}`);
    }
  }
});

test('sse parser - a priming event (id, retry, empty data) dispatches nothing but sets the id and the retry', () => {
  const { events, parser } = parse(['id: p1\nretry: 500\ndata:\n\n']);
  assert.deepEqual(events, []);
  assert.equal(parser.lastEventId, 'p1');
  assert.equal(parser.retryMs, 500);
});

test('sse parser - retry takes digits only; an id with NUL is ignored; an empty id clears it; a resumed stream starts from its id', () => {
  const { parser } = parse(['retry: 12a\nid: a\u0000b\ndata: x\n\n'], 1024, 'r9');
  assert.equal(parser.retryMs, undefined);
  assert.equal(parser.lastEventId, 'r9');
  assert.equal(parse(['id\ndata: x\n\n'], 1024, 'r9').parser.lastEventId, undefined);
});

test('sse parser - an event without its blank line at the end of the stream is dropped', () => {
  assert.deepEqual(parse(['data: complete\n\ndata: cut off']).events.map((event) => event.data), ['complete']);
});

test('sse parser - an oversized event is reported once, skipped, and parsing goes on', () => {
  const big = 'x'.repeat(200);
  const { events, errors } = parse([`data: ${big}\ndata: ${big}\n\ndata: small\n\n`, `data: ${big.repeat(2)}`, `${big}\n\ndata: after\n\n`], 300);
  assert.deepEqual(events.map((event) => event.data), ['small', 'after']);
  assert.equal(errors.length, 2);
  assert.equal(errors[0]?.code, 'FrameTooLarge');
});
