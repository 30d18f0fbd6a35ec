/**
 * The JSON Schema `@modelcontextprotocol/ext-apps` ships for MCP Apps (`schema.json`, generated from its spec
 * types), as a test oracle: `assertAppsShape('McpUiResourceMeta', value)` fails naming every error. Each definition
 * is compiled on its own (each carries its own `$schema` and `$defs`), once.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type AppsDefinition = 'McpUiResourceMeta' | 'McpUiToolMeta' | 'McpUiClientCapabilities' | 'McpUiToolResultNotification';

const document = JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('@modelcontextprotocol/ext-apps/schema.json')), 'utf8')) as {
  readonly $defs: Readonly<Record<string, object>>;
};
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

function validator(name: AppsDefinition): ValidateFunction {
  let validate = compiled.get(name);
  if (validate === undefined) {
    const schema = document.$defs[name];
    assert.ok(schema !== undefined, `ext-apps' schema.json has no definition ${name}`);
    validate = ajv.compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}

export function assertAppsShape(name: AppsDefinition, value: unknown): void {
  const validate = validator(name);
  assert.ok(validate(value), `not a valid ${name} (ext-apps schema.json): ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`);
}
