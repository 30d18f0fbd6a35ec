import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateToolName } from '../../../core/schema/index.ts';

describe('tool name', () => {
  test('tool name - letters, digits, underscore, hyphen and dot are accepted', () => {
    for (const name of ['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a', 'x-1', '0', '.-_']) {
      assert.equal(validateToolName(name), undefined, name);
    }
  });

  test('tool name - 128 characters is the longest accepted', () => {
    assert.equal(validateToolName('a'.repeat(128)), undefined);
    assert.match(validateToolName('a'.repeat(129)) ?? '', /at most 128 characters \(this one has 129\)/);
  });

  test('tool name - empty is refused', () => {
    assert.match(validateToolName('') ?? '', /must not be empty/);
  });

  test('tool name - spaces, commas, slashes and non-ASCII are refused naming the character', () => {
    assert.match(validateToolName('get user') ?? '', /found " " at position 4/);
    assert.match(validateToolName('a,b') ?? '', /found ","/);
    assert.match(validateToolName('tools/call') ?? '', /found "\/"/);
    assert.match(validateToolName('café') ?? '', /found "é" at position 4/);
    assert.match(validateToolName('😀x') ?? '', /at position 1/);
  });
});
