import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectDialect, isSchemaError, type SchemaError } from '../../../core/schema/index.ts';

function refusal(schema: Record<string, unknown>): SchemaError {
  try {
    detectDialect(schema);
  } catch (error) {
    assert.ok(isSchemaError(error));
    return error;
  }
  assert.fail('expected a SchemaError');
}

describe('schema dialect', () => {
  test('schema dialect - no $schema means 2020-12', () => {
    assert.equal(detectDialect({ type: 'object' }), '2020-12');
  });

  test('schema dialect - the 2020-12 URI with or without a trailing #', () => {
    assert.equal(detectDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' }), '2020-12');
    assert.equal(detectDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema#' }), '2020-12');
  });

  test('schema dialect - draft-07 over http or https, with or without #', () => {
    for (const uri of [
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-07/schema',
      'https://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft-07/schema',
    ]) {
      assert.equal(detectDialect({ $schema: uri }), 'draft-07', uri);
    }
  });

  test('schema dialect - draft-04 is refused, named, with the supported dialects listed', () => {
    const error = refusal({ $schema: 'http://json-schema.org/draft-04/schema#' });
    assert.equal(error.code, 'UnsupportedDialect');
    assert.equal(error._tag, 'SchemaError');
    assert.match(error.message, /draft-04/);
    assert.match(error.message, /2020-12/);
    assert.match(error.message, /draft-07/);
  });

  test('schema dialect - 2019-09 is refused', () => {
    const error = refusal({ $schema: 'https://json-schema.org/draft/2019-09/schema' });
    assert.equal(error.code, 'UnsupportedDialect');
    assert.match(error.message, /2019-09/);
  });

  test('schema dialect - an unknown URI is refused', () => {
    const error = refusal({ $schema: 'https://example.com/my-meta-schema' });
    assert.equal(error.code, 'UnsupportedDialect');
    assert.match(error.message, /example\.com\/my-meta-schema/);
    assert.match(error.message, /unknown dialect/);
  });

  test('schema dialect - a non-string $schema is an invalid schema', () => {
    assert.equal(refusal({ $schema: 7 }).code, 'InvalidSchema');
  });
});
