import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import {
  compileSchema,
  isSchemaError,
  MAX_SCHEMA_DEPTH,
  MAX_SUBSCHEMAS,
  schemaCompilerStats,
  SCHEMAS_PER_ENGINE,
  type SchemaErrorCode,
  type ValidationOutcome,
} from '../../../core/schema/index.ts';

const weather: JsonObject = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer', minimum: 1 },
    unit: { type: 'string', enum: ['c', 'f'] },
  },
  required: ['city'],
};

function refusedWith(code: SchemaErrorCode, schema: JsonObject, options?: { rootMustBeObject?: boolean }): string {
  try {
    compileSchema(schema, options);
  } catch (error) {
    assert.ok(isSchemaError(error), String(error));
    assert.equal(error.code, code, error.message);
    return error.message;
  }
  assert.fail(`expected SchemaError ${code}`);
}

function failed(outcome: ValidationOutcome): Extract<ValidationOutcome, { ok: false }> {
  assert.equal(outcome.ok, false, 'expected a failed validation');
  return outcome as Extract<ValidationOutcome, { ok: false }>;
}

function nest(levels: number): JsonObject {
  let schema: JsonObject = { type: 'string' };
  for (let i = 1; i < levels; i++) schema = { type: 'object', additionalProperties: schema };
  return schema;
}

describe('schema compile', () => {
  test('schema compile - compiles once at registration and reuses the validator for every call', () => {
    const before = schemaCompilerStats().compilations;
    const compiled = compileSchema(weather);
    assert.equal(schemaCompilerStats().compilations, before + 1);
    for (let i = 0; i < 100; i++) {
      assert.equal(compiled.validate({ city: 'Oslo', days: i + 1 }).ok, true);
      assert.equal(compiled.validate({ city: i }).ok, false);
    }
    assert.equal(schemaCompilerStats().compilations, before + 1);
  });

  test('schema compile - a valid value passes and comes back as the value', () => {
    const args = { city: 'Oslo', days: 3, unit: 'c' };
    assert.deepEqual(compileSchema(weather).validate(args), { ok: true, value: args });
  });

  test('schema compile - wrong types and a minimum are reported per field, in the summary too', () => {
    const outcome = failed(compileSchema(weather).validate({ city: 5, days: 0 }));
    assert.deepEqual(outcome.issues, [
      { path: '/city', message: 'must be string' },
      { path: '/days', message: 'must be >= 1' },
    ]);
    assert.equal(outcome.summary, 'Invalid arguments: /city must be string; /days must be >= 1');
  });

  test('schema compile - a missing required field is named by its own path', () => {
    const outcome = failed(compileSchema(weather).validate({ days: 2 }));
    assert.deepEqual(outcome.issues, [{ path: '/city', message: 'is required' }]);
    assert.equal(outcome.summary, 'Invalid arguments: /city is required');
  });

  test('schema compile - an enum failure lists the allowed values', () => {
    const outcome = failed(compileSchema(weather).validate({ city: 'Oslo', unit: 'k' }));
    assert.deepEqual(outcome.issues, [{ path: '/unit', message: 'must be one of "c", "f"' }]);
  });

  test('schema compile - unexpected properties, nested items, formats and the root are located', () => {
    const compiled = compileSchema(
      {
        type: 'object',
        properties: { tags: { type: 'array', items: { type: 'string' } }, mail: { type: 'string', format: 'email' }, 'a/b': { type: 'number' } },
        additionalProperties: false,
      },
      { subject: 'structured content' },
    );
    const outcome = failed(compiled.validate({ tags: ['x', 2], mail: 'nope', 'a/b': 'x', extra: true }));
    assert.deepEqual(new Set(outcome.issues.map((issue) => issue.path)), new Set(['/tags/1', '/mail', '/a~1b', '/extra']));
    assert.ok(outcome.issues.some((issue) => issue.path === '/extra' && issue.message === 'is not allowed'));
    assert.ok(outcome.issues.some((issue) => issue.path === '/mail' && /format "email"/.test(issue.message)));
    assert.match(outcome.summary, /^Invalid structured content: /);
    assert.equal(failed(compiled.validate('text')).summary, 'Invalid structured content: (root) must be object');
  });

  test('schema compile - jsonSchema is the object given, $schema, $id, $defs and additionalProperties untouched', () => {
    const schema: JsonObject = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://example.com/tools/weather',
      type: 'object',
      $defs: { city: { type: 'string', minLength: 1 } },
      properties: { city: { $ref: '#/$defs/city' } },
      additionalProperties: false,
    };
    const copy = structuredClone(schema);
    const compiled = compileSchema(schema, { rootMustBeObject: true });
    assert.equal(compiled.jsonSchema, schema);
    assert.deepEqual(schema, copy);
    assert.equal(compiled.dialect, '2020-12');
  });

  test('schema compile - $defs with a local $ref validates through the reference', () => {
    const compiled = compileSchema({
      type: 'object',
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
    });
    assert.equal(compiled.validate({ from: { x: 1 }, to: { x: 2 } }).ok, true);
    assert.deepEqual(failed(compiled.validate({ from: { x: 'a' }, to: {} })).issues, [
      { path: '/from/x', message: 'must be number' },
      { path: '/to/x', message: 'is required' },
    ]);
  });

  test('schema compile - draft-07 with definitions and a recursive local $ref', () => {
    const compiled = compileSchema({
      $schema: 'https://json-schema.org/draft-07/schema',
      type: 'object',
      definitions: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } } } },
      properties: { tree: { $ref: '#/definitions/node' } },
    });
    assert.equal(compiled.dialect, 'draft-07');
    assert.equal(compiled.validate({ tree: { children: [{ children: [] }] } }).ok, true);
    assert.deepEqual(failed(compiled.validate({ tree: { children: [{ children: 3 }] } })).issues, [
      { path: '/tree/children/0/children', message: 'must be array' },
    ]);
  });

  test('schema compile - a remote $ref is refused, never fetched', () => {
    for (const ref of ['https://example.com/schemas/city.json', 'city.json#/x', 'urn:example:city', '/absolute/path']) {
      const message = refusedWith('UnresolvableRef', { type: 'object', properties: { city: { $ref: ref } } });
      assert.ok(message.includes(ref), message);
    }
    refusedWith('UnresolvableRef', { $ref: 'http://json-schema.org/draft-07/schema#', type: 'object' });
  });

  test('schema compile - a local $ref to nothing is unresolvable', () => {
    refusedWith('UnresolvableRef', { type: 'object', properties: { city: { $ref: '#/$defs/missing' } } });
  });

  test('schema compile - a property named $ref and data mentioning URLs are not references', () => {
    const compiled = compileSchema({
      type: 'object',
      properties: { $ref: { type: 'string', default: 'https://example.com/x', examples: [{ $ref: 'https://example.com' }] } },
    });
    assert.equal(compiled.validate({ $ref: 'x' }).ok, true);
  });

  test('schema compile - nesting is bounded at 64 levels', () => {
    assert.equal(MAX_SCHEMA_DEPTH, 64);
    compileSchema(nest(64));
    assert.match(refusedWith('InvalidSchema', nest(65)), /deeper than 64 levels/);
    let deepDefault: unknown = 1;
    for (let i = 0; i < 80; i++) deepDefault = [deepDefault];
    refusedWith('InvalidSchema', { type: 'object', default: deepDefault });
  });

  test('schema compile - more than 10,000 subschemas are refused', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < MAX_SUBSCHEMAS; i++) properties[`p${i}`] = { type: 'string' };
    assert.match(refusedWith('InvalidSchema', { type: 'object', properties }), /more than 10000 subschemas/);
  });

  test('schema compile - two schemas with the same $id do not clash', () => {
    const a = compileSchema({ $id: 'https://example.com/same', type: 'object', properties: { n: { type: 'string' } } });
    const b = compileSchema({ $id: 'https://example.com/same', type: 'object', properties: { n: { type: 'number' } } });
    assert.equal(a.validate({ n: 'x' }).ok, true);
    assert.equal(a.validate({ n: 1 }).ok, false);
    assert.equal(b.validate({ n: 1 }).ok, true);
    assert.equal(b.validate({ n: 'x' }).ok, false);
  });

  test('schema compile - identical schemas, or one object twice, compile independently', () => {
    const before = schemaCompilerStats().compilations;
    const first = compileSchema(structuredClone(weather));
    const second = compileSchema(structuredClone(weather));
    const third = compileSchema(weather);
    const fourth = compileSchema(weather);
    assert.equal(schemaCompilerStats().compilations, before + 4);
    for (const compiled of [first, second, third, fourth]) assert.equal(compiled.validate({ city: 'x' }).ok, true);
  });

  test('schema compile - an ajv instance is retired after its budget and its validators keep working', () => {
    const start = schemaCompilerStats();
    const validators = [];
    for (let i = 0; i <= SCHEMAS_PER_ENGINE; i++) validators.push(compileSchema({ type: 'object', properties: { n: { const: i } } }));
    assert.ok(schemaCompilerStats().engines > start.engines);
    validators.forEach((compiled, i) => assert.equal(compiled.validate({ n: i }).ok, true));
    assert.equal(validators[0]?.validate({ n: 1 }).ok, false);
  });

  test('schema compile - with rootMustBeObject a non-object root is refused', () => {
    assert.match(refusedWith('InvalidSchema', { type: 'string' }, { rootMustBeObject: true }), /"type": "object"/);
    refusedWith('InvalidSchema', { properties: {} }, { rootMustBeObject: true });
    assert.equal(compileSchema({ type: 'string' }).validate('x').ok, true);
  });

  test('schema compile - a schema failing its meta-schema is invalid', () => {
    assert.match(refusedWith('InvalidSchema', { type: 'object', properties: { a: { type: 'strin' } } }), /Invalid JSON Schema/);
    refusedWith('InvalidSchema', { type: 'object', required: 'a' });
  });

  test('schema compile - an unsupported dialect is refused before compiling', () => {
    refusedWith('UnsupportedDialect', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' });
  });
});
