/**
 * The pieces under the endpoint, on their own: SSE framing (encoder and incremental parser, checked against
 * the WHATWG algorithm's corner cases), Accept/Content-Type reading, and the bounded in-memory event store.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accepts, isJsonContentType } from '../../../transports/http/shared/media-types.ts';
import { InMemoryEventStore } from '../../../transports/http/index.ts';
import { encodeSseComment, encodeSseEvent, encodeSseRetry } from '../../../engine.ts';
import { SseParser } from '../../support/sse-test-parser.ts';

const parseAll = (text: string): ReturnType<SseParser['push']> => new SseParser().push(text);

describe('SSE framing', () => {
  test('encodes id, event, retry and multi-line data; refuses line breaks in fields', () => {
    assert.equal(encodeSseEvent({ data: '{"a":1}' }), 'data: {"a":1}\n\n');
    assert.equal(encodeSseEvent({ id: 'p1.2', event: 'message', data: 'x' }), 'id: p1.2\nevent: message\ndata: x\n\n');
    assert.equal(encodeSseEvent({ id: 'p1.1', data: '', retry: 500 }), 'retry: 500\nid: p1.1\ndata:\n\n');
    assert.equal(encodeSseEvent({ data: 'a\nb\r\nc' }), 'data: a\ndata: b\ndata: c\n\n');
    assert.equal(encodeSseRetry(250.7), 'retry: 250\n\n');
    assert.equal(encodeSseComment(), ':\n\n');
    assert.throws(() => encodeSseEvent({ id: 'a\nb', data: '' }), RangeError);
  });

  test('parses what it encodes, including the empty-data priming event', () => {
    const text = encodeSseEvent({ id: 'p1.1', data: '', retry: 500 }) + encodeSseEvent({ id: 'p1.2', data: 'a\nb' }) + encodeSseEvent({ event: 'endpoint', data: '/messages' });
    assert.deepEqual(parseAll(text), [
      { id: 'p1.1', event: 'message', data: '', retry: 500 },
      { id: 'p1.2', event: 'message', data: 'a\nb', retry: undefined },
      { id: undefined, event: 'endpoint', data: '/messages', retry: undefined },
    ]);
  });

  test('handles any chunking, CR/LF/CRLF line ends (a CRLF split across chunks too), BOM and comments', () => {
    const text = '\uFEFF: hello\r\nid: 7\r\ndata: one\rdata: two\n\ndata:three\r\n\r\n';
    const whole = parseAll(text);
    assert.deepEqual(whole.map((event) => event.data), ['one\ntwo', 'three']);
    for (let size = 1; size <= 5; size++) {
      const parser = new SseParser();
      const events = [];
      for (let index = 0; index < text.length; index += size) events.push(...parser.push(text.slice(index, index + size)));
      assert.deepEqual(events, whole, `chunks of ${size}`);
      assert.equal(parser.lastEventId, '7');
    }
  });

  test('follows the algorithm: no data, no event (but id and retry count); NUL ids ignored; bad retry ignored', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('id: 5\nretry: 100\n\n'), []);
    assert.equal(parser.lastEventId, '5');
    assert.equal(parser.retry, 100);
    assert.deepEqual(parser.push('id: a\0b\nretry: soon\ndata: x\n\n').map((event) => event.id), [undefined]);
    assert.equal(parser.lastEventId, '5');
    assert.equal(parser.retry, 100);
    assert.deepEqual(parser.push('data\n\n').map((event) => event.data), ['']);
    parser.push('data: unfinished');
    parser.end();
    assert.deepEqual(parser.push('\n'), [], 'an unfinished block is dropped at the end of the stream');
  });
});

describe('content negotiation', () => {
  test('Accept ranges: exact, type wildcard, full wildcard, quality zero, most specific wins', () => {
    assert.equal(accepts('application/json, text/event-stream', 'text/event-stream'), true);
    assert.equal(accepts('text/*', 'text/event-stream'), true);
    assert.equal(accepts('*/*', 'application/json'), true);
    assert.equal(accepts('text/*, text/event-stream;q=0', 'text/event-stream'), false);
    assert.equal(accepts('application/json', 'text/event-stream'), false);
    assert.equal(accepts('TEXT/EVENT-STREAM; q=0.5', 'text/event-stream'), true);
    assert.equal(accepts(undefined, 'application/json'), false);
  });

  test('Content-Type: application/json with or without parameters, in any case', () => {
    assert.equal(isJsonContentType('application/json'), true);
    assert.equal(isJsonContentType('Application/JSON; charset=utf-8'), true);
    assert.equal(isJsonContentType('application/json-patch+json'), false);
    assert.equal(isJsonContentType(undefined), false);
  });
});

describe('InMemoryEventStore', () => {
  test('ids name their stream; replay returns only that stream, after the id; priming takes an id, stores nothing', () => {
    const store = new InMemoryEventStore();
    const prime = store.append('s', 'p1', null);
    const a = store.append('s', 'p1', 'a');
    store.append('s', 'p2', 'other');
    const b = store.append('s', 'p1', 'b');
    assert.match(prime, /^p1\.\d+$/);
    assert.deepEqual(store.replayAfter('s', prime), { streamId: 'p1', events: [{ id: a, message: 'a' }, { id: b, message: 'b' }] });
    assert.deepEqual(store.replayAfter('s', a)?.events.map((event) => event.message), ['b']);
    assert.equal(store.replayAfter('other-session', a), undefined);
    assert.equal(store.replayAfter('s', 'p1.999'), undefined, 'an id never issued');
    assert.equal(store.replayAfter('s', 'nonsense'), undefined);
    assert.equal(store.size, 3);
  });

  test('bounded per session and in total, by count and size, dropping the oldest; the newest event always stays', () => {
    const store = new InMemoryEventStore({ maxEventsPerSession: 3, maxEvents: 5, maxCharsPerSession: 10 });
    const first = store.append('a', 'p1', null);
    for (const message of ['1', '2', '3', '4']) store.append('a', 'p1', message);
    assert.deepEqual(store.replayAfter('a', first)?.events.map((event) => event.message), ['2', '3', '4']);
    for (const message of ['x', 'y', 'z']) store.append('b', 'p1', message);
    assert.equal(store.size, 5, 'the total bound evicted the oldest event overall');
    assert.deepEqual(store.replayAfter('a', first)?.events.map((event) => event.message), ['3', '4']);
    store.append('a', 'p1', 'a very long message');
    assert.deepEqual(store.replayAfter('a', first)?.events.map((event) => event.message), ['a very long message']);
  });

  test('dropping a session forgets it and frees its share of the total', () => {
    const store = new InMemoryEventStore({ maxEvents: 2000 });
    for (let index = 0; index < 1500; index++) store.append(`s${index % 3}`, 'g', String(index));
    store.dropSession('s1');
    assert.equal(store.size, 1000);
    assert.equal(store.replayAfter('s1', 'g.1'), undefined);
    for (let index = 0; index < 3000; index++) store.append('s0', 'g', 'x');
    assert.equal(store.size, 1500, 'per-session bound (1000) for s0, plus s2');
  });
});
