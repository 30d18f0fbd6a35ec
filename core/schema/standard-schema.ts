/**
 * Tool input/output schemas given as a Standard Schema (https://standardschema.dev): zod 4, valibot,
 * ArkType, Effect Schema and others. Validation is the library's own (`~standard.validate`, possibly async);
 * the JSON Schema that `tools/list` advertises comes, first match wins, from:
 *
 *   1. the Standard JSON Schema interface, `~standard.jsonSchema.input|output({ target })`, asked for
 *      draft-2020-12 and, failing that, draft-07. zod 4 (4.6) has it natively; valibot through
 *      `toStandardJsonSchema` of `@valibot/to-json-schema`; Effect through `Schema.toStandardJSONSchemaV1`;
 *   2. `options.toJsonSchema`, a converter the caller passes for a library without that interface
 *      (for a bare valibot schema: `(s, io) => toJsonSchema(s, { target: 'draft-2020-12', typeMode: io })`).
 *
 * A bare Effect Schema (no `~standard` of its own) is refused with the way to wrap it (`effectSchema` of
 * `rxmcp/effect`): `effect` is an optional peer that the root import never loads. Core never imports effect,
 * zod or valibot.
 *
 * The JSON Schema is checked like any tool schema: a supported dialect (`$schema` is set to 2020-12 when the
 * converter does not say), the size bounds and local-only `$ref`s of `compileSchema`, and `type: "object"`
 * at the root, which MCP requires of `inputSchema` and of `outputSchema` alike. A root that is only a local
 * `$ref` to an object definition (zod emits one for a schema with a `meta({ id })`) is inlined.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObject } from '../jsonrpc.ts';
import { checkSchemaBounds } from './bounds.ts';
import { DIALECT_URIS, detectDialect, type Dialect } from './dialect.ts';
import { failure, toPointer, type ValidationIssue, type ValidationOutcome } from './outcome.ts';
import { SchemaError } from './schema-error.ts';
import { isThenable } from '../thenable.ts';

export type { StandardJSONSchemaV1, StandardSchemaV1 };
export type SchemaIo = 'input' | 'output';

export interface FromStandardSchemaOptions {
  /**
   * Produces the JSON Schema when the library does not implement Standard JSON Schema. Typed `object` so a
   * converter typed with its own JSON Schema interface fits; the result is checked at registration.
   */
  readonly toJsonSchema?: (schema: StandardSchemaV1, io: SchemaIo) => object;
  /** What the summary says was invalid: `Invalid ${subject}: ...`. Default `arguments` / `structured content`. */
  readonly subject?: string;
}

export interface StandardToolSchema {
  readonly jsonSchema: JsonObject;
  readonly dialect: Dialect;
  /** The library, from `~standard.vendor`. */
  readonly vendor: string;
  /** Where `jsonSchema` came from. */
  readonly source: 'standard-json-schema' | 'converter';
  validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome>;
}

/** Objects and functions: what may carry properties (a schema library's value can be either). */
function hasProperties(value: unknown): value is Readonly<Record<string, unknown>> {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** True for a Standard Schema v1: `~standard` with `version: 1`, a `vendor` and a `validate` function. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (!hasProperties(value)) return false;
  const props: unknown = (value as Readonly<Record<string, unknown>>)['~standard'];
  return hasProperties(props) && props['version'] === 1 && typeof props['vendor'] === 'string' && typeof props['validate'] === 'function';
}

/** The Standard JSON Schema converter of a schema, when it has one. */
function jsonSchemaConverter(schema: StandardSchemaV1): StandardJSONSchemaV1.Converter | undefined {
  const converter: unknown = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  return hasProperties(converter) && typeof converter['input'] === 'function' && typeof converter['output'] === 'function'
    ? (converter as unknown as StandardJSONSchemaV1.Converter)
    : undefined;
}

/** effect's Schema TypeId: `Schema.isSchema` checks that the key holds itself. */
const EFFECT_SCHEMA_TYPE_ID = '~effect/Schema/Schema';

function isBareEffectSchema(value: unknown): boolean {
  return hasProperties(value) && (value as Readonly<Record<string, unknown>>)[EFFECT_SCHEMA_TYPE_ID] === EFFECT_SCHEMA_TYPE_ID;
}

/**
 * A tool schema as a Standard Schema: a Standard Schema as is; `undefined` for anything else (a plain JSON
 * Schema object, for instance). Throws {@link SchemaError} `InvalidSchema` for a bare Effect Schema, saying how
 * to wrap it.
 */
export function toStandardSchema(value: unknown): StandardSchemaV1 | undefined {
  if (isStandardSchema(value)) return value;
  if (isBareEffectSchema(value)) {
    throw new SchemaError(
      'InvalidSchema',
      'An Effect Schema is not a Standard Schema until wrapped: pass effectSchema(schema) from "rxmcp/effect" ' +
        '(or Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(schema)))',
    );
  }
  return undefined;
}

function convert(schema: StandardSchemaV1, io: SchemaIo, options: FromStandardSchemaOptions | undefined) {
  const vendor = schema['~standard'].vendor;
  const converter = jsonSchemaConverter(schema);
  if (converter !== undefined) {
    const failures: unknown[] = [];
    for (const target of ['draft-2020-12', 'draft-07'] as const) {
      try {
        return { produced: converter[io]({ target }), source: 'standard-json-schema' as const };
      } catch (error) {
        failures.push(error);
      }
    }
    throw new SchemaError('InvalidSchema', `The ${vendor} schema could not be converted to JSON Schema (${io})`, {
      cause: new AggregateError(failures),
    });
  }
  if (options?.toJsonSchema !== undefined) {
    try {
      return { produced: options.toJsonSchema(schema, io), source: 'converter' as const };
    } catch (error) {
      throw new SchemaError('InvalidSchema', `The ${vendor} schema could not be converted to JSON Schema (${io})`, { cause: error });
    }
  }
  throw new SchemaError(
    'InvalidSchema',
    `The ${vendor} schema does not implement Standard JSON Schema (~standard.jsonSchema); wrap it with its library's ` +
      `Standard JSON Schema adapter (valibot: toStandardJsonSchema from @valibot/to-json-schema) or pass options.toJsonSchema`,
  );
}

/** Inlines a root that is only a local `$ref` into `$defs`/`definitions`, so the root itself shows its type. */
function inlineRootRef(schema: JsonObject): JsonObject {
  const ref = schema['$ref'];
  const match = typeof ref === 'string' ? /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref) : null;
  if (match === null || schema['type'] !== undefined) return schema;
  const defs = schema[match[1] ?? ''];
  const name = (match[2] ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
  const target = hasProperties(defs) ? (defs as Readonly<Record<string, unknown>>)[name] : undefined;
  if (!hasProperties(target)) return schema;
  const { $ref: _ref, ...rest } = schema;
  return { ...(target as JsonObject), ...rest };
}

function normalise(produced: unknown, vendor: string, io: SchemaIo): { jsonSchema: JsonObject; dialect: Dialect } {
  if (!hasProperties(produced) || Array.isArray(produced)) {
    throw new SchemaError('InvalidSchema', `The ${vendor} schema converted to ${JSON.stringify(produced)}, not a JSON Schema object`);
  }
  let jsonSchema = inlineRootRef(produced as JsonObject);
  if (jsonSchema['$schema'] === undefined) jsonSchema = { $schema: DIALECT_URIS['2020-12'], ...jsonSchema };
  const dialect = detectDialect(jsonSchema);
  checkSchemaBounds(jsonSchema);
  if (jsonSchema['type'] !== 'object') {
    throw new SchemaError(
      'InvalidSchema',
      `A tool ${io} schema must describe an object (its JSON Schema needs "type": "object" at the root); ` +
        `the ${vendor} schema converted to type ${JSON.stringify(jsonSchema['type'])}`,
    );
  }
  return { jsonSchema, dialect };
}

function toIssue(issue: StandardSchemaV1.Issue): ValidationIssue {
  const segments = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment));
  return { path: toPointer(segments), message: issue.message };
}

function toOutcome(result: StandardSchemaV1.Result<unknown>, subject: string): ValidationOutcome {
  return result.issues === undefined ? { ok: true, value: result.value } : failure(result.issues.map(toIssue), subject);
}

/**
 * A tool schema from a Standard Schema. Throws {@link SchemaError} `InvalidSchema` when no JSON Schema can be
 * had or it does not describe an object, `UnsupportedDialect` when the converter chose a dialect we do not accept.
 */
export function fromStandardSchema(
  schema: StandardSchemaV1,
  io: SchemaIo,
  options?: FromStandardSchemaOptions,
): StandardToolSchema {
  const standard = toStandardSchema(schema);
  if (standard === undefined) throw new SchemaError('InvalidSchema', 'Not a Standard Schema (no "~standard" with version 1)');
  const vendor = standard['~standard'].vendor;
  const { produced, source } = convert(standard, io, options);
  const { jsonSchema, dialect } = normalise(produced, vendor, io);
  const subject = options?.subject ?? (io === 'input' ? 'arguments' : 'structured content');
  const check = standard['~standard'].validate.bind(standard['~standard']);
  return {
    jsonSchema,
    dialect,
    vendor,
    source,
    validate(value: unknown): ValidationOutcome | Promise<ValidationOutcome> {
      const result = check(value);
      return isThenable(result) ? Promise.resolve(result).then((settled) => toOutcome(settled, subject)) : toOutcome(result, subject);
    },
  };
}
