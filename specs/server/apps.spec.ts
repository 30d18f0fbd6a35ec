/**
 * MCP Apps on the server (`rxmcp/apps`), both eras, over the memory transport: UI resources declared with their
 * security settings and refused at declaration when a host could not use them; the extension declared (`initialize`,
 * `server/discover`); the view listed and read with `_meta.ui`; tools linked with `appToolMeta`; a linked tool
 * answering hosts with and without the extension (graceful degradation), `clientSupportsApps` reading each
 * requester's own declaration. Wire shapes are checked against ext-apps' schema.json, every message against the
 * official schema of its revision.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { APPS_CLIENT_SETTINGS, APPS_EXTENSION, APP_MIME_TYPE } from '../../core/protocol/apps.ts';
import type { ExtensionSettings } from '../../core/protocol/extensions.ts';
import { type AppResourceDefinition, appResource } from '../../server/apps/app-resource.ts';
import { appToolMeta, apps, clientSupportsApps } from '../../server/apps/serve-apps.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { assertAppsShape } from '../support/apps-schema.ts';
import { type SchemaOracle, formatViolations, withSchemaOracle } from '../support/schema-oracle.ts';

const HTML = '<!doctype html><html><head><meta charset="utf-8"><title>Forecast</title></head><body><main id="view"></main></body></html>';
const VIEW: AppResourceDefinition = {
  uri: 'ui://weather/forecast.html',
  name: 'forecast',
  title: 'Forecast',
  description: 'The forecast of one city',
  html: HTML,
  csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://cdn.example.com', 'https://*.fonts.example'] },
  permissions: { geolocation: {} },
  domain: 'weather-example.apps.example',
  prefersBorder: true,
};

function weatherServer(): McpServer {
  const view = appResource(VIEW);
  const server = createServer({ name: 'weather', version: '1.0.0', extensions: [apps({ resources: [view] })] });
  server.tool({ name: 'show_forecast', description: 'The forecast of a city, shown as a chart', _meta: { ...appToolMeta(view), 'com.example/team': 'weather' } }, (_args, ctx) =>
    clientSupportsApps(ctx) ? 'Lisbon: 21 °C (the chart shows the hours)' : 'Lisbon: 21 °C, sunny; 18 °C at 6:00, 23 °C at 15:00');
  server.tool({ name: 'switch_units', description: 'The view changes units', _meta: appToolMeta(view, { visibility: ['app'] }) }, () => 'Lisbon: 70 °F');
  return server;
}

async function connect(server: McpServer, era: 'legacy' | 'modern', extensions?: Readonly<Record<string, ExtensionSettings>>) {
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSide = withSchemaOracle(serverEnd, { role: 'server' });
  const clientSide = withSchemaOracle(clientEnd, { role: 'client' });
  server.accept(serverSide.transport);
  const session = await createClient({ name: 'host', version: '1', era, ...(extensions === undefined ? {} : { extensions }) }).connect(clientSide.transport);
  return { session, oracles: [serverSide.oracle, clientSide.oracle] as SchemaOracle[] };
}

function assertClean(oracles: readonly SchemaOracle[]): void {
  for (const oracle of oracles) {
    assert.ok(oracle.checked > 0, 'the oracle checked messages');
    assert.deepEqual(oracle.violations, [], formatViolations(oracle.violations));
  }
}

describe('rxmcp/apps: declaring UI resources and links', () => {
  test('appResource refuses what a host could not use, naming it', () => {
    const refused: ReadonlyArray<readonly [Partial<AppResourceDefinition> & Record<string, unknown>, RegExp]> = [
      [{ uri: 'https://weather.example/view.html' }, /ui:\/\/ scheme/],
      [{ uri: 'ui://' }, /ui:\/\/ scheme/],
      [{ html: '<main>a fragment</main>' }, /HTML5 document/],
      [{ csp: { connectDomains: ['api.weather.example'] } }, /csp\.connectDomains .*"api\.weather\.example" is not an origin/],
      [{ csp: { resourceDomains: ["https://cdn.example.com; script-src 'unsafe-eval'"] } }, /csp\.resourceDomains .* is not an origin/],
      [{ csp: { frameDomains: ['*'] } }, /csp\.frameDomains .*"\*" is not an origin/],
      [{ csp: { scriptDomains: ['https://cdn.example.com'] } as never }, /csp of ui:\/\/weather\/forecast\.html has no field scriptDomains/],
      [{ permissions: { usb: {} } as never }, /permissions of .* has no usb/],
      [{ permissions: { camera: { please: true } } as never }, /permissions\.camera .* must be \{\}/],
      [{ domain: 'two words' }, /domain of .* without spaces/],
      [{ prefersBorder: 'yes' as never }, /prefersBorder .* true or false/],
    ];
    for (const [change, reason] of refused) {
      assert.throws(() => appResource({ ...VIEW, ...change } as AppResourceDefinition), reason, JSON.stringify(change));
    }
    // Comments before the doctype, wildcard subdomains, ports, IPv6 and paths are fine.
    const fine = appResource({ ...VIEW, html: `<!-- built -->\n${HTML}`, csp: { connectDomains: ['wss://live.example:8443', 'http://[::1]:3000', 'https://api.example.com/v1/'] } });
    assert.deepEqual(fine.ui.csp, { connectDomains: ['wss://live.example:8443', 'http://[::1]:3000', 'https://api.example.com/v1/'] });
  });

  test('the declared resource: listing entry and read answer built once, _meta.ui valid against ext-apps', () => {
    const view = appResource(VIEW);
    assert.equal(view.definition.mimeType, APP_MIME_TYPE);
    assert.equal(view.definition.size, new TextEncoder().encode(HTML).byteLength);
    assert.deepEqual(view.contents.contents, [{ uri: VIEW.uri, mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: view.ui } }]);
    assert.deepEqual(view.ui, { csp: VIEW.csp, permissions: { geolocation: {} }, domain: VIEW.domain, prefersBorder: true });
    assertAppsShape('McpUiResourceMeta', view.ui);
    assert.ok(Object.isFrozen(view.contents) && Object.isFrozen(view.definition));
  });

  test('appToolMeta links the nested and the deprecated flat key, and checks visibility', () => {
    const view = appResource(VIEW);
    const both = appToolMeta(view);
    assert.deepEqual(both, { ui: { resourceUri: VIEW.uri }, 'ui/resourceUri': VIEW.uri });
    assertAppsShape('McpUiToolMeta', both['ui']);
    const appOnly = appToolMeta(VIEW.uri, { visibility: ['app'] });
    assert.deepEqual(appOnly['ui'], { resourceUri: VIEW.uri, visibility: ['app'] });
    assertAppsShape('McpUiToolMeta', appOnly['ui']);
    assert.throws(() => appToolMeta('https://weather.example/view.html'), /links a ui:\/\/ resource/);
    for (const visibility of [[], ['model', 'model'], ['agent']]) {
      assert.throws(() => appToolMeta(view, { visibility: visibility as never }), /visibility must list/, JSON.stringify(visibility));
    }
  });

  test('apps refuses a UI resource given twice', () => {
    assert.throws(() => apps({ resources: [appResource(VIEW), appResource({ ...VIEW, name: 'again' })] }), /ui:\/\/weather\/forecast\.html is given twice/);
  });
});

for (const era of ['legacy', 'modern'] as const) {
  describe(`rxmcp/apps, ${era} era`, () => {
    test('the server declares the extension, lists and reads the view with its _meta.ui, lists linked tools', async () => {
      const server = weatherServer();
      const { session, oracles } = await connect(server, era, { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS });
      assert.deepEqual(session.serverCapabilities?.extensions, { [APPS_EXTENSION]: {} });
      assertAppsShape('McpUiClientCapabilities', APPS_CLIENT_SETTINGS);
      const [listed] = await session.listResources();
      assert.ok(listed !== undefined);
      assert.deepEqual({ ...listed }, { uri: VIEW.uri, name: 'forecast', title: 'Forecast', description: VIEW.description, mimeType: APP_MIME_TYPE, size: HTML.length, _meta: { ui: appResource(VIEW).ui } });
      assertAppsShape('McpUiResourceMeta', listed._meta?.['ui']);
      const read = await session.readResource(VIEW.uri);
      assert.equal(read.contents.length, 1);
      const [contents] = read.contents;
      assert.ok(contents !== undefined && 'text' in contents);
      assert.equal(contents.text, HTML);
      assert.equal(contents.mimeType, APP_MIME_TYPE);
      assertAppsShape('McpUiResourceMeta', contents._meta?.['ui']);
      if (era === 'modern') assert.equal(typeof (read as { ttlMs?: unknown }).ttlMs, 'number', 'the modern read carries caching hints');
      const tools = await session.listTools();
      assert.deepEqual(tools.map((tool) => [tool.name, tool._meta]), [
        ['show_forecast', { ui: { resourceUri: VIEW.uri }, 'ui/resourceUri': VIEW.uri, 'com.example/team': 'weather' }],
        ['switch_units', { ui: { resourceUri: VIEW.uri, visibility: ['app'] }, 'ui/resourceUri': VIEW.uri }],
      ]);
      for (const tool of tools) assertAppsShape('McpUiToolMeta', tool._meta?.['ui']);
      await session.close();
      await server.close();
      assertClean(oracles);
    });

    test('a linked tool answers meaningful content to every host; clientSupportsApps reads each requester\'s declaration', async () => {
      const server = weatherServer();
      const hosts: ReadonlyArray<readonly [string, Readonly<Record<string, ExtensionSettings>> | undefined, string]> = [
        ['an apps host', { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS }, 'Lisbon: 21 °C (the chart shows the hours)'],
        ['a host without the extension', undefined, 'Lisbon: 21 °C, sunny; 18 °C at 6:00, 23 °C at 15:00'],
        // mimeTypes is required: a declaration without the HTML app type renders no view.
        ['a host declaring no mimeTypes', { [APPS_EXTENSION]: {} }, 'Lisbon: 21 °C, sunny; 18 °C at 6:00, 23 °C at 15:00'],
        ['a host rendering another type', { [APPS_EXTENSION]: { mimeTypes: ['text/uri-list'] } }, 'Lisbon: 21 °C, sunny; 18 °C at 6:00, 23 °C at 15:00'],
      ];
      for (const [who, extensions, text] of hosts) {
        const { session, oracles } = await connect(server, era, extensions);
        const result = await session.callTool('show_forecast');
        assert.deepEqual(result.content, [{ type: 'text', text }], who);
        // Every host sees the same tools: a host without the extension ignores the links.
        assert.deepEqual((await session.listTools()).map((tool) => tool.name), ['show_forecast', 'switch_units'], who);
        await session.close();
        assertClean(oracles);
      }
      await server.close();
    });
  });
}
