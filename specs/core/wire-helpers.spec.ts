/**
 * The one rule each for request ids, progress tokens and thenables, which every layer now shares (they used to
 * exist in several versions with different rules).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isRequestId } from '../../core/jsonrpc.ts';
import { isProgressToken, progressTokenOf, reportedProgressTokenOf } from '../../core/progress-token.ts';
import { isThenable } from '../../core/thenable.ts';

describe('isRequestId: a string or an integer (MCP forbids null, JSON-RPC advises against fractions)', () => {
  test('accepts strings and safe integers', () => {
    for (const id of ['', 'a', 0, -3, 42, Number.MAX_SAFE_INTEGER]) assert.equal(isRequestId(id), true, String(id));
  });
  test('refuses fractions, non-finite numbers and anything else', () => {
    for (const id of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60, null, undefined, true, {}, []]) assert.equal(isRequestId(id), false, String(id));
  });
});

describe('progress tokens: a string or a number', () => {
  test('isProgressToken accepts strings and finite numbers, fractions included', () => {
    for (const token of ['t', '', 0, 7, 1.5, -2]) assert.equal(isProgressToken(token), true, String(token));
    for (const token of [Number.NaN, Number.POSITIVE_INFINITY, null, undefined, false, {}]) assert.equal(isProgressToken(token), false, String(token));
  });
  test('progressTokenOf reads a request\'s _meta.progressToken as sent, unchecked', () => {
    assert.equal(progressTokenOf({ _meta: { progressToken: 'p' } }), 'p');
    assert.deepEqual(progressTokenOf({ _meta: { progressToken: { not: 'a token' } } }), { not: 'a token' });
    assert.equal(progressTokenOf({ progressToken: 'p' }), undefined);
    assert.equal(progressTokenOf(undefined), undefined);
    assert.equal(progressTokenOf({ _meta: null }), undefined);
  });
  test('reportedProgressTokenOf reads a report\'s params.progressToken, only when it is a token', () => {
    assert.equal(reportedProgressTokenOf({ progressToken: 3, progress: 1 }), 3);
    assert.equal(reportedProgressTokenOf({ progressToken: true, progress: 1 }), undefined);
    assert.equal(reportedProgressTokenOf({ _meta: { progressToken: 3 } }), undefined);
    assert.equal(reportedProgressTokenOf('nope'), undefined);
  });
});

describe('isThenable: what await treats as a promise', () => {
  test('promises, objects and functions with a then method', () => {
    const callable = Object.assign(() => undefined, { then: () => undefined });
    const values: unknown[] = [Promise.resolve(1), { then: () => undefined }, callable];
    for (const value of values) assert.equal(isThenable(value), true);
  });
  test('not plain values, nor a then that is not a function', () => {
    for (const value of [null, undefined, 1, 'then', {}, { then: 1 }, () => undefined]) assert.equal(isThenable(value), false);
  });
});
