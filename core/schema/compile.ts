/**
 * JSON Schema compilation for tool input/output schemas: done once, when a tool is registered (or a tool
 * list is received), never per call. A compiled schema validates with ajv's generated code and reports in
 * the shape of {@link ValidationOutcome}.
 *
 * Engines: one ajv instance per dialect, shared by the whole process. Ajv keeps something of every schema
 * it compiles for as long as the instance lives (its code-generation scope holds the schema and the
 * validator; `removeSchema` does not clear that), so an instance is retired after
 * {@link SCHEMAS_PER_ENGINE} compilations and a fresh one takes over. A retired instance is garbage once
 * the validators it made are: a process that registers tools forever holds at most one generation of
 * dead schemas per dialect.
 *
 * Isolation: ajv is handed a shallow copy without `$id` and `$schema` (the dialect is already decided), with
 * `addUsedSchema: false`, and the copy is removed from ajv's cache afterwards. Two tools with identical
 * schemas, or with the same `$id`, therefore never share or clash; `jsonSchema` stays the object given.
 */
import { Ajv, MissingRefError } from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { JsonObject } from '../jsonrpc.ts';
import { checkSchemaBounds } from './bounds.ts';
import { detectDialect, type Dialect } from './dialect.ts';
import { escapeSegment, failure, type ValidationIssue, type ValidationOutcome } from './outcome.ts';
import { SchemaError } from './schema-error.ts';

const addFormats = formatsModule.default;

export interface CompiledSchema {
  /** The schema as given: `$schema`, `$id`, `$defs`, `additionalProperties` untouched. */
  readonly jsonSchema: JsonObject;
  readonly dialect: Dialect;
  validate(value: unknown): ValidationOutcome;
}

export interface CompileOptions {
  /** MCP tool `inputSchema`/`outputSchema` rule: the root must be `type: "object"`. */
  readonly rootMustBeObject?: boolean;
  /** What the summary says was invalid: `Invalid ${subject}: ...`. Default `arguments`. */
  readonly subject?: string;
}

/** Compilations an engine serves before it is retired (see the module comment). */
export const SCHEMAS_PER_ENGINE = 256;

interface Engine {
  readonly ajv: Ajv;
  compiled: number;
}

const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  addUsedSchema: false,
  logger: false,
  // No `loadSchema`: nothing is ever fetched. A `$ref` ajv cannot resolve locally fails compilation.
};

const engines = new Map<Dialect, Engine>();
const stats = { compilations: 0, engines: 0 };

function createAjv(dialect: Dialect): Ajv {
  // Ajv2020 and Ajv share the core class and its API; only the vocabularies differ.
  const ajv = dialect === '2020-12' ? (new Ajv2020(AJV_OPTIONS) as unknown as Ajv) : new Ajv(AJV_OPTIONS);
  addFormats(ajv);
  return ajv;
}

function engineFor(dialect: Dialect): Engine {
  let engine = engines.get(dialect);
  if (engine === undefined || engine.compiled >= SCHEMAS_PER_ENGINE) {
    engine = { ajv: createAjv(dialect), compiled: 0 };
    engines.set(dialect, engine);
    stats.engines += 1;
  }
  return engine;
}

/** Counters for tests and diagnostics: ajv compilations so far, and ajv instances created. */
export function schemaCompilerStats(): { readonly compilations: number; readonly engines: number } {
  return { ...stats };
}

function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as Readonly<Record<string, unknown>>;
  const child = (name: unknown): string => `${error.instancePath}/${escapeSegment(String(name))}`;
  switch (error.keyword) {
    case 'required':
      return { path: child(params['missingProperty']), message: 'is required' };
    case 'additionalProperties':
      return { path: child(params['additionalProperty']), message: 'is not allowed' };
    case 'unevaluatedProperties':
      return { path: child(params['unevaluatedProperty']), message: 'is not allowed' };
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? params['allowedValues'] : [];
      const shown = allowed.slice(0, 10).map((v) => JSON.stringify(v)).join(', ');
      return { path: error.instancePath, message: `must be one of ${shown}${allowed.length > 10 ? ', ...' : ''}` };
    }
    case 'const':
      return { path: error.instancePath, message: `must be ${JSON.stringify(params['allowedValue'])}` };
    default:
      return { path: error.instancePath, message: error.message ?? `fails "${error.keyword}"` };
  }
}

function compileWith(engine: Engine, copy: Record<string, unknown>): ValidateFunction {
  engine.compiled += 1;
  stats.compilations += 1;
  try {
    return engine.ajv.compile(copy);
  } catch (error) {
    if (error instanceof MissingRefError) {
      throw new SchemaError('UnresolvableRef', `The schema refers to "${error.missingRef}", which it does not define`, {
        cause: error,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new SchemaError('InvalidSchema', `Invalid JSON Schema: ${reason}`, { cause: error });
  } finally {
    engine.ajv.removeSchema(copy);
  }
}

/**
 * Compiles `schema` once. Throws {@link SchemaError}: `UnsupportedDialect` (see `detectDialect`),
 * `UnresolvableRef` (a `$ref` not starting with `#`, or a local one to nothing), `InvalidSchema` (fails its
 * meta-schema, deeper than 64 levels, more than 10,000 subschemas, or a non-object root when required).
 */
export function compileSchema(schema: JsonObject, options?: CompileOptions): CompiledSchema {
  const dialect = detectDialect(schema);
  if (options?.rootMustBeObject === true && schema['type'] !== 'object') {
    throw new SchemaError('InvalidSchema', `A tool schema must have "type": "object" at its root (got ${JSON.stringify(schema['type'])})`);
  }
  checkSchemaBounds(schema);
  const { $id: _id, $schema: _dialect, ...copy } = schema;
  const check = compileWith(engineFor(dialect), copy);
  const subject = options?.subject ?? 'arguments';
  return {
    jsonSchema: schema,
    dialect,
    validate(value: unknown): ValidationOutcome {
      if (check(value)) return { ok: true, value };
      return failure((check.errors ?? []).map(toIssue), subject);
    },
  };
}
