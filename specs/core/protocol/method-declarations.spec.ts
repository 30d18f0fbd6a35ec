/**
 * The method declarations are the one place a method is described; the method table, the modern sets, the
 * `Mcp-Name` map, interceptor targets and scopes, the step-up rule lookup, span names and attributes, the
 * `Mcp-Param-*` check and the input keys are computed from them. These specs hold the tables as they were written
 * by hand before the declarations existed (so deriving them changed nothing), check every derived lookup against
 * the declaration of every method, and check the declarations against the official schema of every revision (so
 * no method the protocol has is missing, and none is in the wrong revision).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import type { ClientCapabilities, ServerCapabilities } from '../../../core/protocol/capabilities.ts';
import { type MethodDeclaration, type ParamsOf, type ResultOf, request } from '../../../core/protocol/declarations/declaration.ts';
import {
  METHOD_DECLARATIONS,
  cacheLists,
  cacheableMethods,
  declarationOf,
  inputCapableMethods,
  inputKeyPrefixes,
  legacyMethodTable,
  methodTargets,
  modernClientRequests,
  modernServerCapabilities,
  nameHeaderFields,
} from '../../../core/protocol/declarations/index.ts';
import { LEGACY_TASK_METHODS } from '../../../core/protocol/declarations/tasks.ts';
import { toolsCall } from '../../../core/protocol/declarations/tools.ts';
import { nameFieldOf } from '../../../core/protocol/header-mirror.ts';
import { type InterceptedRequest, InterceptorList, targetOf } from '../../../actors/interceptors.ts';
import { adopt } from '../../../actors/intercepted-request.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import { createServer } from '../../../server/create-server.ts';
import { isToolError, metricAttributesOf, spanAttributesOf, spanNameOf } from '../../../otel/attributes.ts';
import { methodAvailable, methodRule, type MethodRule, type Role } from '../../../core/protocol/methods.ts';
import {
  CACHEABLE_METHODS,
  INPUT_CAPABLE_METHODS,
  MODERN_CLIENT_REQUESTS,
  MODERN_SERVER_CAPABILITIES,
  type InputMethod,
  capabilityForInput,
  declaresInput,
  defaultInputKey,
  isInputMethod,
} from '../../../core/protocol/modern.ts';
import type { CallToolParams, CallToolResult } from '../../../core/protocol/tools.ts';
import { LEGACY_REVISIONS, type LegacyRevision } from '../../../core/protocol/versions.ts';
import { loadRevisionSchema, schemaRevisionFor } from '../../support/schema-registry.ts';

type Capabilities = ServerCapabilities & ClientCapabilities;

// ---- the hand-kept tables as they were (expected data) ----

/**
 * The legacy table before the declarations. `requires` is the capability path that had to be truthy
 * (`need(c.x?.y, 'x.y')`), or `custom` for the rules checked case by case below.
 */
const OLD_LEGACY_TABLE: Readonly<Record<string, { kind: 'request' | 'notification'; sender: Role | 'both'; since: LegacyRevision; beforeHandshake?: true; requires?: string }>> = {
  initialize: { kind: 'request', sender: 'client', since: '2024-11-05', beforeHandshake: true },
  ping: { kind: 'request', sender: 'both', since: '2024-11-05', beforeHandshake: true },
  'notifications/initialized': { kind: 'notification', sender: 'client', since: '2024-11-05', beforeHandshake: true },
  'notifications/cancelled': { kind: 'notification', sender: 'both', since: '2024-11-05', beforeHandshake: true },
  'notifications/progress': { kind: 'notification', sender: 'both', since: '2024-11-05', beforeHandshake: true },
  'tools/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'tools' },
  'tools/call': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'tools' },
  'resources/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'resources' },
  'resources/templates/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'resources' },
  'resources/read': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'resources' },
  'resources/subscribe': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'resources.subscribe' },
  'resources/unsubscribe': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'resources.subscribe' },
  'prompts/list': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'prompts' },
  'prompts/get': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'prompts' },
  'completion/complete': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'custom' },
  'logging/setLevel': { kind: 'request', sender: 'client', since: '2024-11-05', requires: 'logging' },
  'notifications/message': { kind: 'notification', sender: 'server', since: '2024-11-05', beforeHandshake: true, requires: 'logging' },
  'notifications/resources/updated': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: 'resources.subscribe' },
  'notifications/resources/list_changed': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: 'resources.listChanged' },
  'notifications/tools/list_changed': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: 'tools.listChanged' },
  'notifications/prompts/list_changed': { kind: 'notification', sender: 'server', since: '2024-11-05', requires: 'prompts.listChanged' },
  'sampling/createMessage': { kind: 'request', sender: 'server', since: '2024-11-05', requires: 'custom' },
  'roots/list': { kind: 'request', sender: 'server', since: '2024-11-05', requires: 'roots' },
  'notifications/roots/list_changed': { kind: 'notification', sender: 'client', since: '2024-11-05', requires: 'roots.listChanged' },
  'elicitation/create': { kind: 'request', sender: 'server', since: '2025-06-18', requires: 'custom' },
  'notifications/elicitation/complete': { kind: 'notification', sender: 'server', since: '2025-11-25' },
  'tasks/get': { kind: 'request', sender: 'both', since: '2025-11-25', requires: 'tasks' },
  'tasks/result': { kind: 'request', sender: 'both', since: '2025-11-25', requires: 'tasks' },
  'tasks/list': { kind: 'request', sender: 'both', since: '2025-11-25', requires: 'tasks.list' },
  'tasks/cancel': { kind: 'request', sender: 'both', since: '2025-11-25', requires: 'tasks.cancel' },
  'notifications/tasks/status': { kind: 'notification', sender: 'both', since: '2025-11-25', requires: 'tasks' },
};

/** The capability rules that were more than one flag, case by case: [capabilities, params, revision, missing]. */
const OLD_CUSTOM_RULES: Readonly<Record<string, readonly (readonly [Capabilities, JsonObject | undefined, LegacyRevision, string | undefined])[]>> = {
  'completion/complete': [
    [{}, undefined, '2024-11-05', undefined],
    [{}, undefined, '2025-03-26', 'completions'],
    [{ completions: {} }, undefined, '2025-03-26', undefined],
    [{}, undefined, '2025-11-25', 'completions'],
  ],
  'sampling/createMessage': [
    [{}, undefined, '2024-11-05', 'sampling'],
    [{ sampling: {} }, undefined, '2024-11-05', undefined],
    [{ sampling: {} }, { tools: [] }, '2025-06-18', 'sampling.tools (it exists from revision 2025-11-25)'],
    [{ sampling: { tools: {} } }, { toolChoice: {} }, '2025-06-18', 'sampling.tools (it exists from revision 2025-11-25)'],
    [{ sampling: {} }, { tools: [] }, '2025-11-25', 'sampling.tools'],
    [{ sampling: { tools: {} } }, { tools: [] }, '2025-11-25', undefined],
    [{ sampling: {} }, { toolChoice: { mode: 'auto' } }, '2025-11-25', 'sampling.tools'],
    [{ sampling: {} }, { includeContext: 'thisServer' }, '2025-06-18', undefined],
    [{ sampling: {} }, { includeContext: 'allServers' }, '2025-11-25', 'sampling.context'],
    [{ sampling: {} }, { includeContext: 'thisServer' }, '2025-11-25', 'sampling.context'],
    [{ sampling: { context: {} } }, { includeContext: 'thisServer' }, '2025-11-25', undefined],
    [{ sampling: {} }, { includeContext: 'none' }, '2025-11-25', undefined],
  ],
  'elicitation/create': [
    [{}, undefined, '2025-06-18', 'elicitation'],
    [{ elicitation: {} }, undefined, '2025-06-18', undefined],
    [{ elicitation: {} }, { mode: 'form' }, '2025-11-25', undefined],
    [{ elicitation: {} }, { mode: 'url' }, '2025-06-18', 'elicitation.url (it exists from revision 2025-11-25)'],
    [{ elicitation: { url: {} } }, { mode: 'url' }, '2025-06-18', 'elicitation.url (it exists from revision 2025-11-25)'],
    [{ elicitation: {} }, { mode: 'url' }, '2025-11-25', 'elicitation.url'],
    [{ elicitation: { url: {} } }, { mode: 'url' }, '2025-11-25', undefined],
    [{ elicitation: { url: {} } }, undefined, '2025-11-25', 'elicitation.form'],
    [{ elicitation: { url: {} } }, { mode: 'form' }, '2025-11-25', 'elicitation.form'],
    [{ elicitation: { form: {} } }, undefined, '2025-11-25', undefined],
    [{ elicitation: { form: {}, url: {} } }, { mode: 'other' }, '2025-11-25', undefined],
  ],
};

const OLD_MODERN_CLIENT_REQUESTS = [
  'server/discover', 'subscriptions/listen', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list',
  'resources/read', 'prompts/list', 'prompts/get', 'completion/complete', 'tasks/get', 'tasks/update', 'tasks/cancel',
];
const OLD_INPUT_CAPABLE_METHODS = ['tools/call', 'prompts/get', 'resources/read'];
const OLD_CACHEABLE_METHODS = ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'];
/** The modern router's table of the server capability each method needs (a check of `!== undefined`). */
const OLD_MODERN_REQUIRED_CAPABILITY: Readonly<Record<string, keyof ServerCapabilities>> = {
  'tools/list': 'tools',
  'tools/call': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'resources/read': 'resources',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
  'completion/complete': 'completions',
};
/** The client cache's table: what a cached result goes stale with. */
const OLD_CACHE_LISTS: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'resources/read': 'read',
  'server/discover': 'discover',
};
const OLD_NAME_FIELDS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
/** The legacy task methods a modern server keeps out of its handler table. */
const OLD_LEGACY_TASK_METHODS = ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'];
const OLD_INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

/** What each input request needed before (capabilityForInput), by params: [params, requiredCapabilities]. */
const OLD_INPUT_REQUIRED: readonly (readonly [InputMethod, JsonObject | undefined, ClientCapabilities])[] = [
  ['roots/list', undefined, { roots: {} }],
  ['sampling/createMessage', undefined, { sampling: {} }],
  ['sampling/createMessage', { tools: [] }, { sampling: { tools: {} } }],
  ['sampling/createMessage', { toolChoice: {} }, { sampling: { tools: {} } }],
  ['elicitation/create', undefined, { elicitation: {} }],
  ['elicitation/create', { mode: 'form' }, { elicitation: {} }],
  ['elicitation/create', { mode: 'url' }, { elicitation: { url: {} } }],
];

/** Whether declared capabilities covered an input request before (declaresInput): [capabilities, params, covered]. */
const OLD_INPUT_DECLARED: readonly (readonly [InputMethod, ClientCapabilities, JsonObject | undefined, boolean])[] = [
  ['roots/list', {}, undefined, false],
  ['roots/list', { roots: {} }, undefined, true],
  ['roots/list', { roots: { listChanged: true } }, undefined, true],
  ['sampling/createMessage', {}, undefined, false],
  ['sampling/createMessage', { sampling: {} }, undefined, true],
  ['sampling/createMessage', { sampling: {} }, { tools: [] }, false],
  ['sampling/createMessage', { sampling: { tools: {} } }, { toolChoice: {} }, true],
  ['sampling/createMessage', { roots: {} }, undefined, false],
  ['elicitation/create', {}, undefined, false],
  ['elicitation/create', { elicitation: {} }, undefined, true],
  ['elicitation/create', { elicitation: {} }, { mode: 'url' }, false],
  ['elicitation/create', { elicitation: { url: {} } }, { mode: 'url' }, true],
  ['elicitation/create', { elicitation: { url: {} } }, undefined, false],
  ['elicitation/create', { elicitation: { form: {}, url: {} } }, { mode: 'form' }, true],
  ['elicitation/create', { elicitation: { form: {} } }, { mode: 'url' }, false],
];

/** The interceptors' target table (actors/interceptors.ts): the params member naming each method's target. */
const OLD_TARGETS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'resources/subscribe': 'uri',
  'resources/unsubscribe': 'uri',
};
/** Which interceptor scope key implied which methods (CompiledScope.covers). */
const OLD_SCOPE_KEYS: Readonly<Record<string, 'tool' | 'prompt' | 'resource'>> = {
  'tools/call': 'tool',
  'prompts/get': 'prompt',
  'resources/read': 'resource',
  'resources/subscribe': 'resource',
  'resources/unsubscribe': 'resource',
};
/** The step-up switch (actors/features/scope-shortfall.ts): which registry's rule each method was checked by. */
const OLD_STEP_UP: Readonly<Record<string, 'tools' | 'prompts' | 'resources'>> = {
  'tools/call': 'tools',
  'prompts/get': 'prompts',
  'resources/read': 'resources',
  'resources/subscribe': 'resources',
};
/** otel/attributes.ts: the methods whose target always named the span (and was a metric attribute), by attribute. */
const OLD_SPAN_NAMED: Readonly<Record<string, string>> = { 'tools/call': 'gen_ai.tool.name', 'prompts/get': 'gen_ai.prompt.name' };
/** input-round.ts's keyPrefix: the default keys of input requests. */
const OLD_INPUT_KEYS: Readonly<Record<string, string>> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };
/** server/modern.ts's mirror check: the methods whose arguments are mirrored as Mcp-Param-*, and their field. */
const OLD_PARAM_HEADERS: Readonly<Record<string, string>> = { 'tools/call': 'arguments' };

// ---- helpers ----

const sorted = (names: Iterable<string>): string[] => [...names].sort();

/** Every capability value a one-flag rule can tell apart: absent, declared empty, each flag true or false. */
const CAPABILITY_GRID: readonly Capabilities[] = [
  {},
  ...['tools', 'resources', 'prompts', 'logging', 'completions', 'roots', 'sampling', 'elicitation', 'tasks'].flatMap((name) => [
    { [name]: {} },
    ...['listChanged', 'subscribe', 'list', 'cancel'].flatMap((flag) => [{ [name]: { [flag]: true } }, { [name]: { [flag]: false } }, { [name]: { [flag]: {} } }]),
  ]),
];

function flagAt(capabilities: Capabilities, path: string): unknown {
  return path.split('.').reduce<unknown>((value, step) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[step] : undefined), capabilities);
}

function missing(rule: MethodRule, capabilities: Capabilities, params: JsonObject | undefined, revision: LegacyRevision): string | undefined {
  return rule.requires?.(capabilities, params, revision);
}

// ---- specs ----

describe('the method declarations', () => {
  test('declare each method once', () => {
    const names = METHOD_DECLARATIONS.map((d) => d.method);
    assert.deepEqual(sorted(new Set(names)), sorted(names));
    for (const declaration of METHOD_DECLARATIONS) assert.equal(declarationOf(declaration.method), declaration);
    assert.equal(declarationOf('no/such/method'), undefined);
  });

  test('every declaration belongs to at least one era', () => {
    for (const { method, legacy, modern } of METHOD_DECLARATIONS) assert.ok(legacy !== undefined || modern !== undefined, method);
  });
});

describe('the legacy method table, derived from the declarations', () => {
  test('holds exactly the methods and rules of the hand-kept table', () => {
    assert.deepEqual(sorted(legacyMethodTable().keys()), sorted(Object.keys(OLD_LEGACY_TABLE)));
    for (const [method, old] of Object.entries(OLD_LEGACY_TABLE)) {
      const rule = methodRule(method);
      assert.ok(rule !== undefined, method);
      assert.deepEqual(
        { kind: rule.kind, sender: rule.sender, since: rule.since, until: rule.until, beforeHandshake: rule.beforeHandshake, requires: rule.requires !== undefined },
        { kind: old.kind, sender: old.sender, since: old.since, until: undefined, beforeHandshake: old.beforeHandshake, requires: old.requires !== undefined },
        method,
      );
    }
  });

  test('one-flag rules ask for the same capability as before, for every capability shape and revision', () => {
    for (const [method, old] of Object.entries(OLD_LEGACY_TABLE)) {
      const path = old.requires;
      if (path === undefined || path === 'custom') continue;
      const rule = methodRule(method)!;
      for (const capabilities of CAPABILITY_GRID) {
        for (const revision of LEGACY_REVISIONS) {
          const expected: string | undefined = flagAt(capabilities, path) ? undefined : path;
          assert.equal(missing(rule, capabilities, undefined, revision), expected, `${method} ${revision} ${JSON.stringify(capabilities)}`);
        }
      }
    }
  });

  test('the rules that depend on params and revision give the same answers as before', () => {
    for (const [method, cases] of Object.entries(OLD_CUSTOM_RULES)) {
      const rule = methodRule(method)!;
      for (const [capabilities, params, revision, expected] of cases) {
        assert.equal(missing(rule, capabilities, params, revision), expected, `${method} ${revision} ${JSON.stringify(capabilities)} ${JSON.stringify(params)}`);
      }
    }
  });
});

describe('the modern sets, the Mcp-Name map and the cache lists, derived from the declarations', () => {
  test('hold what the hand-kept lists held', () => {
    assert.deepEqual(sorted(MODERN_CLIENT_REQUESTS), sorted(OLD_MODERN_CLIENT_REQUESTS));
    assert.deepEqual(sorted(INPUT_CAPABLE_METHODS), sorted(OLD_INPUT_CAPABLE_METHODS));
    assert.deepEqual(sorted(CACHEABLE_METHODS), sorted(OLD_CACHEABLE_METHODS));
    assert.deepEqual(Object.fromEntries(nameHeaderFields()), OLD_NAME_FIELDS);
    assert.deepEqual(Object.fromEntries(MODERN_SERVER_CAPABILITIES), OLD_MODERN_REQUIRED_CAPABILITY);
    assert.deepEqual(Object.fromEntries(cacheLists()), OLD_CACHE_LISTS);
    assert.deepEqual(sorted(LEGACY_TASK_METHODS), sorted(OLD_LEGACY_TASK_METHODS));
    for (const { method } of METHOD_DECLARATIONS) assert.equal(nameFieldOf(method), OLD_NAME_FIELDS[method], method);
  });

  test('input requests are the three server needs of the InputMethod type', () => {
    for (const method of OLD_INPUT_METHODS) assert.ok(isInputMethod(method), method);
    for (const { method } of METHOD_DECLARATIONS) assert.equal(isInputMethod(method), (OLD_INPUT_METHODS as readonly string[]).includes(method), method);
    assert.ok(!isInputMethod(42));
  });

  test('every input request declares the guard its answers are checked with', () => {
    for (const method of OLD_INPUT_METHODS) assert.equal(typeof declarationOf(method)?.result, 'function', method);
  });

  test('input requests need the client capabilities they needed before', () => {
    for (const [method, params, required] of OLD_INPUT_REQUIRED) assert.deepEqual(capabilityForInput(method, params), required, `${method} ${JSON.stringify(params)}`);
    for (const [method, capabilities, params, covered] of OLD_INPUT_DECLARED) {
      assert.equal(declaresInput(capabilities, method, params), covered, `${method} ${JSON.stringify(capabilities)} ${JSON.stringify(params)}`);
    }
  });
});

/** Params naming every target field any declaration uses, each with a value of its own. */
const NAMING_PARAMS: JsonObject = { name: 'the-name', uri: 'memo://the-uri', taskId: 'the-task', ref: { type: 'ref/prompt', name: 'p' }, arguments: {} };

/** A request as interceptors see it, for the telemetry names. */
function intercepted(method: string, target: string | undefined): InterceptedRequest {
  const session = { role: 'server', era: 'legacy', revision: '2025-06-18', peerInfo: undefined, peerCapabilities: undefined, principal: undefined, id: 's1' } as const;
  const made: InterceptedRequest = { direction: 'incoming', method, params: undefined, meta: undefined, id: 1, target, session, signal: new AbortController().signal, with: () => made };
  return made;
}

describe('what is read per method, derived from the declarations', () => {
  test('targets: the declared ones are the hand-kept table\'s, and every method\'s request target is its declaration\'s', () => {
    assert.deepEqual(Object.fromEntries([...methodTargets()].map(([method, target]) => [method, target.field])), OLD_TARGETS);
    assert.deepEqual(Object.fromEntries([...methodTargets()].map(([method, target]) => [method, target.item])), OLD_SCOPE_KEYS);
    for (const { method } of METHOD_DECLARATIONS) {
      const field = OLD_TARGETS[method];
      assert.equal(targetOf(method, NAMING_PARAMS), field === undefined ? undefined : NAMING_PARAMS[field], method);
      // Only a string names a target.
      if (field !== undefined) assert.equal(targetOf(method, { [field]: 7 }), undefined, method);
    }
  });

  test('interceptor scopes: tool, prompt and resource imply exactly the methods they implied', () => {
    for (const key of ['tool', 'prompt', 'resource'] as const) {
      const list = new InterceptorList(adopt);
      list.add((request, next) => next(request), { [key]: 'the-name' });
      for (const { method } of METHOD_DECLARATIONS) {
        assert.equal(list.covers('incoming', method), OLD_SCOPE_KEYS[method] === key, `${key} ${method}`);
      }
    }
  });

  test('step-up: each method asks the registry the hand-kept switch asked, and no other method asks', () => {
    assert.deepEqual(Object.fromEntries(METHOD_DECLARATIONS.filter((d) => d.target?.access !== undefined).map((d) => [d.method, d.target?.access])), OLD_STEP_UP);
    const server = createServer({ name: 'guarded', version: '1' });
    server.tool({ name: 'the-name', requires: ['s:tool'] }, () => 'ran');
    server.prompt({ name: 'the-name', requires: ['s:prompt'] }, () => 'ran');
    server.resource({ uri: 'memo://the-uri', name: 'r', requires: ['s:resource'] }, () => 'ran');
    const nobody: AuthInfo = { principal: 'p', subject: 'p', scopes: [], claims: {} };
    const scopeOf = { tools: 's:tool', prompts: 's:prompt', resources: 's:resource' } as const;
    for (const { method } of METHOD_DECLARATIONS) {
      const registry = OLD_STEP_UP[method];
      assert.deepEqual(server.missingScopes(method, NAMING_PARAMS, nobody), registry === undefined ? undefined : [scopeOf[registry]], method);
    }
  });

  test('telemetry: span names and attributes are the hand-kept ones for every method', () => {
    for (const { method } of METHOD_DECLARATIONS) {
      const target = OLD_TARGETS[method] === undefined ? undefined : 'the-target';
      const named = OLD_SPAN_NAMED[method];
      const request = intercepted(method, target);
      assert.equal(spanNameOf(request), named === undefined || target === undefined ? method : `${method} the-target`, method);
      assert.equal(spanNameOf(request, true), target === undefined ? method : `${method} the-target`, method);
      const metrics = metricAttributesOf(request);
      const span = spanAttributesOf(request);
      if (named !== undefined) {
        assert.equal(metrics[named], 'the-target', method);
        assert.equal(span['mcp.resource.uri'], undefined, method);
      } else {
        assert.deepEqual(Object.keys(metrics).sort(), ['mcp.method.name', 'mcp.protocol.version'], method);
        assert.equal(span['mcp.resource.uri'], target, method);
      }
      assert.equal(metrics['gen_ai.operation.name'], method === 'tools/call' ? 'execute_tool' : undefined, method);
      assert.equal(isToolError(method, { content: [], isError: true }), method === 'tools/call', method);
    }
  });

  test('Mcp-Param-* arguments and input keys are the hand-kept ones', () => {
    assert.deepEqual(Object.fromEntries(METHOD_DECLARATIONS.filter((d) => d.modern?.paramHeaders !== undefined).map((d) => [d.method, d.modern?.paramHeaders])), OLD_PARAM_HEADERS);
    assert.deepEqual(Object.fromEntries(inputKeyPrefixes()), OLD_INPUT_KEYS);
    for (const [method, prefix] of Object.entries(OLD_INPUT_KEYS)) assert.equal(defaultInputKey(method as InputMethod, 3), `${prefix}-3`);
  });

  test('where a method has both, Mcp-Name mirrors its target', () => {
    for (const { method, modern, target } of METHOD_DECLARATIONS) {
      if (modern?.nameHeader !== undefined && target !== undefined) assert.equal(modern.nameHeader, target.field, method);
    }
  });
});

describe('the declarations against the official schema of each revision', () => {
  /** `kind sender+sender` of each wire method a revision's schema lists. */
  function schemaMethods(revision: string): Map<string, string> {
    const schema = loadRevisionSchema(schemaRevisionFor(revision)!);
    return new Map([...schema.methods].map(([method, wire]) => [method, `${wire.kind} ${sorted(wire.senders).join('+')}`]));
  }

  function senders(sender: Role | 'both'): string {
    return sender === 'both' ? 'client+server' : sender;
  }

  for (const revision of LEGACY_REVISIONS) {
    test(`${revision}: exactly the schema's methods are available, with its kinds and senders`, () => {
      const declared = new Map<string, string>();
      for (const [method, rule] of legacyMethodTable()) {
        const from = (['client', 'server'] as const).filter((role) => methodAvailable(rule, revision, role));
        if (from.length > 0) declared.set(method, `${rule.kind} ${from.join('+')}`);
      }
      assert.deepEqual(declared, schemaMethods(revision));
    });
  }

  test('2026-07-28: exactly the schema\'s wire methods are declared modern, with its kinds and senders', () => {
    const declared = new Map<string, string>();
    for (const { method, kind, modern } of METHOD_DECLARATIONS) {
      // Input requests are not wire messages in this era, and extension methods are not in the core schema.
      if (modern === undefined || modern.input !== undefined || modern.extension !== undefined) continue;
      declared.set(method, `${kind} ${senders(modern.sender)}`);
    }
    assert.deepEqual(declared, schemaMethods('2026-07-28'));
  });
});

describe('adding a method', () => {
  test('one declaration puts it in every table it belongs to', () => {
    const added = request('widgets/spin', {
      legacy: { sender: 'client', since: '2025-11-25', requires: () => undefined },
      modern: { sender: 'client', serverCapability: 'tools', inputCapable: true, cacheable: { list: 'widgets' }, nameHeader: 'widget' },
      target: { field: 'widget', item: 'tool', access: 'tools', span: 'name' },
    });
    const asked = request('widgets/ask', { modern: { sender: 'server', input: { required: () => ({}), declared: () => true } } });
    const declarations: readonly MethodDeclaration[] = [...METHOD_DECLARATIONS, added, asked];
    assert.equal(legacyMethodTable(declarations).get('widgets/spin')?.kind, 'request');
    assert.ok(modernClientRequests(declarations).has('widgets/spin'));
    assert.ok(inputCapableMethods(declarations).has('widgets/spin'));
    assert.ok(cacheableMethods(declarations).has('widgets/spin'));
    assert.equal(cacheLists(declarations).get('widgets/spin'), 'widgets');
    assert.equal(modernServerCapabilities(declarations).get('widgets/spin'), 'tools');
    assert.equal(nameHeaderFields(declarations).get('widgets/spin'), 'widget');
    assert.equal(methodTargets(declarations).get('widgets/spin')?.field, 'widget');
    assert.equal(inputKeyPrefixes(declarations).get('widgets/ask'), 'widgets');
    // The shipped tables are untouched, and a declaration nobody defined is not known per method either.
    assert.equal(methodRule('widgets/spin'), undefined);
    assert.equal(declarationOf('widgets/spin'), undefined);
    assert.equal(targetOf('widgets/spin', { widget: 'w' }), undefined);
  });

  test('a declaration carries its params and result types, and its result guard checks them', () => {
    const params: ParamsOf<typeof toolsCall> = { name: 'echo' } satisfies CallToolParams;
    const result: ResultOf<typeof toolsCall> = { content: [] } satisfies CallToolResult;
    // @ts-expect-error the params type is CallToolParams, which needs a name (tsc checks this line)
    const nameless: ParamsOf<typeof toolsCall> = { arguments: {} };
    // @ts-expect-error the result type is CallToolResult, whose content is a list
    const contentless: ResultOf<typeof toolsCall> = { content: 'text' };
    assert.ok(!toolsCall.result?.(nameless) && !toolsCall.result?.(contentless));
    assert.ok(toolsCall.result?.(result));
    assert.ok(!toolsCall.result?.(params));
    assert.ok(declarationOf('roots/list')?.result?.({ roots: [{ uri: 'file:///w' }] }));
    assert.ok(!declarationOf('roots/list')?.result?.({ roots: [{ name: 'no uri' }] }));
    assert.ok(!declarationOf('roots/list')?.result?.([]));
  });
});
