/**
 * A cheap walk over a JSON Schema before anything compiles it: bounds its nesting and size (so a hostile
 * or generated schema cannot make registration arbitrarily expensive) and refuses every `$ref` that is not
 * local. MCP (2026 rule): a schema's `$ref` is never dereferenced over the network, and we go further and
 * never look outside the schema document at all.
 */
import { SchemaError } from './schema-error.ts';
import { isJsonObject } from '../protocol/guards.ts';

/** Deepest subschema nesting accepted (a data value such as `default` is bounded the same way). */
export const MAX_SCHEMA_DEPTH = 64;
/** Most subschemas accepted in one schema document. */
export const MAX_SUBSCHEMAS = 10_000;

/** Keywords whose value is one subschema. */
const SINGLE = new Set([
  'additionalProperties', 'additionalItems', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedProperties', 'unevaluatedItems', 'contentSchema',
]);
/** Keywords whose value is an array of subschemas. */
const ARRAY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Reference keywords: each must point inside the document. */
const REFS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);

function tooDeep(at: string): SchemaError {
  return new SchemaError('InvalidSchema', `The schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels (at ${at || '/'})`);
}

/** Throws when a data value (`default`, `enum`, an unknown keyword) nests deeper than the bound allows. */
function checkData(value: unknown, depth: number, at: string): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_SCHEMA_DEPTH) throw tooDeep(at);
  for (const item of Array.isArray(value) ? value : Object.values(value)) checkData(item, depth + 1, at);
}

class Walk {
  private subschemas = 0;

  schema(node: unknown, depth: number, at: string): void {
    if (!isJsonObject(node)) {
      // Booleans are schemas too; anything else is left for the meta-schema check to name.
      if (typeof node === 'boolean') this.count();
      else checkData(node, depth, at);
      return;
    }
    if (depth > MAX_SCHEMA_DEPTH) throw tooDeep(at);
    this.count();
    for (const [key, value] of Object.entries(node)) {
      const here = `${at}/${key}`;
      if (REFS.has(key)) {
        if (typeof value === 'string' && !value.startsWith('#')) {
          throw new SchemaError(
            'UnresolvableRef',
            `The schema refers outside itself (${key} "${value}" at ${at || '/'}); only local references ("#...") are followed`,
          );
        }
      } else if (SINGLE.has(key)) {
        this.schema(value, depth + 1, here);
      } else if (ARRAY.has(key) || (key === 'items' && Array.isArray(value))) {
        this.each(value, depth, here);
      } else if (key === 'items') {
        this.schema(value, depth + 1, here);
      } else if (MAP.has(key) && isJsonObject(value)) {
        for (const [name, sub] of Object.entries(value)) this.schema(sub, depth + 1, `${here}/${name}`);
      } else if (key === 'dependencies' && isJsonObject(value)) {
        // draft-07: a name maps to a subschema or to an array of required names.
        for (const [name, sub] of Object.entries(value)) {
          if (Array.isArray(sub)) checkData(sub, depth + 1, here);
          else this.schema(sub, depth + 1, `${here}/${name}`);
        }
      } else {
        checkData(value, depth + 1, here);
      }
    }
  }

  private each(value: unknown, depth: number, at: string): void {
    if (!Array.isArray(value)) return checkData(value, depth + 1, at);
    value.forEach((sub, index) => this.schema(sub, depth + 1, `${at}/${index}`));
  }

  private count(): void {
    this.subschemas += 1;
    if (this.subschemas > MAX_SUBSCHEMAS) {
      throw new SchemaError('InvalidSchema', `The schema has more than ${MAX_SUBSCHEMAS} subschemas`);
    }
  }
}

/** Throws {@link SchemaError} when the schema is too deep or too large, or has a non-local `$ref`. */
export function checkSchemaBounds(schema: unknown): void {
  new Walk().schema(schema, 1, '');
}
