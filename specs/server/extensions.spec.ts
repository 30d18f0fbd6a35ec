/**
 * The generic extensions API end to end, both eras, over the memory transport: a `com.example/widgets` extension
 * with one request that needs the client's declaration (`widgets/spin`) and one that does not (`widgets/list`), and
 * a modern-only one (`widgets/watch`). What the server declares (initialize / server/discover), what the client
 * sees, the -32021 gate per request, the params guard, interceptors, era checks, construction refusals, and the
 * client's local refusals. The core messages go through the schema oracle.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { map } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import { extensionRequest, serverExtension } from '../../client/extensions.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError, WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { notification, request } from '../../core/protocol/declarations/declaration.ts';
import { declaresExtension, defineExtension, extensionSettings, isExtensionId, withExtensions } from '../../core/protocol/extensions.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import type { ClientCapabilities } from '../../core/protocol/capabilities.ts';
import { createServer, type McpServer } from '../../server/create-server.ts';
import type { ServerExtension } from '../../server/server-api.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { type ExtensionSchemas, assertCleanWithExtensions } from '../support/extension-oracle.ts';
import { withSchemaOracle } from '../support/schema-oracle.ts';

const WIDGETS = 'com.example/widgets';
const spin = request<{ widget: string }, { turns: number }>('widgets/spin', {
  legacy: { sender: 'client', since: '2025-06-18' },
  modern: { sender: 'client', extension: WIDGETS },
  params: (value): value is { widget: string } => isJsonObject(value) && typeof value['widget'] === 'string',
  result: (value): value is { turns: number } => isJsonObject(value) && typeof value['turns'] === 'number',
});
const list = request<JsonObject, { widgets: string[] }>('widgets/list', {
  legacy: { sender: 'client', since: '2025-06-18' },
  modern: { sender: 'client', extension: WIDGETS, cacheable: { list: 'widgets' } },
});
const watch = request('widgets/watch', { modern: { sender: 'client', extension: WIDGETS } });
const spun = notification<{ widget: string }>('notifications/widgets/spun', { legacy: { sender: 'server', since: '2025-06-18' }, modern: { sender: 'server', extension: WIDGETS } });
const widgets = defineExtension({ id: WIDGETS, methods: [spin, list, watch, spun], requiresClientDeclaration: ['widgets/spin'] });

const object = { type: 'object' };
const SCHEMAS: ExtensionSchemas = {
  'widgets/spin': { params: { type: 'object', required: ['widget'] }, result: { type: 'object', required: ['turns'] } },
  'widgets/list': { params: object, result: { type: 'object', required: ['widgets'] } },
  'widgets/watch': { params: object, result: object },
  'notifications/widgets/spun': { params: { type: 'object', required: ['widget'] }, result: object },
};

function widgetsExtension(seen: string[] = []): ServerExtension {
  return {
    definition: widgets,
    settings: { colours: ['red'] },
    handlers: {
      'widgets/spin': (params, context) => {
        seen.push(`spin ${context.session.revision ?? '?'}`);
        context.notify('notifications/widgets/spun', { widget: String(params?.['widget']) });
        return { turns: String(params?.['widget']).length };
      },
      'widgets/list': () => ({ widgets: ['a', 'b'] }),
      'widgets/watch': () => ({ watching: true }),
    },
  };
}

async function connect(server: McpServer, era: 'legacy' | 'modern', declare: boolean, heard: string[] = []) {
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
  const clientSide = withSchemaOracle(clientEnd, { role: 'client' });
  server.accept(serverSide.transport);
  const client = createClient({
    name: 'c',
    version: '1',
    era,
    ...(declare ? { extensions: { [WIDGETS]: {} } } : {}),
    extensionHandlers: { notifications: { 'notifications/widgets/spun': (params) => void heard.push(String(params?.['widget'])) } },
  });
  const session = await client.connect(clientSide.transport);
  return { session, oracles: [serverSide.oracle, clientSide.oracle] };
}

async function wireError(promise: Promise<unknown>): Promise<WireError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof WireError, `expected a WireError, got ${String(error)}`);
  return error;
}

const raw = (session: ClientSession, method: string, params: JsonObject) => session.session.request<JsonObject>(method, params);

describe('extension definitions', () => {
  test('identifiers have a prefix and a name; methods are declared once; gated methods exist', () => {
    assert.ok(isExtensionId('io.modelcontextprotocol/skills'));
    assert.ok(isExtensionId('com.example/widgets'));
    for (const bad of ['widgets', '/widgets', 'com.example/', 'com..example/x', 'com.example/a/b']) assert.equal(isExtensionId(bad), false, bad);
    assert.throws(() => defineExtension({ id: 'widgets', methods: [] }), /not an extension identifier/);
    assert.throws(() => defineExtension({ id: WIDGETS, methods: [spin, spin] }), /twice/);
    assert.throws(() => defineExtension({ id: WIDGETS, methods: [spin], requiresClientDeclaration: ['widgets/list'] }), /no method widgets\/list/);
  });

  test('settings are read from either side\'s capabilities; declaring merges', () => {
    const capabilities = withExtensions({ tools: {}, extensions: { 'a.b/c': {} } }, { [WIDGETS]: { x: 1 } });
    assert.deepEqual(capabilities, { tools: {}, extensions: { 'a.b/c': {}, [WIDGETS]: { x: 1 } } });
    assert.deepEqual(extensionSettings(capabilities, WIDGETS), { x: 1 });
    assert.equal(declaresExtension(capabilities, 'a.b/d'), false);
    assert.equal(declaresExtension({ extensions: { [WIDGETS]: true } } as unknown as ClientCapabilities, WIDGETS), false);
  });

  test('a server refuses an extension given twice, a handler without a declaration, a method the core serves', () => {
    const base = { name: 's', version: '1' };
    assert.throws(() => createServer({ ...base, extensions: [widgetsExtension(), widgetsExtension()] }), /given twice/);
    assert.throws(() => createServer({ ...base, extensions: [{ definition: widgets, handlers: { 'widgets/other': () => ({}) } }] }), /declares no request widgets\/other/);
    const clash = defineExtension({ id: 'com.example/clash', methods: [request('tools/list', { modern: { sender: 'client' } })] });
    assert.throws(() => createServer({ ...base, extensions: [{ definition: clash, handlers: { 'tools/list': () => ({}) } }] }), /already served/);
    assert.throws(() => createClient({ name: 'c', version: '1', extensionHandlers: { notifications: { 'notifications/message': () => undefined } } }), /already has a handler/);
  });
});

for (const era of ['legacy', 'modern'] as const) {
  describe(`extensions, ${era} era`, () => {
    test('declared by the server with its settings, seen by the client; its requests served with interceptors', async () => {
      const seen: string[] = [];
      const server = createServer({ name: 's', version: '1', extensions: [widgetsExtension(seen)] });
      const intercepted: string[] = [];
      server.use((req, next) => {
        intercepted.push(req.method);
        return next(req).pipe(map((event) => event));
      });
      const heard: string[] = [];
      const { session, oracles } = await connect(server, era, true, heard);
      assert.deepEqual(serverExtension(session, WIDGETS), { colours: ['red'] });
      assert.deepEqual(await extensionRequest(session, widgets, spin, { widget: 'abc' }), era === 'modern' ? { turns: 3, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } } : { turns: 3 });
      const listed = (await extensionRequest(session, widgets, list, {})) as unknown as JsonObject;
      assert.deepEqual(listed['widgets'], ['a', 'b']);
      // Modern: a cacheable extension method carries the caching hints like resources/read.
      assert.equal('ttlMs' in listed, era === 'modern');
      assert.deepEqual(intercepted.filter((method) => method.startsWith('widgets/')), ['widgets/spin', 'widgets/list']);
      assert.deepEqual(seen, [`spin ${era === 'modern' ? '2026-07-28' : '2025-11-25'}`]);
      // The extension's notification, sent by the handler, reached the client's extension handler.
      assert.deepEqual(heard, ['abc']);
      await session.close();
      await server.close();
      for (const oracle of oracles) assert.ok(assertCleanWithExtensions(oracle, SCHEMAS) >= 2);
    });

    test('-32021 for a gated method when the client did not declare the extension; -32602 for bad params', async () => {
      const server = createServer({ name: 's', version: '1', extensions: [widgetsExtension()] });
      const { session, oracles } = await connect(server, era, false);
      const refused = await wireError(raw(session, 'widgets/spin', { widget: 'abc' }));
      assert.equal(refused.code, ErrorCode.MissingRequiredClientCapability);
      assert.deepEqual(refused.data, { requiredCapabilities: { extensions: { [WIDGETS]: {} } } });
      // An ungated method of the same extension is served to every client.
      assert.deepEqual((await raw(session, 'widgets/list', {}))['widgets'], ['a', 'b']);
      await session.close();
      const declared = await connect(server, era, true);
      assert.equal((await wireError(raw(declared.session, 'widgets/spin', { widget: 7 }))).code, ErrorCode.InvalidParams);
      await declared.session.close();
      await server.close();
      for (const oracle of [...oracles, ...declared.oracles]) assertCleanWithExtensions(oracle, SCHEMAS);
    });

    test(`a method declared for the other era only is -32601; a server without the extension has none of it`, async () => {
      const server = createServer({ name: 's', version: '1', extensions: [widgetsExtension()] });
      const { session } = await connect(server, era, true);
      if (era === 'legacy') {
        assert.equal((await wireError(raw(session, 'widgets/watch', {}))).code, ErrorCode.MethodNotFound);
        // The client refuses it locally: never sent.
        await assert.rejects(extensionRequest(session, widgets, watch, {}), (error: unknown) => error instanceof LocalError && error.code === 'MethodNotInRevision');
      } else {
        assert.deepEqual((await raw(session, 'widgets/watch', {}))['watching'], true);
      }
      await session.close();
      await server.close();
      const plain = createServer({ name: 'p', version: '1' });
      plain.tool({ name: 't' }, () => 'ok');
      const other = await connect(plain, era, true);
      assert.equal(serverExtension(other.session, WIDGETS), undefined);
      await assert.rejects(extensionRequest(other.session, widgets, list, {}), (error: unknown) => error instanceof LocalError && error.code === 'CapabilityNotNegotiated');
      assert.equal((await wireError(raw(other.session, 'widgets/list', {}))).code, ErrorCode.MethodNotFound);
      await other.session.close();
      await plain.close();
    });
  });
}
