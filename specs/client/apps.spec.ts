/**
 * MCP Apps on the host side (`rxmcp/apps/client`), both eras, over the memory transport: a tool's view read with
 * its `_meta.ui` (the contents item's first, then the result's, then the listing entry's), as text or base64;
 * whether the server declared the extension; a hostile or mistaken server refused (no `ui://` link, another MIME
 * type, no contents, domains that are not origins kept out of the policy); the Content-Security-Policy and
 * Permissions Policy built from the settings; tools called for a view only when their visibility includes `app`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { AppsError, createAppsClient } from '../../client/apps/apps-client.ts';
import { createClient } from '../../client/create-client.ts';
import { contentSecurityPolicy, permissionsPolicy } from '../../core/apps/view-policy.ts';
import { APPS_CLIENT_SETTINGS, APPS_EXTENSION, APP_MIME_TYPE, isVisibleTo, readUiResourceMeta, uiResourceUriOf, visibilityOf } from '../../core/protocol/apps.ts';
import type { Tool } from '../../core/protocol/tools.ts';
import { appResource } from '../../server/apps/app-resource.ts';
import { appToolMeta, apps } from '../../server/apps/serve-apps.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { formatViolations, withSchemaOracle } from '../support/schema-oracle.ts';

const HTML = '<!doctype html><html><body><p>Forecast: ☀</p></body></html>';
const RESTRICTIVE =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
  "media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

async function connect(server: McpServer, era: 'legacy' | 'modern') {
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
  const clientSide = withSchemaOracle(clientEnd, { role: 'client' });
  server.accept(serverSide.transport);
  const session = await createClient({ name: 'host', version: '1', era, extensions: { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS } }).connect(clientSide.transport);
  /** Closes both ends; every message was valid but those `expected` says it sent on purpose. */
  const finish = async (expected: (message: string) => boolean = () => false): Promise<void> => {
    await session.close();
    await server.close();
    for (const { oracle } of [serverSide, clientSide]) {
      const unexpected = oracle.violations.filter((violation) => !expected(JSON.stringify(violation.message)));
      assert.deepEqual(unexpected, [], formatViolations(unexpected));
    }
  };
  return { session, finish };
}

async function appsError(promise: Promise<unknown>, code: AppsError['code']): Promise<AppsError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  assert.ok(error instanceof AppsError, `expected an AppsError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return error;
}

describe('rxmcp/apps/client: reading tools and policies', () => {
  test('a tool\'s link and visibility: the nested key first, the flat one else, ui:// only, unknown visibility left out', () => {
    assert.equal(uiResourceUriOf({ _meta: { ui: { resourceUri: 'ui://a/v.html' }, 'ui/resourceUri': 'ui://old/v.html' } }), 'ui://a/v.html');
    assert.equal(uiResourceUriOf({ _meta: { 'ui/resourceUri': 'ui://old/v.html' } }), 'ui://old/v.html');
    assert.equal(uiResourceUriOf({ _meta: { ui: { resourceUri: 'https://a.example/v.html' } } }), undefined);
    assert.equal(uiResourceUriOf({}), undefined);
    assert.deepEqual(visibilityOf({}), ['model', 'app']);
    assert.deepEqual(visibilityOf({ _meta: { ui: { visibility: ['app', 'agent'] } } }), ['app']);
    assert.equal(isVisibleTo({ _meta: { ui: { visibility: ['app'] } } }, 'model'), false);
    assert.equal(isVisibleTo({ _meta: { ui: { resourceUri: 'ui://a/v.html' } } }, 'model'), true);
  });

  test('the Content-Security-Policy: the restrictive default, declared origins in their directives, nothing else', () => {
    assert.equal(contentSecurityPolicy(undefined), RESTRICTIVE);
    assert.equal(contentSecurityPolicy({}), RESTRICTIVE);
    const policy = contentSecurityPolicy({
      connectDomains: ['https://api.example.com', "https://evil.example; script-src 'unsafe-eval'"],
      resourceDomains: ['https://cdn.example.com', '*'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: ['https://cdn.example.com'],
    });
    const directives = new Map(policy.split('; ').map((part) => [part.split(' ')[0], part]));
    assert.equal(directives.get('connect-src'), 'connect-src https://api.example.com');
    assert.equal(directives.get('script-src'), "script-src 'self' 'unsafe-inline' https://cdn.example.com");
    assert.equal(directives.get('img-src'), "img-src 'self' data: https://cdn.example.com");
    assert.equal(directives.get('frame-src'), 'frame-src https://www.youtube.com');
    assert.equal(directives.get('base-uri'), 'base-uri https://cdn.example.com');
    assert.equal(directives.get('object-src'), "object-src 'none'");
    assert.ok(!policy.includes('unsafe-eval') && !policy.includes('evil') && !/ \*( |;|$)/.test(policy), policy);
    assert.equal(permissionsPolicy({ microphone: {}, clipboardWrite: {} }), 'microphone; clipboard-write');
    assert.equal(permissionsPolicy(undefined), '');
  });

  test('_meta.ui from a peer is reduced to the SEP\'s fields with their types', () => {
    assert.deepEqual(readUiResourceMeta({
      csp: { connectDomains: ['https://api.example.com', 7, 'not an origin'], scriptDomains: ['https://x.example'] },
      permissions: { camera: {}, usb: {}, microphone: true },
      domain: 3,
      prefersBorder: 'yes',
      extra: 1,
    }), { csp: { connectDomains: ['https://api.example.com'] }, permissions: { camera: {} } });
    assert.deepEqual(readUiResourceMeta('nothing'), {});
  });
});

for (const era of ['legacy', 'modern'] as const) {
  describe(`rxmcp/apps/client, ${era} era`, () => {
    test('reads a tool\'s view with its settings and the policies built from them', async () => {
      const view = appResource({ uri: 'ui://weather/view.html', name: 'view', html: HTML, csp: { connectDomains: ['https://api.weather.example'] }, permissions: { geolocation: {} }, prefersBorder: false });
      const server = createServer({ name: 'weather', version: '1', extensions: [apps({ resources: [view] })] });
      server.tool({ name: 'show', _meta: appToolMeta(view) }, () => 'Sunny');
      const { session, finish } = await connect(server, era);
      const host = createAppsClient(session);
      assert.equal(host.available, true);
      const [tool] = await session.listTools();
      assert.ok(tool !== undefined);
      const read = await host.readUiResource(tool);
      assert.equal(read.uri, 'ui://weather/view.html');
      assert.equal(read.html, HTML);
      assert.deepEqual(read.ui, { csp: { connectDomains: ['https://api.weather.example'] }, permissions: { geolocation: {} }, prefersBorder: false });
      assert.match(read.contentSecurityPolicy, /; connect-src https:\/\/api\.weather\.example;/);
      assert.equal(read.permissionsPolicy, 'geolocation');
      assert.deepEqual((await host.readUiResource('ui://weather/view.html')).html, HTML);
      assert.deepEqual((await host.listUiResources()).map((resource) => resource.uri), ['ui://weather/view.html']);
      assert.deepEqual((await firstValueFrom(host.uiResources$().pipe(toArray()))).map((resource) => resource.uri), ['ui://weather/view.html']);
      await finish();
    });

    test('a server that links views without declaring the extension, with base64 HTML and _meta.ui elsewhere', async () => {
      const server = createServer({ name: 'plain', version: '1' });
      const base64 = Buffer.from(HTML, 'utf8').toString('base64');
      const listedMeta = { ui: { csp: { resourceDomains: ['https://cdn.listed.example'] } } };
      server.resource({ uri: 'ui://plain/blob.html', name: 'blob', mimeType: APP_MIME_TYPE, _meta: listedMeta }, (uri) => [{ uri, mimeType: APP_MIME_TYPE, blob: base64 }]);
      server.resource({ uri: 'ui://plain/result-meta.html', name: 'result-meta', mimeType: APP_MIME_TYPE }, (uri) => ({
        contents: [{ uri, mimeType: 'text/html; profile=mcp-app', text: HTML }],
        _meta: { ui: { prefersBorder: true } },
      }));
      server.resource({ uri: 'ui://plain/own-meta.html', name: 'own-meta', mimeType: APP_MIME_TYPE, _meta: listedMeta }, (uri) => [{ uri, mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: { domain: 'own.example' } } }]);
      server.tool({ name: 'flat', _meta: { 'ui/resourceUri': 'ui://plain/blob.html' } }, () => 'text');
      const { session, finish } = await connect(server, era);
      const host = createAppsClient(session);
      assert.equal(host.available, false);
      const listed = await host.listUiResources();
      const entry = (uri: string) => listed.find((resource) => resource.uri === uri);
      const [flat] = await session.listTools();
      assert.ok(flat !== undefined);
      // No _meta.ui on the read: the listing entry's applies when given.
      const blob = await host.readUiResource(flat, { listed: entry('ui://plain/blob.html')! });
      assert.equal(blob.html, HTML);
      assert.deepEqual(blob.ui, { csp: { resourceDomains: ['https://cdn.listed.example'] } });
      assert.deepEqual((await host.readUiResource(flat)).ui, {});
      assert.deepEqual((await host.readUiResource('ui://plain/result-meta.html')).ui, { prefersBorder: true });
      // The contents item's own _meta.ui wins over the listing entry's.
      assert.deepEqual((await host.readUiResource('ui://plain/own-meta.html', { listed: entry('ui://plain/own-meta.html')! })).ui, { domain: 'own.example' });
      await finish();
    });

    test('refuses what is not a view, without using any of it', async () => {
      const server = createServer({ name: 'mistaken', version: '1' });
      server.resource({ uri: 'ui://bad/plain.html', name: 'plain' }, (uri) => [{ uri, mimeType: 'text/html', text: HTML }]);
      server.resource({ uri: 'ui://bad/other.html', name: 'other' }, () => [{ uri: 'ui://bad/elsewhere.html', mimeType: APP_MIME_TYPE, text: HTML }, { uri: 'ui://bad/more.html', mimeType: APP_MIME_TYPE, text: HTML }]);
      server.resource({ uri: 'ui://bad/garbled.html', name: 'garbled' }, (uri) => [{ uri, mimeType: APP_MIME_TYPE, blob: '%%%' }]);
      server.tool({ name: 'text_only' }, () => 'text');
      server.tool({ name: 'web_link', _meta: { ui: { resourceUri: 'https://bad.example/view.html' } } }, () => 'text');
      const { session, finish } = await connect(server, era);
      const host = createAppsClient(session);
      const tools = new Map((await session.listTools()).map((tool): [string, Tool] => [tool.name, tool]));
      await appsError(host.readUiResource(tools.get('text_only')!), 'NoUiResource');
      await appsError(host.readUiResource(tools.get('web_link')!), 'NoUiResource');
      await appsError(host.readUiResource('https://bad.example/view.html'), 'NoUiResource');
      assert.match((await appsError(host.readUiResource('ui://bad/plain.html'), 'NotAnApp')).message, /"text\/html", not text\/html;profile=mcp-app/);
      await appsError(host.readUiResource('ui://bad/other.html'), 'NotAnApp');
      await appsError(host.readUiResource('ui://bad/garbled.html'), 'NotAnApp');
      assert.deepEqual(await host.listUiResources(), []);
      // The garbled blob is not valid on the wire either: the one message the oracle may flag.
      await finish((message) => message.includes('"blob":"%%%"'));
    });

    test('calls for a view only tools of this server visible to apps', async () => {
      const view = appResource({ uri: 'ui://shop/cart.html', name: 'cart', html: HTML });
      const server = createServer({ name: 'shop', version: '1', extensions: [apps({ resources: [view] })] });
      const calls: string[] = [];
      server.tool({ name: 'show_cart', _meta: appToolMeta(view) }, () => (calls.push('show_cart'), 'cart'));
      server.tool({ name: 'update_quantity', _meta: appToolMeta(view, { visibility: ['app'] }) }, () => (calls.push('update_quantity'), 'updated'));
      server.tool({ name: 'checkout', _meta: appToolMeta(view, { visibility: ['model'] }) }, () => (calls.push('checkout'), 'paid'));
      const { session, finish } = await connect(server, era);
      const host = createAppsClient(session);
      assert.deepEqual((await host.callToolForApp('update_quantity')).content, [{ type: 'text', text: 'updated' }]);
      assert.deepEqual((await host.callToolForApp('show_cart')).content, [{ type: 'text', text: 'cart' }]);
      assert.match((await appsError(host.callToolForApp('checkout'), 'ToolNotForApps')).message, /not visible to apps \(its visibility is \["model"\]\)/);
      await appsError(host.callToolForApp('refund'), 'ToolNotForApps');
      assert.deepEqual(calls, ['update_quantity', 'show_cart']);
      // What the host shows its model: tools visible to the model.
      assert.deepEqual((await session.listTools()).filter((tool) => isVisibleTo(tool, 'model')).map((tool) => tool.name), ['show_cart', 'checkout']);
      await finish();
    });
  });
}
