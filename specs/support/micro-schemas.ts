/**
 * The NATS services protocol's three answers (ADR-32: `$SRV.PING`, `INFO`, `STATS`) as JSON Schemas, written from
 * the fields docs.nats.io documents as required for each (type, name, id, a semver version, metadata of strings;
 * INFO: description and endpoints; STATS: started and per-endpoint counts), as a test oracle:
 * `assertMicroShape('INFO', value)` fails naming every error.
 */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const SEMVER = '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$';
const strings = { type: 'object', additionalProperties: { type: 'string' } };
const identity = (type: string) => ({
  type: { const: type },
  name: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$', minLength: 1 },
  id: { type: 'string', minLength: 1 },
  version: { type: 'string', pattern: SEMVER, minLength: 5 },
  metadata: { oneOf: [strings, { type: 'null' }] },
});
const count = { type: 'integer', minimum: 0 };

const schemas = {
  PING: { type: 'object', required: ['type', 'name', 'id', 'version'], properties: identity('io.nats.micro.v1.ping_response') },
  INFO: {
    type: 'object',
    required: ['type', 'name', 'id', 'version', 'description', 'endpoints'],
    properties: {
      ...identity('io.nats.micro.v1.info_response'),
      description: { type: 'string' },
      endpoints: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'subject'],
          properties: { name: { type: 'string', minLength: 1 }, subject: { type: 'string', minLength: 1 }, queue_group: { type: 'string' }, metadata: { oneOf: [strings, { type: 'null' }] } },
        },
      },
    },
  },
  STATS: {
    type: 'object',
    required: ['type', 'name', 'id', 'version', 'started', 'endpoints'],
    properties: {
      ...identity('io.nats.micro.v1.stats_response'),
      started: { type: 'string', format: 'date-time' },
      endpoints: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name', 'subject', 'num_requests', 'num_errors', 'processing_time', 'average_processing_time'],
          properties: {
            name: { type: 'string', minLength: 1 },
            subject: { type: 'string', minLength: 1 },
            queue_group: { type: 'string' },
            num_requests: count,
            num_errors: count,
            last_error: { type: 'string' },
            processing_time: count,
            average_processing_time: count,
          },
        },
      },
    },
  },
} as const;

export type MicroVerb = keyof typeof schemas;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const compiled = new Map<MicroVerb, ValidateFunction>();

export function assertMicroShape(verb: MicroVerb, value: unknown): void {
  let validate = compiled.get(verb);
  if (validate === undefined) compiled.set(verb, (validate = ajv.compile(schemas[verb])));
  assert.ok(validate(value), `not a valid ${verb} answer: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`);
}
