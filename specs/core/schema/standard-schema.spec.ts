import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema';
import { Schema } from 'effect';
import * as v from 'valibot';
import { z } from 'zod';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { effectSchema } from '../../../core/schema/effect-schema.ts';
import {
  DIALECT_URIS,
  fromStandardSchema,
  isSchemaError,
  isStandardSchema,
  toStandardSchema,
  type SchemaErrorCode,
  type StandardSchemaV1,
  type ValidationOutcome,
} from '../../../core/schema/index.ts';

type Failed = Extract<ValidationOutcome, { ok: false }>;

async function failed(outcome: ValidationOutcome | Promise<ValidationOutcome>): Promise<Failed> {
  const settled = await outcome;
  assert.equal(settled.ok, false, 'expected a failed validation');
  return settled as Failed;
}

function refusedWith(code: SchemaErrorCode, run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(isSchemaError(error), String(error));
    assert.equal(error.code, code, error.message);
    return error.message;
  }
  assert.fail(`expected SchemaError ${code}`);
}

const paths = (outcome: Failed): string[] => outcome.issues.map((issue) => issue.path);

const valibotConverter = (schema: StandardSchemaV1, io: 'input' | 'output'): object =>
  toJsonSchema(schema as unknown as v.GenericSchema, { target: 'draft-2020-12', typeMode: io });

describe('standard schema', () => {
  test('standard schema - recognises zod, valibot and wrapped Effect schemas, not plain JSON Schema', () => {
    assert.equal(isStandardSchema(z.object({})), true);
    assert.equal(isStandardSchema(v.object({})), true);
    assert.equal(isStandardSchema(Schema.toStandardSchemaV1(Schema.Struct({}))), true);
    assert.equal(isStandardSchema(Schema.Struct({})), false, 'a bare Effect schema has no ~standard');
    assert.equal(isStandardSchema({ type: 'object' }), false);
    assert.equal(isStandardSchema({ '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) } }), false);
    assert.equal(isStandardSchema(null), false);
    assert.equal(toStandardSchema({ type: 'object' }), undefined);
    assert.equal(isStandardSchema(toStandardSchema(effectSchema(Schema.Struct({})))), true);
  });

  test('standard schema - a bare Effect Schema is refused with the way to wrap it (effect is an optional peer)', () => {
    const message = refusedWith('InvalidSchema', () => toStandardSchema(Schema.Struct({ n: Schema.Finite })));
    assert.match(message, /effectSchema\(schema\) from "rxmcp\/effect"/);
    assert.match(refusedWith('InvalidSchema', () => toStandardSchema(Schema.String)), /Effect Schema/);
  });

  test('standard schema - zod 4 takes the Standard JSON Schema path and keeps its shape', () => {
    const tool = fromStandardSchema(z.object({ city: z.string(), days: z.number().int().min(1).optional() }), 'input');
    assert.equal(tool.vendor, 'zod');
    assert.equal(tool.source, 'standard-json-schema');
    assert.equal(tool.dialect, '2020-12');
    assert.deepEqual(tool.jsonSchema, {
      $schema: DIALECT_URIS['2020-12'],
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
      required: ['city'],
    });
  });

  test('standard schema - zod additionalProperties and $defs are preserved', () => {
    const strict = fromStandardSchema(z.strictObject({ a: z.string() }), 'input');
    assert.equal(strict.jsonSchema['additionalProperties'], false);
    const output = fromStandardSchema(z.object({ a: z.string() }), 'output');
    assert.equal(output.jsonSchema['additionalProperties'], false, 'zod closes objects in output mode');
    const Address = z.object({ street: z.string() }).meta({ id: 'Address' });
    const shared = fromStandardSchema(z.object({ home: Address, work: Address }), 'input');
    assert.deepEqual(shared.jsonSchema['properties'], { home: { $ref: '#/$defs/Address' }, work: { $ref: '#/$defs/Address' } });
    assert.deepEqual(shared.jsonSchema['$defs'], {
      Address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
    });
  });

  test('standard schema - a root that is a local $ref to an object is inlined', () => {
    const tool = fromStandardSchema(z.object({ a: z.string() }).meta({ id: 'Root' }), 'input');
    assert.equal(tool.jsonSchema['type'], 'object');
    assert.equal(tool.jsonSchema['$ref'], undefined);
    assert.deepEqual(tool.jsonSchema['properties'], { a: { type: 'string' } });
    assert.ok(tool.jsonSchema['$defs'] !== undefined, '$defs kept for references into it');
  });

  test('standard schema - zod validation reports field paths and returns the parsed value', async () => {
    const tool = fromStandardSchema(
      z.object({ city: z.string(), address: z.object({ street: z.string() }), unit: z.enum(['c', 'f']).default('c') }),
      'input',
    );
    const outcome = await failed(tool.validate({ city: 3, address: { street: 1 } }));
    assert.deepEqual(paths(outcome), ['/city', '/address/street']);
    assert.match(outcome.summary, /^Invalid arguments: \/city: Invalid input: expected string/);
    assert.deepEqual(await tool.validate({ city: 'Oslo', address: { street: 'Main' } }), {
      ok: true,
      value: { city: 'Oslo', address: { street: 'Main' }, unit: 'c' },
    });
  });

  test('standard schema - an async validation yields a promised outcome', async () => {
    const tool = fromStandardSchema(
      z.object({ name: z.string().refine(async (name) => Promise.resolve(name !== 'taken'), 'is taken') }),
      'input',
    );
    const pending = tool.validate({ name: 'taken' });
    assert.ok(pending instanceof Promise);
    assert.deepEqual((await failed(pending)).issues, [{ path: '/name', message: 'is taken' }]);
    assert.equal((await tool.validate({ name: 'free' })).ok, true);
  });

  test('standard schema - bare valibot has no Standard JSON Schema: refused unless a converter is given', () => {
    const schema = v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.minValue(1))) });
    assert.match(refusedWith('InvalidSchema', () => fromStandardSchema(schema, 'input')), /valibot.*options\.toJsonSchema/);
    const tool = fromStandardSchema(schema, 'input', { toJsonSchema: valibotConverter });
    assert.equal(tool.vendor, 'valibot');
    assert.equal(tool.source, 'converter');
    assert.deepEqual(tool.jsonSchema, {
      $schema: DIALECT_URIS['2020-12'],
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number', minimum: 1 } },
      required: ['city'],
    });
  });

  test('standard schema - valibot wrapped by toStandardJsonSchema takes the Standard JSON Schema path', async () => {
    const tool = fromStandardSchema(toStandardJsonSchema(v.strictObject({ city: v.string(), days: v.pipe(v.number(), v.minValue(1)) })), 'input');
    assert.equal(tool.source, 'standard-json-schema');
    assert.equal(tool.jsonSchema['additionalProperties'], false);
    assert.deepEqual(tool.jsonSchema['required'], ['city', 'days']);
    const outcome = await failed(tool.validate({ city: 1, days: 0 }));
    assert.deepEqual(paths(outcome), ['/city', '/days']);
    assert.match(outcome.summary, /\/days: Invalid value: Expected >=1 but received 0/);
  });

  test('standard schema - a converter that picks draft-07 keeps it', () => {
    const tool = fromStandardSchema(v.object({ a: v.string() }), 'input', {
      toJsonSchema: (schema) => toJsonSchema(schema as unknown as v.GenericSchema),
    });
    assert.equal(tool.dialect, 'draft-07');
    assert.equal(tool.jsonSchema['$schema'], 'http://json-schema.org/draft-07/schema#');
  });

  test('standard schema - an Effect Schema wrapped by effectSchema: its JSON Schema and field paths come through', async () => {
    const tool = fromStandardSchema(effectSchema(Schema.Struct({ city: Schema.String, days: Schema.optionalKey(Schema.Finite) })), 'input');
    assert.equal(tool.vendor, 'effect');
    assert.equal(tool.source, 'standard-json-schema');
    assert.deepEqual(tool.jsonSchema, {
      $schema: DIALECT_URIS['2020-12'],
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'number' } },
      required: ['city'],
      additionalProperties: true,
    });
    const outcome = await failed(tool.validate({ city: 3, days: 'x' }));
    assert.deepEqual(outcome.issues, [
      { path: '/city', message: 'Expected string' },
      { path: '/days', message: 'Expected number' },
    ]);
    assert.deepEqual(await tool.validate({ city: 'Oslo' }), { ok: true, value: { city: 'Oslo' } });
  });

  test('standard schema - an Effect schema wrapped by the user is taken as is', () => {
    const wrapped = Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(Schema.Struct({ n: Schema.Finite })));
    const tool = fromStandardSchema(wrapped, 'output');
    assert.equal(tool.vendor, 'effect');
    assert.deepEqual(tool.jsonSchema['required'], ['n']);
  });

  test('standard schema - a non-object root is refused for input and output', () => {
    assert.match(refusedWith('InvalidSchema', () => fromStandardSchema(z.string(), 'input')), /"type": "object".*"string"/);
    refusedWith('InvalidSchema', () => fromStandardSchema(z.array(z.string()), 'output'));
    refusedWith('InvalidSchema', () => fromStandardSchema(effectSchema(Schema.String), 'input'));
    refusedWith('InvalidSchema', () => fromStandardSchema(v.array(v.string()), 'input', { toJsonSchema: valibotConverter }));
  });

  test('standard schema - a converter choosing an unsupported dialect, or failing, is refused', () => {
    const schema = v.object({});
    refusedWith('UnsupportedDialect', () =>
      fromStandardSchema(schema, 'input', { toJsonSchema: () => ({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }) }),
    );
    refusedWith('InvalidSchema', () =>
      fromStandardSchema(schema, 'input', { toJsonSchema: () => { throw new Error('cannot'); } }),
    );
    refusedWith('UnresolvableRef', () =>
      fromStandardSchema(schema, 'input', { toJsonSchema: () => ({ type: 'object', properties: { a: { $ref: 'https://x.test/a' } } }) }),
    );
  });

  test('standard schema - a hand-written Standard Schema: symbol, index and {key} segments become a pointer', async () => {
    const custom: StandardSchemaV1 & { '~standard': { jsonSchema: { input: () => JsonObject; output: () => JsonObject } } } = {
      '~standard': {
        version: 1,
        vendor: 'custom',
        validate: async () => Promise.resolve({ issues: [{ message: 'bad', path: ['list', 0, { key: 'a/b' }, Symbol('s')] }, { message: 'root' }] }),
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    const tool = fromStandardSchema(custom, 'output');
    assert.equal(tool.jsonSchema['$schema'], DIALECT_URIS['2020-12'], '$schema added when the converter omits it');
    const outcome = await failed(tool.validate({}));
    assert.deepEqual(paths(outcome), ['/list/0/a~1b/s', '']);
    assert.equal(outcome.summary, 'Invalid structured content: /list/0/a~1b/s bad; (root) root');
  });
});
