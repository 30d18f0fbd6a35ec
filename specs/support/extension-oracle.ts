/**
 * The schema oracle for sessions that speak an extension. The official schemas know no extension method, so the
 * oracle (schema-oracle.ts) reports every extension request and result as a violation; here those violations, and
 * only those, are checked again against the extension's own JSON Schema (written in this file from the extension's
 * specification: the skills extension, SEP-2640 stable text). Everything else must be clean as usual.
 *
 *   const { transport, oracle } = withSchemaOracle(raw);
 *   ... run ...
 *   assertCleanWithExtensions(oracle, SKILLS_SCHEMAS);
 */
import { AssertionError } from 'node:assert';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type OracleViolation, type SchemaOracle, formatViolations } from './schema-oracle.ts';

/** Per extension method: the JSON Schema of its request params and of its result. */
export type ExtensionSchemas = Readonly<Record<string, { readonly params: object; readonly result: object }>>;

const meta = { type: 'object' };
const cursor = { type: 'string' };
const cacheable = { ttlMs: { type: 'integer', minimum: 0 }, cacheScope: { enum: ['public', 'private'] }, resultType: { const: 'complete' }, _meta: meta };
const skillResource = {
  type: 'object',
  required: ['uri', 'digest', 'size'],
  properties: { uri: { type: 'string' }, digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' }, size: { type: 'integer', minimum: 0 } },
};
const skill = {
  type: 'object',
  required: ['uri', 'frontmatter', 'resources'],
  properties: {
    uri: { type: 'string' },
    frontmatter: { type: 'object', required: ['name', 'description'], properties: { name: { type: 'string' }, description: { type: 'string' } } },
    resources: { anyOf: [{ const: 'dynamic' }, { type: 'array', items: skillResource }] },
  },
};
const resource = {
  type: 'object',
  required: ['uri', 'name'],
  properties: { uri: { type: 'string' }, name: { type: 'string' }, mimeType: { type: 'string' }, size: { type: 'integer', minimum: 0 }, description: { type: 'string' } },
};

/** The skills extension (SEP-2640): `skills/list`, `skills/get`, `resources/directory/read`. */
export const SKILLS_SCHEMAS: ExtensionSchemas = {
  'skills/list': {
    params: { type: 'object', properties: { cursor, _meta: meta } },
    result: { type: 'object', required: ['skills'], properties: { skills: { type: 'array', items: skill }, nextCursor: cursor, ...cacheable } },
  },
  'skills/get': {
    params: { type: 'object', required: ['uri'], properties: { uri: { type: 'string' }, _meta: meta } },
    result: { type: 'object', required: ['skill'], not: { required: ['nextCursor'] }, properties: { skill, ...cacheable } },
  },
  'resources/directory/read': {
    params: { type: 'object', required: ['uri'], properties: { uri: { type: 'string' }, cursor, _meta: meta } },
    result: { type: 'object', required: ['resources'], properties: { resources: { type: 'array', items: resource }, nextCursor: cursor, resultType: { const: 'complete' }, _meta: meta } },
  },
};

const ajv = new Ajv2020({ allErrors: true, strict: false });

/** What an oracle violation is about when it concerns an extension method: the method and which half. */
function extensionPart(violation: OracleViolation, schemas: ExtensionSchemas): { method: string; part: 'params' | 'result' } | undefined {
  const message = violation.message as { method?: unknown };
  if (typeof message.method === 'string' && message.method in schemas) return { method: message.method, part: 'params' };
  const answered = /answers a (\S+) request, which does not exist/.exec(violation.errors)?.[1];
  return answered !== undefined && answered in schemas ? { method: answered, part: 'result' } : undefined;
}

/**
 * Passes when every violation concerns an extension method and that message is valid against the extension's
 * schema; returns how many extension messages were checked that way (a spec asserts it saw some).
 */
export function assertCleanWithExtensions(oracle: SchemaOracle, schemas: ExtensionSchemas): number {
  if (oracle.checked === 0) throw new AssertionError({ message: 'the schema oracle checked no message' });
  const others: OracleViolation[] = [];
  const problems: string[] = [];
  let checked = 0;
  for (const violation of oracle.violations) {
    const about = extensionPart(violation, schemas);
    if (about === undefined) {
      others.push(violation);
      continue;
    }
    checked++;
    const message = violation.message as { params?: unknown; result?: unknown };
    const value = about.part === 'params' ? (message.params ?? {}) : message.result;
    const validate = ajv.compile((schemas[about.method] as ExtensionSchemas[string])[about.part]);
    if (!validate(value)) problems.push(`${about.method} ${about.part}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`);
  }
  if (others.length > 0 || problems.length > 0) {
    throw new AssertionError({ message: `schema violations:\n${formatViolations(others)}\n${problems.join('\n')}` });
  }
  return checked;
}
