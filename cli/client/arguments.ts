/**
 * `key=value` words as the arguments of a tool or prompt. A tool's values are read by its input schema's type
 * for that key: numbers and booleans as such, objects and arrays as JSON, anything else as the string typed.
 */
import type { JsonObject } from '../../core/jsonrpc.ts';
import { UsageError, closestFlag } from '../args.ts';

type Schema = { readonly [key: string]: unknown };

/** Splits `key=value` words, refusing a word without `=` and a key given twice. */
export function keyValues(command: string, words: readonly string[]): Array<[string, string]> {
  const seen = new Set<string>();
  return words.map((word) => {
    const equals = word.indexOf('=');
    if (equals <= 0) throw new UsageError(command, `arguments are key=value, got ${JSON.stringify(word)}`);
    const key = word.slice(0, equals);
    if (seen.has(key)) throw new UsageError(command, `${key} is given twice`);
    seen.add(key);
    return [key, word.slice(equals + 1)];
  });
}

/** A tool's arguments from `key=value` words, typed by its input schema. */
export function toolArguments(command: string, tool: string, words: readonly string[], inputSchema: unknown): JsonObject {
  const schema = (typeof inputSchema === 'object' && inputSchema !== null ? inputSchema : {}) as Schema;
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  const closed = schema['additionalProperties'] === false;
  const args: Record<string, unknown> = {};
  for (const [key, raw] of keyValues(command, words)) {
    const property = properties[key];
    if (property === undefined && closed) {
      const names = Object.keys(properties);
      const closest = closestFlag(key, names);
      throw new UsageError(command, `${tool} takes no argument ${JSON.stringify(key)}${closest === undefined ? '' : `; did you mean ${closest}?`} (it takes ${names.join(', ') || 'none'})`);
    }
    args[key] = typedValue(command, key, raw, property);
  }
  return args;
}

function typedValue(command: string, key: string, raw: string, property: Schema | undefined): unknown {
  const declared = property?.['type'];
  const types = Array.isArray(declared) ? (declared as string[]) : typeof declared === 'string' ? [declared] : [];
  if (types.length === 0 || types.includes('string')) return raw;
  if (types.includes('integer') || types.includes('number')) {
    const value = raw.trim() === '' ? Number.NaN : Number(raw);
    if (Number.isFinite(value) && (types.includes('number') || Number.isInteger(value))) return value;
    if (!types.some((type) => type === 'boolean' || type === 'object' || type === 'array' || type === 'null')) {
      throw new UsageError(command, `${key} must be ${types.includes('number') ? 'a number' : 'an integer'} (the tool's input schema says ${types.join('|')}), got ${JSON.stringify(raw)}`);
    }
  }
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (types.includes('null') && raw === 'null') return null;
  if (types.includes('object') || types.includes('array')) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new UsageError(command, `${key} must be JSON (the tool's input schema says ${types.join('|')}), got ${JSON.stringify(raw)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const isArray = Array.isArray(value);
    if ((isArray && types.includes('array')) || (!isArray && typeof value === 'object' && value !== null && types.includes('object'))) return value;
  }
  throw new UsageError(command, `${key} must be ${types.map(describeType).join(' or ')} (the tool's input schema), got ${JSON.stringify(raw)}`);
}

function describeType(type: string): string {
  switch (type) {
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'a JSON object';
    case 'array':
      return 'a JSON array';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    default:
      return type;
  }
}
