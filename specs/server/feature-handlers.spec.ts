/**
 * server/feature-handlers.ts: one handler table per server, built once and served by both eras, with the tool
 * handler contexts decorated in place when the modern tasks extension needs it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Subject } from 'rxjs';
import { ServerCatalog } from '../../actors/features/catalog.ts';
import type { FeatureContext } from '../../actors/features/feature-context.ts';
import { createTasksFeature } from '../../actors/features/tasks-feature.ts';
import type { RequestHandler } from '../../actors/handler-types.ts';
import { InMemoryTaskStore } from '../../server/in-memory-task-store.ts';
import { LEGACY_REVISIONS } from '../../core/protocol/versions.ts';
import type { McpSession } from '../../session/session-core.ts';
import { catalogRegistrar } from '../../server/catalog-registrar.ts';
import { type FeatureHandlerSetup, createFeatureHandlers } from '../../server/feature-handlers.ts';
import { type ModernOptions, createModernServing } from '../../server/modern.ts';
import { SessionLogLevels } from '../../server/session-logging.ts';
import { ResourceSubscriptions } from '../../server/subscriptions.ts';
import { fakeRequest, fakeSession } from './fakes.ts';

function setup(extra: Partial<FeatureHandlerSetup> = {}) {
  const catalog = new ServerCatalog();
  const features = createFeatureHandlers({
    catalog,
    pageSize: 10,
    subscriptions: new ResourceSubscriptions(10),
    logLevels: new SessionLogLevels(),
    ...extra,
  });
  return { catalog, features, register: catalogRegistrar(catalog) };
}

function modernOver(catalog: ServerCatalog, features: ReturnType<typeof createFeatureHandlers>, options: ModernOptions = {}) {
  return createModernServing({
    options,
    acceptsLegacy: true,
    legacyVersions: LEGACY_REVISIONS,
    serverInfo: { name: 'spec', version: '1' },
    instructions: undefined,
    capabilities: () => ({}),
    handlers: features.table.requests,
    changes$: new Subject(),
    ending$: new Subject(),
    clock: undefined,
    tools: { tool: (name) => catalog.tools.get(name), wrapToolContext: (wrap) => features.wrapToolContext(wrap) },
  });
}

async function call(handler: RequestHandler | undefined, name: string, session: McpSession): Promise<unknown> {
  assert.ok(handler);
  return await (handler({ name, arguments: {} }, fakeRequest('tools/call', session)) as PromiseLike<unknown>);
}

describe('server feature handlers', () => {
  test('the table holds every feature; the 2025-11-25 task methods and the roots notification only when asked for', () => {
    const plain = setup().features.table;
    assert.deepEqual([...plain.requests.keys()].toSorted(), [
      'completion/complete',
      'logging/setLevel',
      'prompts/get',
      'prompts/list',
      'resources/list',
      'resources/read',
      'resources/subscribe',
      'resources/templates/list',
      'resources/unsubscribe',
      'tools/call',
      'tools/list',
    ]);
    assert.equal(plain.notifications.size, 0);
    const tasks = createTasksFeature({ store: new InMemoryTaskStore(), peer: (session) => session as McpSession });
    const rooted: McpSession[] = [];
    const full = setup({ tasks, onRootsListChanged: (session) => rooted.push(session) }).features.table;
    for (const method of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel']) assert.ok(full.requests.has(method), method);
    const { session } = fakeSession();
    full.notifications.get('notifications/roots/list_changed')?.(undefined, session);
    assert.deepEqual(rooted, [session]);
  });

  test('both eras serve the one tools/call and tools/list: nothing is built again for the modern era', () => {
    const { catalog, features, register } = setup();
    const modern = modernOver(catalog, features);
    for (const method of ['tools/call', 'resources/read', 'prompts/get']) {
      assert.equal(modern.handlers.get(method), features.table.requests.get(method), method);
    }
    // tools/list is only filtered (execution.taskSupport is for requests declaring the tasks extension): with
    // no tool that has task support, the modern answer is the legacy handler's own cached page, as it is.
    register.tool({ name: 'plain' }, () => 'ok');
    const { session } = fakeSession();
    const legacyPage = features.table.requests.get('tools/list')?.(undefined, fakeRequest('tools/list', session));
    assert.equal(modern.handlers.get('tools/list')?.(undefined, fakeRequest('tools/list', session)), legacyPage);
  });

  test('the modern tasks extension wraps the one tools/call and decorates its contexts in place', async () => {
    const { catalog, features, register } = setup();
    const seen: boolean[] = [];
    register.tool({ name: 'probe' }, (_args, context) => {
      seen.push((context as FeatureContext & { bound?: boolean }).bound === true);
      return 'ok';
    });
    const { session } = fakeSession();
    const legacyCall = features.table.requests.get('tools/call');
    await call(legacyCall, 'probe', session);
    const modern = modernOver(catalog, features, { tasks: {} });
    assert.notEqual(modern.handlers.get('tools/call'), legacyCall, 'the modern tools/call is the task wrapper');
    assert.equal(features.table.requests.get('tools/call'), legacyCall, 'the legacy table is left as it was');
    // The extension's decoration binds only calls that became tasks: an ordinary call's context is unchanged.
    await call(legacyCall, 'probe', session);
    features.wrapToolContext((base) => (request) => Object.assign(base(request), { bound: true }));
    await call(legacyCall, 'probe', session);
    assert.deepEqual(seen, [false, false, true]);
  });

  test('decorations compose: the latest wraps the ones before it', async () => {
    const { features, register } = setup();
    const order: string[] = [];
    register.tool({ name: 't' }, () => 'ok');
    features.wrapToolContext((base) => (request) => (order.push('first'), base(request)));
    features.wrapToolContext((base) => (request) => (order.push('second'), base(request)));
    await call(features.table.requests.get('tools/call'), 't', fakeSession().session);
    assert.deepEqual(order, ['second', 'first']);
  });
});
