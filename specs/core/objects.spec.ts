/**
 * The fast copies of core/objects.ts give what the spread literals they replace give, for JSON-shaped data: the
 * same keys in the same order, later fields winning, the source untouched, and an own `__proto__` key (as
 * JSON.parse makes it) kept as a plain field, never turned into the copy's prototype.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { copyOwn, withField, withFields } from '../../core/objects.ts';

const jsonObject = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 });

describe('core/objects', () => {
  test('withField equals { ...source, [key]: value }, key order included, and leaves the source alone', () => {
    fc.assert(
      fc.property(jsonObject, fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), (source, key, value) => {
        const before = JSON.stringify(source);
        const copy = withField(source, key, value);
        const spread = Object.defineProperty({ ...source }, key, { value, enumerable: true, writable: true, configurable: true });
        assert.deepEqual(Object.keys(copy), Object.keys(spread));
        assert.equal(JSON.stringify(copy), JSON.stringify(spread));
        assert.equal(JSON.stringify(source), before);
        assert.notEqual(copy, source);
      }),
    );
  });

  test('withFields equals { ...source, ...fields }; an undefined source is an empty one', () => {
    fc.assert(
      fc.property(jsonObject, jsonObject, (source, fields) => {
        assert.equal(JSON.stringify(withFields(source, fields)), JSON.stringify(JSON.parse(JSON.stringify({ ...source, ...fields }))));
      }),
    );
    assert.deepEqual(withFields(undefined, { a: 1 }), { a: 1 });
    assert.deepEqual(withField(undefined, 'b', 2), { b: 2 });
    assert.deepEqual(copyOwn(undefined), {});
  });

  test('later fields win in place: a replaced key keeps its position', () => {
    const copy = withFields({ a: 1, resultType: 'input_required', c: 3 }, { resultType: 'complete', _meta: { x: 1 } });
    assert.deepEqual(Object.keys(copy), ['a', 'resultType', 'c', '_meta']);
    assert.equal(copy.resultType, 'complete');
  });

  test('an own __proto__ key is copied as a field, and the copy keeps Object.prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"name":"echo"}') as Record<string, unknown>;
    for (const copy of [copyOwn(parsed), withField(parsed, '_meta', {}), withFields({}, parsed)]) {
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.ok(Object.hasOwn(copy, '__proto__'));
      assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true });
      assert.equal((copy as { polluted?: unknown }).polluted, undefined);
    }
    const keyed = withField({ a: 1 }, '__proto__', { b: 2 });
    assert.equal(Object.getPrototypeOf(keyed), Object.prototype);
    assert.deepEqual(Object.keys(keyed), ['a', '__proto__']);
  });
});
