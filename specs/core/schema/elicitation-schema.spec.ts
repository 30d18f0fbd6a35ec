import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { applyElicitationDefaults, checkElicitationSchema } from '../../../core/schema/index.ts';
import { loadRevisionSchema } from '../../support/schema-registry.ts';

const official = loadRevisionSchema('2025-11-25');

/** One field of each kind the 2025-11-25 spec allows (PrimitiveSchemaDefinition). */
const ALLOWED: Readonly<Record<string, JsonObject>> = {
  plainString: { type: 'string', title: 'Name', description: 'Your name', minLength: 1, maxLength: 50, default: 'Ann' },
  email: { type: 'string', format: 'email' },
  uri: { type: 'string', format: 'uri' },
  date: { type: 'string', format: 'date' },
  dateTime: { type: 'string', format: 'date-time' },
  number: { type: 'number', minimum: 0.5, maximum: 10, default: 1.5 },
  integer: { type: 'integer', minimum: 1, maximum: 5, default: 3, title: 'Stars' },
  boolean: { type: 'boolean', default: false, description: 'Subscribe?' },
  untitledSingle: { type: 'string', enum: ['red', 'green'], default: 'red' },
  titledSingle: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }, { const: '#0f0', title: 'Green' }], default: '#0f0' },
  legacyTitled: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
  untitledMulti: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2, default: ['a'] },
  titledMulti: { type: 'array', items: { anyOf: [{ const: 'x', title: 'Ex' }, { const: 'y', title: 'Why' }] }, default: ['y'] },
};

function form(properties: JsonObject, extra: JsonObject = {}): JsonObject {
  return { type: 'object', properties, ...extra };
}

function refusal(schema: JsonObject, pattern: RegExp): void {
  const problem = checkElicitationSchema(schema);
  assert.ok(problem !== undefined, `expected ${JSON.stringify(schema)} to be refused`);
  assert.match(problem, pattern);
}

describe('elicitation schema', () => {
  test('elicitation schema - every kind the spec allows is accepted (and the official schema agrees)', () => {
    for (const [name, definition] of Object.entries(ALLOWED)) {
      const schema = form({ [name]: definition }, { required: [name] });
      assert.equal(checkElicitationSchema(schema), undefined, name);
      assert.deepEqual(official.check('ElicitRequestFormParams', { message: 'm', requestedSchema: schema }), [], name);
    }
    assert.equal(checkElicitationSchema(form(ALLOWED, { $schema: 'https://json-schema.org/draft/2020-12/schema' })), undefined);
    assert.equal(checkElicitationSchema(form({})), undefined);
  });

  test('elicitation schema - the root must be a flat object with properties', () => {
    refusal({ type: 'string' }, /"type": "object"/);
    refusal({ type: 'object' }, /must have "properties"/);
    refusal(form({}, { $defs: { a: { type: 'string' } } }), /flat: "\$defs"/);
    refusal(form({}, { additionalProperties: { type: 'string' } }), /"additionalProperties" may only be a boolean/);
    assert.equal(checkElicitationSchema(form({}, { additionalProperties: false })), undefined);
  });

  test('elicitation schema - nested objects are refused', () => {
    refusal(form({ address: { type: 'object', properties: { street: { type: 'string' } } } }), /property "address": nested objects/);
  });

  test('elicitation schema - arrays of objects or of free strings are refused', () => {
    refusal(form({ people: { type: 'array', items: { type: 'object', properties: {} } } }), /property "people": the items of a multi-select/);
    refusal(form({ tags: { type: 'array', items: { type: 'string' } } }), /property "tags"/);
    refusal(form({ tags: { type: 'array' } }), /multi-select/);
    refusal(form({ tags: { type: 'array', items: { type: 'string', enum: ['a'], items: { type: 'string' } } } }), /"items\.items"/);
  });

  test('elicitation schema - references, combinators and unknown types are refused', () => {
    refusal(form({ a: { $ref: '#/$defs/x' } }), /property "a": "type" undefined/);
    refusal(form({ a: { type: 'string', $ref: '#/$defs/x' } }), /"\$ref" is not allowed/);
    refusal(form({ a: { type: 'string', anyOf: [{ const: 'x' }] } }), /"anyOf" is not allowed/);
    refusal(form({ a: { type: 'null' } }), /"type" "null" is not allowed/);
    refusal(form({ a: { type: ['string', 'number'] } }), /is not allowed/);
    refusal(form({ a: 'string' }), /must be a schema object/);
  });

  test('elicitation schema - keyword values are checked', () => {
    refusal(form({ a: { type: 'string', format: 'ipv4' } }), /"format" must be one of email, uri, date, date-time/);
    refusal(form({ a: { type: 'string', minLength: -1 } }), /"minLength"/);
    refusal(form({ a: { type: 'string', minLength: 5, maxLength: 2 } }), /must not exceed/);
    refusal(form({ a: { type: 'number', minimum: 'low' } }), /"minimum" must be a number/);
    refusal(form({ a: { type: 'integer', default: 1.5 } }), /"default" must be an integer/);
    refusal(form({ a: { type: 'boolean', default: 'yes' } }), /"default" must be a boolean/);
    refusal(form({ a: { type: 'string', title: 5 } }), /"title" must be a string/);
    refusal(form({ a: { type: 'string', enum: [] } }), /non-empty array of strings/);
    refusal(form({ a: { type: 'string', enum: ['x'], default: 'y' } }), /one of the allowed values/);
    refusal(form({ a: { type: 'string', enum: ['x', 'y'], enumNames: ['X'] } }), /one per "enum" value/);
    refusal(form({ a: { type: 'string', enumNames: ['X'] } }), /"enumNames" needs "enum"/);
    refusal(form({ a: { type: 'string', oneOf: [{ const: 'x' }] } }), /\{ "const": string, "title": string \}/);
    refusal(form({ a: { type: 'string', enum: ['x'], oneOf: [{ const: 'x', title: 'X' }] } }), /not both/);
    refusal(form({ a: { type: 'array', items: { type: 'string', enum: ['x'] }, default: ['z'] } }), /allowed values/);
  });

  test('elicitation schema - required must name properties', () => {
    refusal(form({ a: { type: 'string' } }, { required: 'a' }), /array of property names/);
    refusal(form({ a: { type: 'string' } }, { required: ['b'] }), /names "b"/);
  });

  test('elicitation defaults - omitted fields are filled from their defaults, given ones kept', () => {
    const schema = form(ALLOWED);
    const content = { plainString: 'Bob', boolean: true };
    const filled = applyElicitationDefaults(schema, content);
    assert.deepEqual(filled, {
      plainString: 'Bob',
      boolean: true,
      number: 1.5,
      integer: 3,
      untitledSingle: 'red',
      titledSingle: '#0f0',
      untitledMulti: ['a'],
      titledMulti: ['y'],
    });
    assert.deepEqual(content, { plainString: 'Bob', boolean: true }, 'the given content is not mutated');
    assert.notEqual(filled['untitledMulti'], (ALLOWED['untitledMulti'] as { default: unknown }).default, 'array defaults are copied');
  });

  test('elicitation defaults - nothing to fill returns the content itself; no content starts empty', () => {
    const content = { a: 'x' };
    assert.equal(applyElicitationDefaults(form({ a: { type: 'string', default: 'y' } }), content), content);
    assert.deepEqual(applyElicitationDefaults(form({ a: { type: 'string', default: 'y' }, b: { type: 'string' } }), undefined), { a: 'y' });
  });
});
