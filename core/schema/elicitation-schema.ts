/**
 * The restricted schema of a form elicitation (`elicitation/create`, `requestedSchema`, MCP 2025-11-25): a
 * flat object whose properties are primitive definitions only (`PrimitiveSchemaDefinition` in the spec):
 *
 *   string          `type: "string"`, `minLength`, `maxLength`, `format` in email / uri / date / date-time
 *   number          `type: "number" | "integer"`, `minimum`, `maximum`
 *   boolean         `type: "boolean"`
 *   single select   `type: "string"` with `enum: [...]` (legacy: plus `enumNames`), or with
 *                   `oneOf: [{ const, title }]`
 *   multi select    `type: "array"`, `minItems`, `maxItems`, with `items: { type: "string", enum: [...] }`
 *                   or `items: { anyOf: [{ const, title }] }`
 *
 * Every definition may carry `title`, `description` and a `default` of its own type. Keywords that would
 * nest a schema (`properties`, `items` outside a multi-select, `$ref`, `allOf`, ...) are refused; other
 * keywords (a `pattern`, say) are tolerated, as the spec's own JSON Schema tolerates them.
 */
import type { JsonObject } from '../jsonrpc.ts';
import { isJsonObject } from '../protocol/guards.ts';

type Def = Readonly<Record<string, unknown>>;

const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/** Keywords that would nest a schema; allowed only where a kind says so. */
const NESTING = [
  'properties', 'patternProperties', 'additionalProperties', 'items', 'prefixItems', 'contains', 'propertyNames',
  'unevaluatedProperties', 'unevaluatedItems', '$ref', '$dynamicRef', '$defs', 'definitions', 'allOf', 'anyOf',
  'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies',
];

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The first problem among optional keywords of one definition, or `undefined`. */
function checkKeywords(def: Def, checks: Readonly<Record<string, (value: unknown) => boolean>>, what: Readonly<Record<string, string>>): string | undefined {
  for (const [key, ok] of Object.entries(checks)) {
    if (def[key] !== undefined && !ok(def[key])) return `"${key}" must be ${what[key] ?? 'valid'}`;
  }
  return undefined;
}

const isText = (v: unknown): boolean => typeof v === 'string';
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

function ordered(def: Def, low: string, high: string): string | undefined {
  const [a, b] = [def[low], def[high]];
  return typeof a === 'number' && typeof b === 'number' && a > b ? `"${low}" must not exceed "${high}"` : undefined;
}

/** `[{ const, title }]` options (titled single and multi select): their values, or a problem. */
function titledOptions(options: unknown, keyword: string): readonly string[] | string {
  if (!Array.isArray(options) || options.length === 0) return `"${keyword}" must be a non-empty array of { const, title } options`;
  const values: string[] = [];
  for (const option of options) {
    if (!isJsonObject(option) || typeof option['const'] !== 'string' || typeof option['title'] !== 'string') {
      return `each "${keyword}" option must be { "const": string, "title": string }`;
    }
    values.push(option['const']);
  }
  return values;
}

function checkDefault(def: Def, ok: (value: unknown) => boolean, what: string): string | undefined {
  return def['default'] === undefined || ok(def['default']) ? undefined : `"default" must be ${what}`;
}

function checkString(def: Def): string | undefined {
  const { enum: values, oneOf, enumNames } = def;
  const hasNesting = NESTING.find((key) => key !== 'oneOf' && def[key] !== undefined);
  if (hasNesting !== undefined) return `"${hasNesting}" is not allowed in a string field`;
  const problem =
    checkKeywords(def, { minLength: isCount, maxLength: isCount, format: (v) => STRING_FORMATS.has(v as string) },
      { minLength: 'a non-negative integer', maxLength: 'a non-negative integer', format: 'one of email, uri, date, date-time' }) ??
    ordered(def, 'minLength', 'maxLength');
  if (problem !== undefined) return problem;
  if (values !== undefined && oneOf !== undefined) return 'a single-select field has either "enum" or "oneOf", not both';
  if (enumNames !== undefined && values === undefined) return '"enumNames" needs "enum"';
  let allowed: readonly string[] | undefined;
  if (values !== undefined) {
    if (!isStringArray(values) || values.length === 0) return '"enum" must be a non-empty array of strings';
    if (enumNames !== undefined && (!isStringArray(enumNames) || enumNames.length !== values.length)) {
      return '"enumNames" must be an array of strings, one per "enum" value';
    }
    allowed = values;
  } else if (oneOf !== undefined) {
    const options = titledOptions(oneOf, 'oneOf');
    if (typeof options === 'string') return options;
    allowed = options;
  }
  return checkDefault(def, (v) => typeof v === 'string' && (allowed === undefined || allowed.includes(v)),
    allowed === undefined ? 'a string' : 'one of the allowed values');
}

function checkNumber(def: Def, integer: boolean): string | undefined {
  const hasNesting = NESTING.find((key) => def[key] !== undefined);
  if (hasNesting !== undefined) return `"${hasNesting}" is not allowed in a number field`;
  return (
    checkKeywords(def, { minimum: isNumber, maximum: isNumber }, { minimum: 'a number', maximum: 'a number' }) ??
    ordered(def, 'minimum', 'maximum') ??
    checkDefault(def, (v) => isNumber(v) && (!integer || Number.isInteger(v)), integer ? 'an integer' : 'a number')
  );
}

function checkBoolean(def: Def): string | undefined {
  const hasNesting = NESTING.find((key) => def[key] !== undefined);
  if (hasNesting !== undefined) return `"${hasNesting}" is not allowed in a boolean field`;
  return checkDefault(def, (v) => typeof v === 'boolean', 'a boolean');
}

function checkMultiSelect(def: Def): string | undefined {
  const hasNesting = NESTING.find((key) => key !== 'items' && def[key] !== undefined);
  if (hasNesting !== undefined) return `"${hasNesting}" is not allowed in a multi-select field`;
  const items = def['items'];
  if (!isJsonObject(items)) return 'an array field must be a multi-select: "items" with a string "enum" or an "anyOf" of { const, title }';
  const problem =
    checkKeywords(def, { minItems: isCount, maxItems: isCount }, { minItems: 'a non-negative integer', maxItems: 'a non-negative integer' }) ??
    ordered(def, 'minItems', 'maxItems');
  if (problem !== undefined) return problem;
  let allowed: readonly string[];
  if (items['anyOf'] !== undefined && items['enum'] === undefined && items['type'] === undefined) {
    const options = titledOptions(items['anyOf'], 'items.anyOf');
    if (typeof options === 'string') return options;
    allowed = options;
  } else if (items['type'] === 'string' && items['anyOf'] === undefined && isStringArray(items['enum']) && items['enum'].length > 0) {
    allowed = items['enum'];
  } else {
    return 'the items of a multi-select must be { "type": "string", "enum": [strings] } or { "anyOf": [{ const, title }] } (no nested objects or arrays)';
  }
  const nested = NESTING.find((key) => key !== 'anyOf' && items[key] !== undefined);
  if (nested !== undefined) return `"items.${nested}" is not allowed in a multi-select field`;
  return checkDefault(def, (v) => isStringArray(v) && v.every((item) => allowed.includes(item)), 'an array of the allowed values');
}

function checkProperty(def: unknown): string | undefined {
  if (!isJsonObject(def)) return 'must be a schema object';
  const common = checkKeywords(def, { title: isText, description: isText }, { title: 'a string', description: 'a string' });
  if (common !== undefined) return common;
  const type = def['type'];
  switch (type) {
    case 'string':
      return checkString(def);
    case 'number':
    case 'integer':
      return checkNumber(def, type === 'integer');
    case 'boolean':
      return checkBoolean(def);
    case 'array':
      return checkMultiSelect(def);
    case 'object':
      return 'nested objects are not allowed: a requested field must be a primitive (string, number, integer, boolean) or an enum';
    default:
      return `"type" ${JSON.stringify(type)} is not allowed: a requested field must be a string, number, integer, boolean, or a single- or multi-select enum`;
  }
}

/** The field kinds that exist from 2025-11-25 only. */
function newerKind(def: Def, revision: string | undefined): string | undefined {
  if (def['type'] === 'array') return `multi-select fields exist from revision 2025-11-25, not in ${revision}`;
  if (def['oneOf'] !== undefined) return `titled single-select ("oneOf") fields exist from revision 2025-11-25, not in ${revision}`;
  return undefined;
}

/**
 * `undefined` when `schema` is a valid `requestedSchema` for a form elicitation, else a sentence naming the
 * first problem (and the property it is in). With `revision` before 2025-11-25, the field kinds that
 * revision lacks (titled and multi-select enums) are problems too.
 */
export function checkElicitationSchema(schema: JsonObject, options: { readonly revision?: string | undefined } = {}): string | undefined {
  if (!isJsonObject(schema)) return 'requestedSchema must be an object';
  if (schema['type'] !== 'object') return 'requestedSchema must have "type": "object"';
  if (schema['$schema'] !== undefined && typeof schema['$schema'] !== 'string') return 'requestedSchema "$schema" must be a string';
  const properties = schema['properties'];
  if (!isJsonObject(properties)) return 'requestedSchema must have "properties", an object of field definitions';
  const nested = NESTING.find((key) => key !== 'properties' && key !== 'additionalProperties' && schema[key] !== undefined);
  if (nested !== undefined) return `requestedSchema must be flat: "${nested}" is not allowed at its root`;
  if (schema['additionalProperties'] !== undefined && typeof schema['additionalProperties'] !== 'boolean') {
    return 'requestedSchema must be flat: "additionalProperties" may only be a boolean';
  }
  // Titled and multi-select enums arrived in 2025-11-25: an older client would not understand them.
  const older = options.revision !== undefined && options.revision < '2025-11-25';
  for (const [name, def] of Object.entries(properties)) {
    const problem = checkProperty(def) ?? (older ? newerKind(def as Def, options.revision) : undefined);
    if (problem !== undefined) return `requestedSchema property "${name}": ${problem}`;
  }
  const required = schema['required'];
  if (required !== undefined) {
    if (!isStringArray(required)) return 'requestedSchema "required" must be an array of property names';
    const unknown = required.find((name) => !Object.hasOwn(properties, name));
    if (unknown !== undefined) return `requestedSchema "required" names "${unknown}", which is not among its properties`;
  }
  return undefined;
}

/**
 * Client side: `content` with every omitted field that has a `default` in `schema` filled in. Returns
 * `content` itself when nothing is missing; never mutates it.
 */
export function applyElicitationDefaults(schema: JsonObject, content: JsonObject | undefined): JsonObject {
  const properties = schema['properties'];
  const given = content ?? {};
  if (!isJsonObject(properties)) return given;
  let filled: Record<string, unknown> | undefined;
  for (const [name, def] of Object.entries(properties)) {
    if (!isJsonObject(def) || def['default'] === undefined || Object.hasOwn(given, name)) continue;
    filled ??= { ...given };
    const value = def['default'];
    filled[name] = Array.isArray(value) ? [...(value as readonly unknown[])] : value;
  }
  return filled ?? given;
}
