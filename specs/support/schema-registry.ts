/**
 * Loads the official MCP JSON Schemas (one per revision) and derives, from the schema text itself, what the
 * schema oracle needs: a validator per definition (compiled lazily), the wire methods of each revision, and the
 * result definition that answers each request method.
 *
 * Everything here is derived from the schema files, never from the runtime under test: an oracle that reused
 * the project's own tables would only confirm them.
 *
 * Schemas live next to the repository: `<repoRoot>/../shared/spec/schema/<revision>/schema.json`.
 * 2025-03-26 and 2025-06-18 are JSON Schema draft-07 (`definitions`); 2025-11-25 and 2026-07-28 are 2020-12
 * (`$defs`).
 *
 * There is no schema for 2024-11-05 in shared/spec/schema. Its traffic is validated against 2025-03-26, the
 * closest revision and (for what a sender may put on the wire) a superset of it: 2025-03-26 added things (audio
 * content, tool annotations, the `completions` capability, progress `message`, batches) and removed none, so a
 * valid 2024-11-05 message is also valid there. The price is that a 2024-11-05 sender using a 2025-03-26-only
 * field passes unnoticed. Batches are the one addition that changes framing, so the oracle rejects them for
 * 2024-11-05 separately (see {@link allowsBatchesIn}).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

// ajv and ajv-formats are CommonJS with `export default` typings. Under NodeNext the default import of such a
// module is typed as `module.exports`, so `new (default import)()` does not typecheck. ajv also exposes the
// classes as named exports (`Ajv`, `Ajv2020`), which typecheck and run. ajv-formats only has the default one:
// at runtime `module.exports` is the plugin function and carries itself as `.default`, so `.default` is right
// for both the typings and Node.
const addFormats = formatsModule.default;

export const SCHEMA_REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type SchemaRevision = (typeof SCHEMA_REVISIONS)[number];

/** The revision whose schema can express an error response without an id (see the oracle). */
export const ID_LESS_ERROR_REVISION: SchemaRevision = '2025-11-25';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function schemaPath(revision: SchemaRevision): string {
  return path.join(repoRoot, '..', 'shared', 'spec', 'schema', revision, 'schema.json');
}

/** The schema that validates traffic of `revision`, or undefined when there is none. */
export function schemaRevisionFor(revision: string): SchemaRevision | undefined {
  if (revision === '2024-11-05') return '2025-03-26';
  return (SCHEMA_REVISIONS as readonly string[]).includes(revision) ? (revision as SchemaRevision) : undefined;
}

/** Batches exist in 2025-03-26 only: the schema must define them, and 2024-11-05 (validated there) had none. */
export function allowsBatchesIn(revision: string): boolean {
  const schema = schemaRevisionFor(revision);
  return revision !== '2024-11-05' && schema !== undefined && loadRevisionSchema(schema).has('JSONRPCBatchResponse');
}

/**
 * The result definition each request method is answered with, by name. A name missing from a revision's schema
 * falls back to `<Name>Result` derived from the request definition (`FooRequest` -> `FooResult`), then to
 * `EmptyResult`, then to `Result`. Resolved against the four schemas this gives (checked by the spec):
 *
 * | method                    | 2025-03-26 / 2025-06-18 / 2025-11-25  | 2026-07-28                         |
 * | ------------------------- | ------------------------------------- | ---------------------------------- |
 * | ping                      | EmptyResult                           | (no such method)                   |
 * | initialize                | InitializeResult                      | (no such method)                   |
 * | tools/list, tools/call    | ListToolsResult, CallToolResult       | same (+ InputRequiredResult: call) |
 * | resources/list            | ListResourcesResult                   | same                               |
 * | resources/templates/list  | ListResourceTemplatesResult           | same                               |
 * | resources/read            | ReadResourceResult                    | same (+ InputRequiredResult)       |
 * | resources/(un)subscribe   | EmptyResult                           | (no such method)                   |
 * | prompts/list, prompts/get | ListPromptsResult, GetPromptResult    | same (+ InputRequiredResult: get)  |
 * | completion/complete       | CompleteResult                        | same                               |
 * | logging/setLevel          | EmptyResult                           | (no such method)                   |
 * | sampling/createMessage    | CreateMessageResult                   | (not a wire request: input request) |
 * | roots/list                | ListRootsResult                       | (not a wire request: input request) |
 * | elicitation/create        | ElicitResult (from 2025-06-18)        | (not a wire request: input request) |
 * | tasks/get, tasks/list     | GetTaskResult, ListTasksResult (11-25) | (no such method)                  |
 * | tasks/cancel, tasks/result| CancelTaskResult, GetTaskPayloadResult | (no such method)                  |
 * | server/discover           | -                                     | DiscoverResult                     |
 * | subscriptions/listen      | -                                     | SubscriptionsListenResult          |
 *
 * `GetTaskPayloadResult` is the schema's name for "any Result" (open object). In 2025-11-25 a task-augmented
 * request (params carry `task`) may instead be answered with `CreateTaskResult`.
 */
export const RESULT_DEFINITIONS: Readonly<Record<string, string>> = {
  ping: 'EmptyResult',
  initialize: 'InitializeResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
  'elicitation/create': 'ElicitResult',
  'tasks/get': 'GetTaskResult',
  'tasks/result': 'GetTaskPayloadResult',
  'tasks/list': 'ListTasksResult',
  'tasks/cancel': 'CancelTaskResult',
  'server/discover': 'DiscoverResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

export type Role = 'client' | 'server';

export interface WireMethod {
  readonly kind: 'request' | 'notification';
  /**
   * The definition of the method (`PingRequest`, `ProgressNotification`...). In draft-07 revisions it covers
   * `method` and `params` only; the envelope (`jsonrpc`, `id`) is JSONRPCRequest/JSONRPCNotification.
   */
  readonly definition: string;
  /** Who may send it, from the ClientX/ServerX unions it belongs to. */
  readonly senders: ReadonlySet<Role>;
}

const UNIONS = [
  { name: 'ClientRequest', kind: 'request', sender: 'client' },
  { name: 'ServerRequest', kind: 'request', sender: 'server' },
  { name: 'ClientNotification', kind: 'notification', sender: 'client' },
  { name: 'ServerNotification', kind: 'notification', sender: 'server' },
] as const;

export interface RevisionSchema {
  readonly revision: SchemaRevision;
  has(definition: string): boolean;
  /** Validates `value` against one definition; returns readable errors (empty when valid). */
  check(definition: string, value: unknown, at?: string): string[];
  /** True when the definition requires `property` (e.g. whether an error response must carry an id). */
  requires(definition: string, property: string): boolean;
  /** Methods that may appear on the wire as a JSON-RPC request or notification in this revision. */
  readonly methods: ReadonlyMap<string, WireMethod>;
  /** The result definition answering `method` (a request method of this revision). */
  resultDefinition(method: string): string;
  /** True when the schema lets `method` be answered with an `InputRequiredResult` (2026-07-28). */
  acceptsInputRequired(method: string): boolean;
}

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function methodConst(definition: unknown): string | undefined {
  if (!isObject(definition) || !isObject(definition['properties'])) return undefined;
  const method = definition['properties']['method'];
  return isObject(method) && typeof method['const'] === 'string' ? method['const'] : undefined;
}

function formatError(error: ErrorObject, at: string): string {
  const where = `${at}${error.instancePath}` || '(message)';
  const params = error.params as Record<string, unknown>;
  let detail = '';
  if (error.keyword === 'const') detail = ` (${JSON.stringify(params['allowedValue'])})`;
  else if (error.keyword === 'enum') detail = ` (${JSON.stringify(params['allowedValues'])})`;
  else if (error.keyword === 'additionalProperties') detail = ` (${String(params['additionalProperty'])})`;
  return `${where} ${error.message ?? 'is invalid'}${detail} [${error.schemaPath}]`;
}

const cache = new Map<SchemaRevision, RevisionSchema>();

export function loadRevisionSchema(revision: SchemaRevision): RevisionSchema {
  const cached = cache.get(revision);
  if (cached !== undefined) return cached;
  const loaded = compile(revision);
  cache.set(revision, loaded);
  return loaded;
}

function compile(revision: SchemaRevision): RevisionSchema {
  const parsed: unknown = JSON.parse(readFileSync(schemaPath(revision), 'utf8'));
  if (!isObject(parsed)) throw new TypeError(`${schemaPath(revision)} is not a JSON object`);
  const draft07 = String(parsed['$schema']).includes('draft-07');
  const defsKey = draft07 ? 'definitions' : '$defs';
  const defs = parsed[defsKey];
  if (!isObject(defs)) throw new TypeError(`${schemaPath(revision)} has no "${defsKey}"`);

  const options = { strict: false, allErrors: true, logger: false } as const;
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  addFormats(ajv);
  const key = `https://rxmcp.invalid/mcp-schema/${revision}/schema.json`;
  ajv.addSchema(parsed as AnySchemaObject, key);

  const validators = new Map<string, ValidateFunction>();
  const validator = (definition: string): ValidateFunction => {
    let fn = validators.get(definition);
    if (fn === undefined) {
      if (!isObject(defs[definition])) throw new RangeError(`${revision} has no definition ${definition}`);
      fn = ajv.getSchema(`${key}#/${defsKey}/${definition}`);
      if (fn === undefined) throw new RangeError(`ajv could not resolve ${definition} in ${revision}`);
      validators.set(definition, fn);
    }
    return fn;
  };

  // Wire methods come from the unions the schema itself declares: ClientRequest/ServerRequest and
  // ClientNotification/ServerNotification (anyOf of $refs, or in 2026-07-28 ClientNotification a single inline
  // copy of CancelledNotification, which is mapped back to the named definition by its method). Definitions
  // outside those unions are not wire messages: 2026-07-28 keeps CreateMessageRequest, ListRootsRequest and
  // ElicitRequest only as input requests embedded in an InputRequiredResult.
  const byConst = new Map<string, string>();
  for (const [name, definition] of Object.entries(defs)) {
    const constant = methodConst(definition);
    if (constant !== undefined && !UNIONS.some((union) => union.name === name)) byConst.set(constant, name);
  }
  const methods = new Map<string, WireMethod>();
  for (const union of UNIONS) {
    const definition = defs[union.name];
    if (!isObject(definition)) continue;
    const members = Array.isArray(definition['anyOf'])
      ? definition['anyOf'].map((member: unknown) => (isObject(member) ? String(member['$ref']).split('/').pop() : undefined))
      : [byConst.get(methodConst(definition) ?? '')];
    for (const member of members) {
      const method = member === undefined ? undefined : methodConst(defs[member]);
      if (member === undefined || method === undefined) continue;
      const existing = methods.get(method);
      const senders = new Set<Role>(existing?.senders ?? []).add(union.sender);
      methods.set(method, { kind: union.kind, definition: member, senders });
    }
  }

  const has = (definition: string): boolean => isObject(defs[definition]);
  const resultDefinition = (method: string): string => {
    const preferred = RESULT_DEFINITIONS[method];
    if (preferred !== undefined && has(preferred)) return preferred;
    const derived = methods.get(method)?.definition.replace(/Request$/, 'Result');
    if (derived !== undefined && has(derived)) return derived;
    return has('EmptyResult') ? 'EmptyResult' : 'Result';
  };
  const acceptsInputRequired = (method: string): boolean => {
    // 2026-07-28 spells out, per method, a `<Result>Response` whose `result` is anyOf [InputRequiredResult, ...].
    const response = defs[`${resultDefinition(method)}Response`];
    if (!isObject(response) || !isObject(response['properties'])) return false;
    const result = response['properties']['result'];
    return JSON.stringify(result ?? null).includes(`/InputRequiredResult"`);
  };

  return {
    revision,
    has,
    check(definition, value, at = '') {
      const fn = validator(definition);
      if (fn(value)) return [];
      return (fn.errors ?? []).map((error) => formatError(error, at));
    },
    requires(definition, property) {
      const definitionObject = defs[definition];
      const required = isObject(definitionObject) ? definitionObject['required'] : undefined;
      return Array.isArray(required) && required.includes(property);
    },
    methods,
    resultDefinition,
    acceptsInputRequired,
  };
}
