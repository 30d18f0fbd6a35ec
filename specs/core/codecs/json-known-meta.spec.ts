/**
 * Reading a repeated `_meta` once (core/codecs/json-known-meta.ts): a message whose `_meta` text was seen before
 * decodes to what `JSON.parse` makes of it, its `_meta` a copy of the remembered one that is the message's own
 * (writable, shared with no other message); anything else (another envelope, another shape, malformed text) is
 * parsed in full as before; the memory of texts is bounded. `knownMetaReads` tells which way a message was read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { knownMetaCount, knownMetaReads, parseJsonMessage } from '../../../core/codecs/json-known-meta.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import { isLocalError } from '../../../core/errors.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

let made = 0;
/** An envelope's text no other test uses (the memory of texts is shared by the process). */
function envelopeText(extra = ''): string {
  made++;
  return JSON.stringify({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true }, elicitation: { form: {} } },
    'io.modelcontextprotocol/clientInfo': { name: `spec-client-${made}${extra}`, version: '1.0.0' },
  });
}

const request = (id: number | string, params: string, meta: string): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{${params}${params === '' ? '' : ','}"_meta":${meta}}}`;

/** Decodes `text` three times (seen, seen again and remembered, then read with the remembered `_meta`). */
function decodeThrice(text: string): unknown[] {
  return [0, 1, 2].map(() => jsonCodec.decode(bytes(text), NO_LIMIT));
}

function metaOf(message: unknown): unknown {
  const fields = message as { params?: { _meta?: unknown }; result?: { _meta?: unknown } };
  return (fields.params ?? fields.result)?._meta;
}

describe('json known meta', () => {
  test('json known meta - a repeated _meta is read once: the same value as JSON.parse, each message its own _meta', () => {
    const meta = envelopeText();
    const before = knownMetaReads();
    const [first, , third] = decodeThrice(request(1, '"name":"echo","arguments":{"text":"hi"}', meta));
    assert.equal(knownMetaReads(), before + 1, 'seen, seen again (remembered), then read with the remembered _meta');
    const again = jsonCodec.decode(bytes(request(2, '"name":"echo","arguments":{"text":"ho"}', meta)), NO_LIMIT);
    assert.equal(knownMetaReads(), before + 2);
    assert.deepStrictEqual(third, JSON.parse(request(1, '"name":"echo","arguments":{"text":"hi"}', meta)));
    assert.deepStrictEqual(again, JSON.parse(request(2, '"name":"echo","arguments":{"text":"ho"}', meta)));
    for (const read of [first, third, again]) assert.equal(Object.isFrozen(metaOf(read)), false);
    assert.notEqual(metaOf(third), metaOf(again), 'no object shared between messages');
    const info = (read: unknown): Record<string, unknown> => (metaOf(read) as Record<string, Record<string, unknown>>)['io.modelcontextprotocol/clientInfo'] as Record<string, unknown>;
    assert.notEqual(info(third), info(again), 'nested members are copies too');
    // What a handler may do with its own: write anywhere in it; the next message is untouched.
    (metaOf(again) as Record<string, unknown>)['mine'] = 1;
    info(again)['name'] = 'changed';
    const later = jsonCodec.decode(bytes(request(3, '"name":"echo","arguments":{"text":"ha"}', meta)), NO_LIMIT);
    assert.deepStrictEqual(later, JSON.parse(request(3, '"name":"echo","arguments":{"text":"ha"}', meta)));
    // Params with nothing but _meta, and a result with the server's info.
    const bare = `{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"_meta":${meta}}}`;
    assert.deepStrictEqual(decodeThrice(bare)[2], JSON.parse(bare));
    const serverInfo = JSON.stringify({ 'io.modelcontextprotocol/serverInfo': { name: `spec-server-${made}`, version: '0' } });
    const result = `{"jsonrpc":"2.0","id":4,"result":{"content":[],"resultType":"complete","_meta":${serverInfo}}}`;
    const fromResults = knownMetaReads();
    const read = decodeThrice(result);
    assert.equal(knownMetaReads(), fromResults + 1);
    assert.deepStrictEqual(read[2], JSON.parse(result));
    assert.equal(Object.isFrozen(metaOf(read[2])), false);
  });

  test('json known meta - a __proto__ member of a remembered _meta is an own member of each copy, as JSON.parse makes it', () => {
    const meta = `{"__proto__":{"admin":true},"spec":${++made}}`;
    const text = request(1, '"a":1', meta);
    const before = knownMetaReads();
    const read = decodeThrice(text)[2];
    assert.equal(knownMetaReads(), before + 1);
    assert.deepStrictEqual(read, JSON.parse(text));
    const copy = metaOf(read) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal(copy['admin'], undefined, 'nothing inherited');
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { admin: true });
  });

  test('json known meta - whatever the rest of the message, it decodes as JSON.parse does', () => {
    const meta = envelopeText();
    decodeThrice(request(0, '', meta));
    const member = fc.tuple(fc.string(), fc.jsonValue()).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.string()), fc.array(member, { maxLength: 4 }), (id, members) => {
        const text = request(id, members.join(','), meta);
        const before = knownMetaReads();
        const read = jsonCodec.decode(bytes(text), NO_LIMIT);
        assert.deepStrictEqual(read, JSON.parse(text));
        assert.equal(knownMetaReads(), before + 1, 'read with the known _meta');
        assert.deepStrictEqual(Object.keys((read as { params: object }).params), Object.keys((JSON.parse(text) as { params: object }).params), 'key order');
      }),
      { numRuns: 300 },
    );
  });

  test('json known meta - another envelope is not served from memory', () => {
    const meta = envelopeText();
    decodeThrice(request(1, '"a":1', meta));
    // One character different (the version), and the same envelope with a progress token in it.
    const other = meta.replace('2026-07-28', '2026-07-29');
    const withToken = `${meta.slice(0, -1)},"progressToken":7}`;
    for (const text of [request(2, '"a":1', other), request(3, '"a":1', withToken)]) {
      const before = knownMetaReads();
      const read = jsonCodec.decode(bytes(text), NO_LIMIT);
      assert.deepStrictEqual(read, JSON.parse(text));
      assert.equal(knownMetaReads(), before, 'parsed in full');
    }
  });

  test('json known meta - other shapes and texts around a known _meta: the full parse decides', () => {
    const meta = envelopeText();
    decodeThrice(request(1, '"a":1', meta));
    const valid = [
      // The `_meta` belongs to a member that is not params (the message has five members).
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{},"x":{"_meta":${meta}}}`,
      // Repeated keys: JSON.parse keeps the last value, at the first key's place.
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"b":1},"params":{"_meta":0,"c":2,"_meta":${meta}}}`,
      // The last member is id, method or jsonrpc, whose value is the object holding `_meta`.
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{},"id":{"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{},"method":{"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"result":{},"jsonrpc":{"_meta":${meta}}}`,
      // A notification (no id), a response with an error member too.
      `{"jsonrpc":"2.0","method":"m","params":{"a":1,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"},"result":{"_meta":${meta}}}`,
      // Whitespace before the comma, nested deeper, inside an array.
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1 ,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":{"b":1,"_meta":${meta}}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"_meta":${meta}}]}}`,
      // The key spelled with an escape, the `_meta` text inside a string.
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"\\u005fmeta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"s":${JSON.stringify(`{"_meta":${meta}}}`)}}}`,
    ];
    for (const text of valid) {
      assert.deepStrictEqual(jsonCodec.decode(bytes(text), NO_LIMIT), JSON.parse(text), text);
      assert.deepStrictEqual(parseJsonMessage(text), JSON.parse(text), text);
    }
    const malformed = [
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{ ,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"x,"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":["a","_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}"_meta":${meta}}}`,
      `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1},"_meta":${meta}}}`,
    ];
    for (const text of malformed) {
      assert.throws(() => JSON.parse(text), SyntaxError, `reference: ${text}`);
      assert.throws(
        () => jsonCodec.decode(bytes(text), NO_LIMIT),
        (error: unknown) => isLocalError(error) && error.code === 'DecodeFailed',
        text,
      );
    }
  });

  test('json known meta - the memory is bounded, and a _meta that changes every time is never kept', () => {
    for (let round = 0; round < 40; round++) decodeThrice(request(round, '"a":1', envelopeText()));
    assert.ok(knownMetaCount() <= 8, `${knownMetaCount()} texts kept`);
    const meta = envelopeText();
    const before = knownMetaReads();
    for (const token of [0, 1, 2, 3]) jsonCodec.decode(bytes(request(token, '"a":1', `${meta.slice(0, -1)},"progressToken":${token}}`)), NO_LIMIT);
    assert.equal(knownMetaReads(), before, 'each parsed in full');
  });
});
