/**
 * Interop of MCP Apps with the official packages, over Streamable HTTP on 127.0.0.1:
 *   - our server (`rxmcp/apps`) read by the official SDK clients, 1.x (`@modelcontextprotocol/sdk`) and 2.x
 *     (`@modelcontextprotocol/client`, legacy 2025-11-25 and `auto`: 2026-07-28), through the host-side helpers of
 *     `@modelcontextprotocol/ext-apps` (`getToolUiResourceUri`, the visibility checks, `buildAllowAttribute`): each
 *     client declares the extension as ext-apps' hosts do, and our tool handler sees the declaration;
 *   - an official 2.x server whose app is registered with ext-apps' `registerAppTool` / `registerAppResource`,
 *     read by our `createAppsClient` (view, settings from the contents and from the listing, visibility), its
 *     `getUiCapability` seeing our client's declaration.
 * Every `_meta.ui` and capability on the wire is checked against ext-apps' schema.json.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2HttpTransport } from '@modelcontextprotocol/client';
import { buildAllowAttribute, getToolUiResourceUri, isToolVisibilityAppOnly, isToolVisibilityModelOnly } from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, getUiCapability, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer as Sdk2Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AppsError, createAppsClient } from '../../client/apps/apps-client.ts';
import { createClient } from '../../client/create-client.ts';
import { permissionsPolicy } from '../../core/apps/view-policy.ts';
import { APPS_CLIENT_SETTINGS, APPS_EXTENSION, APP_MIME_TYPE } from '../../core/protocol/apps.ts';
import { appResource } from '../../server/apps/app-resource.ts';
import { appToolMeta, apps, clientSupportsApps } from '../../server/apps/serve-apps.ts';
import { createServer } from '../../server/create-server.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { assertAppsShape } from '../support/apps-schema.ts';
import { serveSdk2Http } from '../support/interop-sdk-http.ts';

const HTML = '<!doctype html><html><head><meta charset="utf-8"></head><body><main id="forecast"></main></body></html>';
const UI_URI = 'ui://weather/forecast.html';
const HOST_CAPABILITIES = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

/** Our weather server with its app, on Streamable HTTP; `show_forecast` answers whether the requester renders apps. */
async function serveRxmcpApp(): Promise<string> {
  const view = appResource({
    uri: UI_URI,
    name: 'forecast',
    html: HTML,
    csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://cdn.weather.example'] },
    permissions: { geolocation: {}, clipboardWrite: {} },
    prefersBorder: true,
  });
  const server = createServer({ name: 'rxmcp-weather', version: '1.0.0', extensions: [apps({ resources: [view] })] });
  server.tool({ name: 'show_forecast', _meta: appToolMeta(view) }, (_args, ctx) => (clientSupportsApps(ctx) ? 'Lisbon: 21 °C (shown by the view)' : 'Lisbon: 21 °C, sunny'));
  server.tool({ name: 'switch_units', _meta: appToolMeta(view, { visibility: ['app'] }) }, () => 'Lisbon: 70 °F');
  server.tool({ name: 'share_forecast', _meta: appToolMeta(view, { visibility: ['model'] }) }, () => 'shared');
  const http = createStreamableHttpServer({ server, path: '/mcp' });
  const { url } = await http.listen(0, '127.0.0.1');
  closers.push(() => http.close());
  return url;
}

/** What an official client, through ext-apps' host helpers, must see of our app. */
interface OfficialClient {
  listTools(): Promise<{ tools: Array<{ name: string; _meta?: Record<string, unknown> }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }> }>;
  callTool(params: { name: string }): Promise<unknown>;
  getServerCapabilities(): { extensions?: Record<string, object> } | undefined;
}

async function checkOurAppThrough(client: OfficialClient): Promise<void> {
  assert.deepEqual(client.getServerCapabilities()?.extensions?.[EXTENSION_ID], {});
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const show = byName.get('show_forecast');
  assert.ok(show !== undefined);
  for (const tool of tools) assertAppsShape('McpUiToolMeta', tool._meta?.['ui']);
  assert.equal(getToolUiResourceUri(show as never), UI_URI);
  assert.equal(isToolVisibilityAppOnly(byName.get('switch_units') as never), true);
  assert.equal(isToolVisibilityModelOnly(byName.get('share_forecast') as never), true);
  assert.equal(isToolVisibilityAppOnly(show as never) || isToolVisibilityModelOnly(show as never), false);
  const { contents } = await client.readResource({ uri: UI_URI });
  const [item] = contents;
  assert.ok(item !== undefined);
  assert.equal(item.mimeType, RESOURCE_MIME_TYPE);
  assert.equal(item.text, HTML);
  const ui = item._meta?.['ui'] as { permissions?: Record<string, object> } | undefined;
  assertAppsShape('McpUiResourceMeta', ui);
  assert.equal(buildAllowAttribute(ui?.permissions), permissionsPolicy(ui?.permissions));
  // Our handler saw the client's declaration (the legacy session's, or the modern request's own).
  const result = await client.callTool({ name: 'show_forecast' }) as { content: unknown };
  assert.deepEqual(result.content, [{ type: 'text', text: 'Lisbon: 21 °C (shown by the view)' }]);
  // The result is what the host hands the view as it is.
  assertAppsShape('McpUiToolResultNotification', { method: 'ui/notifications/tool-result', params: result });
}

describe('MCP Apps: our server read by the official clients through ext-apps', () => {
  test('SDK 1.x Client, 2025-11-25', async () => {
    assertAppsShape('McpUiClientCapabilities', HOST_CAPABILITIES.extensions[EXTENSION_ID]);
    const url = await serveRxmcpApp();
    const client = new Sdk1Client({ name: 'sdk1-apps-host', version: '1.0.0' }, { capabilities: HOST_CAPABILITIES });
    await client.connect(new Sdk1HttpTransport(new URL(url)));
    closers.push(() => client.close());
    await checkOurAppThrough(client as unknown as OfficialClient);
  });

  for (const mode of ['legacy', 'auto'] as const) {
    test(`SDK 2.x Client (${mode === 'legacy' ? '2025-11-25' : 'auto: 2026-07-28'})`, async () => {
      const url = await serveRxmcpApp();
      const client = new Sdk2Client(
        { name: 'sdk2-apps-host', version: '2.0.0' },
        mode === 'legacy' ? { capabilities: HOST_CAPABILITIES, supportedProtocolVersions: ['2025-11-25'], versionNegotiation: { mode } } : { capabilities: HOST_CAPABILITIES, versionNegotiation: { mode } },
      );
      await client.connect(new Sdk2HttpTransport(new URL(url)));
      closers.push(() => client.close());
      assert.equal(client.getNegotiatedProtocolVersion(), mode === 'legacy' ? '2025-11-25' : '2026-07-28');
      await checkOurAppThrough(client as unknown as OfficialClient);
    });
  }
});

describe('MCP Apps: an ext-apps server read by our createAppsClient', () => {
  test('registerAppTool / registerAppResource on the SDK 2.x McpServer', async () => {
    const seen: unknown[] = [];
    const sdk = await serveSdk2Http(() => {
      const server = new Sdk2Server({ name: 'sdk2-apps-server', version: '2.0.0' }, { supportedProtocolVersions: ['2025-11-25'] });
      registerAppResource(server, 'Forecast view', UI_URI, {
        description: 'The forecast, drawn',
        _meta: { ui: { csp: { resourceDomains: ['https://cdn.listed.example'] } } },
      }, async () => ({
        contents: [{ uri: UI_URI, mimeType: RESOURCE_MIME_TYPE, text: HTML, _meta: { ui: { csp: { connectDomains: ['https://api.weather.example'] }, prefersBorder: false } } }],
      }));
      registerAppResource(server, 'Listing-only settings', 'ui://weather/plain.html', { _meta: { ui: { permissions: { microphone: {} } } } }, async () => ({
        contents: [{ uri: 'ui://weather/plain.html', mimeType: RESOURCE_MIME_TYPE, text: HTML }],
      }));
      registerAppTool(server, 'show_forecast', { description: 'The forecast', inputSchema: z.object({ city: z.string() }), _meta: { ui: { resourceUri: UI_URI } } }, async ({ city }) => {
        seen.push(getUiCapability(server.server.getClientCapabilities())?.mimeTypes);
        return { content: [{ type: 'text', text: `${city}: 21 °C` }] };
      });
      registerAppTool(server, 'switch_units', { _meta: { ui: { resourceUri: UI_URI, visibility: ['app'] } } }, async () => ({ content: [{ type: 'text', text: '70 °F' }] }));
      registerAppTool(server, 'plain', { _meta: { ui: { resourceUri: 'ui://weather/plain.html', visibility: ['model'] } } }, async () => ({ content: [{ type: 'text', text: 'plain' }] }));
      return server;
    });
    closers.push(() => sdk.close());
    const session = await createClient({ name: 'rxmcp-apps-host', version: '1.0.0', era: 'legacy', extensions: { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS } })
      .connect(createStreamableHttpClientTransport(sdk.url));
    closers.push(() => session.close());
    const host = createAppsClient(session);
    const tools = new Map((await session.listTools()).map((tool) => [tool.name, tool]));
    const show = tools.get('show_forecast');
    assert.ok(show !== undefined);
    // registerAppTool writes the nested key and the deprecated flat one, as appToolMeta does.
    assert.deepEqual(show._meta, { ui: { resourceUri: UI_URI }, 'ui/resourceUri': UI_URI });
    const view = await host.readUiResource(show);
    assert.equal(view.html, HTML);
    assert.deepEqual(view.ui, { csp: { connectDomains: ['https://api.weather.example'] }, prefersBorder: false });
    assert.match(view.contentSecurityPolicy, /connect-src https:\/\/api\.weather\.example;/);
    const listed = await host.listUiResources();
    assert.deepEqual(listed.map((resource) => [resource.uri, resource.mimeType]), [[UI_URI, APP_MIME_TYPE], ['ui://weather/plain.html', APP_MIME_TYPE]]);
    for (const resource of listed) assertAppsShape('McpUiResourceMeta', resource._meta?.['ui']);
    // Settings only on the listing entry apply when the host hands it over.
    const plain = await host.readUiResource(tools.get('plain')!, { listed: listed[1]! });
    assert.deepEqual(plain.ui, { permissions: { microphone: {} } });
    assert.equal(plain.permissionsPolicy, 'microphone');
    assert.deepEqual((await host.callToolForApp('switch_units')).content, [{ type: 'text', text: '70 °F' }]);
    const refused = await host.callToolForApp('plain').then(() => undefined, (error: unknown) => error);
    assert.ok(refused instanceof AppsError && refused.code === 'ToolNotForApps', String(refused));
    assert.deepEqual((await session.callTool('show_forecast', { city: 'Lisbon' })).content, [{ type: 'text', text: 'Lisbon: 21 °C' }]);
    // ext-apps' own helper reads our client's declaration.
    assert.deepEqual(seen, [[APP_MIME_TYPE]]);
  });
});
