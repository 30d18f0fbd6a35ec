/**
 * Turns what a user registers into catalog entries, doing all the work once: names checked, schemas
 * converted and compiled, URI templates parsed, wire definitions built and frozen.
 */
import { headerAnnotations } from '../core/protocol/header-mirror.ts';
import type { Completer, PromptEntry, PromptGetter, ResourceEntry, ResourceReader, TemplateEntry, TemplateReader, ToolEntry, ToolHandler, ArgumentValidator } from '../actors/features/catalog.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { Prompt } from '../core/protocol/prompts.ts';
import type { ResourceTemplate } from '../core/protocol/resources.ts';
import type { Tool } from '../core/protocol/tools.ts';
import { compileSchema } from '../core/schema/compile.ts';
import { fromStandardSchema, toStandardSchema } from '../core/schema/standard-schema.ts';
import { validateToolName } from '../core/schema/tool-name.ts';
import { parseUriTemplate } from '../core/uri-template/index.ts';
import type { PromptDefinition, ResourceDefinition, SchemaInput, TemplateDefinition, ToolDefinition } from './types.ts';
import type { AccessRule } from '../actors/features/access.ts';

/** A tool without an input schema takes no arguments. */
const NO_ARGUMENTS: JsonObject = Object.freeze({ type: 'object', additionalProperties: false });

function defined<T extends object>(fields: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as T;
}

function compile(schema: SchemaInput, io: 'input' | 'output'): { jsonSchema: JsonObject; validator: ArgumentValidator } {
  const standard = toStandardSchema(schema);
  if (standard !== undefined) {
    const converted = fromStandardSchema(standard, io);
    return { jsonSchema: converted.jsonSchema, validator: converted };
  }
  const compiled = compileSchema(schema as JsonObject, { rootMustBeObject: true, subject: io === 'input' ? 'arguments' : 'structured content' });
  return { jsonSchema: compiled.jsonSchema, validator: compiled };
}

export function buildTool(definition: ToolDefinition, handler: ToolHandler<never>): ToolEntry {
  const problem = validateToolName(definition.name);
  if (problem !== undefined) throw new RangeError(`Tool name "${definition.name}": ${problem}`);
  const input = compile(definition.inputSchema ?? NO_ARGUMENTS, 'input');
  const output = definition.outputSchema === undefined ? undefined : compile(definition.outputSchema, 'output');
  const wire: Tool = Object.freeze(defined({
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: input.jsonSchema as Tool['inputSchema'],
    outputSchema: output?.jsonSchema as Tool['outputSchema'],
    annotations: definition.annotations,
    icons: definition.icons,
    execution: definition.execution,
    _meta: definition._meta,
  }) as Tool);
  // Invalid header annotations would make every modern HTTP client drop the tool: refuse them here instead.
  const annotated = headerAnnotations(wire.inputSchema);
  if (!annotated.ok) throw new RangeError(`Tool "${definition.name}": ${annotated.problem}`);
  return { definition: wire, input: input.validator, output: output?.validator, handler, headers: annotated.annotations, access: accessRule(definition.requires, definition.name) };
}

export function buildResource(full: ResourceDefinition, read: ResourceReader): ResourceEntry {
  const { requires, ...definition } = full;
  if (typeof definition.uri !== 'string' || definition.uri.length === 0) throw new RangeError('A resource needs a non-empty uri');
  try {
    new URL(definition.uri);
  } catch {
    throw new RangeError(`Resource uri "${definition.uri}" is not an absolute URI`);
  }
  return { definition: Object.freeze({ ...definition }), read, access: accessRule(requires, definition.uri) };
}

export function buildTemplate(definition: TemplateDefinition, read: TemplateReader): TemplateEntry {
  const { complete, requires, ...wire } = definition;
  const template = parseUriTemplate(definition.uriTemplate);
  if (!template.matchable) throw new RangeError(`Template "${definition.uriTemplate}" expands but cannot be matched against URIs, so it could never be read`);
  for (const name of Object.keys(complete ?? {})) {
    if (!template.variableNames.includes(name)) throw new RangeError(`Template "${definition.uriTemplate}" has no variable "${name}" to complete`);
  }
  return { definition: Object.freeze(wire as ResourceTemplate), template, read, complete: complete ?? {}, access: accessRule(requires, definition.uriTemplate) };
}

export function buildPrompt(definition: PromptDefinition, get: PromptGetter): PromptEntry {
  const complete: Record<string, Completer> = {};
  const args = definition.arguments?.map(({ complete: completer, ...argument }) => {
    if (completer !== undefined) complete[argument.name] = completer;
    return Object.freeze(argument);
  });
  const wire: Prompt = Object.freeze(defined({
    name: definition.name,
    title: definition.title,
    description: definition.description,
    icons: definition.icons,
    arguments: args,
    _meta: definition._meta,
  }) as Prompt);
  return { definition: wire, get, complete, access: accessRule(definition.requires, definition.name) };
}

/** A registration's access rule, checked once: scopes are non-empty strings (a frozen copy), or a function. */
function accessRule(rule: AccessRule | undefined, name: string): AccessRule | undefined {
  if (rule === undefined || typeof rule === 'function') return rule;
  if (!Array.isArray(rule) || rule.some((scope) => typeof scope !== 'string' || scope.length === 0 || scope.includes(' '))) {
    throw new RangeError(`"${name}": requires must be a list of scopes (non-empty, without spaces) or a predicate`);
  }
  return Object.freeze([...rule]);
}
