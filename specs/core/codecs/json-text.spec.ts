/**
 * Values that carry their JSON text (core/codecs/json-text.ts): the JSON codec writes a modern message's repeated
 * `_meta` from its known text, and the bytes are those `JSON.stringify` writes for the same message.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { encodeWithKnownMeta, withJsonText } from '../../../core/codecs/json-text.ts';
import { jsonCodec } from '../../../core/codecs/json.ts';
import type { JsonObject, WirePayload } from '../../../core/jsonrpc.ts';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A modern client envelope as connect-session.ts makes it. */
const envelope = withJsonText({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true }, elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'spec "client"\n', version: '1.0.0' },
});
const serverMeta = withJsonText({ 'io.modelcontextprotocol/serverInfo': { name: 'spec-server', version: '0.0.0' } });

/** JSON object members, keys that may look like anything (not `_meta`, which the message puts last). */
const members = fc.dictionary(fc.string().filter((key) => key !== '_meta' && key !== '__proto__'), fc.jsonValue(), { maxKeys: 5 }) as fc.Arbitrary<JsonObject>;
/** Strings of any code units: quotes, backslashes, control characters, lone surrogates (all need escaping). */
const anyString = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('a"b', 'a\\b', 'line\n', '\ud800', '\udfff x', '😀'));
const requestId = fc.oneof(fc.integer(), fc.constant(-0), fc.double(), anyString);

describe('json text', () => {
  test('json text - a request with a known envelope is written byte for byte as JSON.stringify writes it', () => {
    fc.assert(
      fc.property(requestId, anyString.filter((method) => method.length > 0), members, (id, method, rest) => {
        const message = { jsonrpc: '2.0', id, method, params: { ...rest, _meta: envelope } } as unknown as WirePayload;
        assert.notEqual(encodeWithKnownMeta(message), undefined, 'took the known-text path');
        assert.equal(text(jsonCodec.encode(message)), JSON.stringify(message));
        assert.deepStrictEqual(jsonCodec.decode(jsonCodec.encode(message), NO_LIMIT), JSON.parse(JSON.stringify(message)));
      }),
      { numRuns: 300 },
    );
  });

  test('json text - notifications and results too; params with nothing but _meta', () => {
    fc.assert(
      fc.property(requestId, members, (id, rest) => {
        const notification = { jsonrpc: '2.0', method: 'notifications/x', params: { ...rest, _meta: envelope } } as unknown as WirePayload;
        const result = { jsonrpc: '2.0', id, result: { ...rest, _meta: serverMeta } } as unknown as WirePayload;
        for (const message of [notification, result]) {
          assert.notEqual(encodeWithKnownMeta(message), undefined);
          assert.equal(text(jsonCodec.encode(message)), JSON.stringify(message));
        }
      }),
      { numRuns: 200 },
    );
    const bare = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope } } as unknown as WirePayload;
    assert.equal(text(jsonCodec.encode(bare)), JSON.stringify(bare));
  });

  test('json text - any other shape is encoded in full, as it is', () => {
    const others: unknown[] = [
      // A member a session never adds.
      { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: envelope }, extra: true },
      // Not JSON-RPC 2.0.
      { jsonrpc: '1.0', id: 1, method: 'm', params: { _meta: envelope } },
      // A batch.
      [{ jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: envelope } }],
      // Params that are not a plain object (their own toJSON decides what is written).
      { jsonrpc: '2.0', id: 1, method: 'm', params: Object.assign(Object.create({ toJSON: () => ({ replaced: true }) }) as object, { _meta: envelope }) },
      // A `_meta` without known text.
      { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { ...envelope } } },
      // An id present but undefined.
      { jsonrpc: '2.0', id: undefined, method: 'm', params: { _meta: envelope } },
    ];
    for (const message of others) {
      assert.equal(encodeWithKnownMeta(message as WirePayload), undefined, JSON.stringify(message));
      assert.equal(text(jsonCodec.encode(message as WirePayload)), JSON.stringify(message));
    }
  });

  test('json text - _meta not last: the same JSON, _meta written last', () => {
    const message = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { _meta: envelope, name: 'echo', arguments: { a: 1 } } } as unknown as WirePayload;
    assert.deepStrictEqual(JSON.parse(text(jsonCodec.encode(message))), JSON.parse(JSON.stringify(message)));
  });

  test('json text - the value is a frozen deep copy: the caller\'s objects stay theirs, the text cannot go stale', () => {
    const capabilities: JsonObject = { roots: { listChanged: true } };
    const info = { name: 'c', version: '1', dropped: undefined };
    const made = withJsonText({ capabilities, info });
    assert.ok(Object.isFrozen(made) && Object.isFrozen(made['capabilities']) && Object.isFrozen((made['capabilities'] as JsonObject)['roots']));
    assert.equal(Object.isFrozen(capabilities), false, 'the caller\'s object is not frozen');
    assert.deepStrictEqual(made, { capabilities: { roots: { listChanged: true } }, info: { name: 'c', version: '1' } }, 'its JSON form');
    (capabilities['roots'] as { listChanged: boolean }).listChanged = false;
    const message = { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: made } } as unknown as WirePayload;
    assert.equal(text(jsonCodec.encode(message)), JSON.stringify(message), 'later changes to the caller\'s objects do not reach it');
    // A copy (as setLogLevel makes one with a field more) does not carry the text: it is encoded as it is.
    const more = { ...made, level: 'debug' };
    const changed = { jsonrpc: '2.0', id: 2, method: 'm', params: { _meta: more } } as unknown as WirePayload;
    assert.equal(encodeWithKnownMeta(changed), undefined);
    assert.equal(text(jsonCodec.encode(changed)), JSON.stringify(changed));
  });
});
