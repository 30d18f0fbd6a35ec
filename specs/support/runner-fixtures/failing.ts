import assert from 'node:assert/strict';
import { test } from 'node:test';

test('failing.ts fails on purpose', () => {
  assert.equal(1 + 1, 3, 'the runner must report this and exit 1');
});
