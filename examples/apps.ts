/**
 * MCP Apps (`rxmcp/apps`, `rxmcp/apps/client`; SEP-1865): a weather server whose `show_forecast` tool links an
 * interactive view, and a minimal host that shows it.
 *
 * - The server declares the view (`appResource`: a `ui://` HTML document with its CSP and border preference) and
 *   serves it with `apps(...)`, which declares the `io.modelcontextprotocol/ui` extension. `show_forecast` links
 *   the view with `appToolMeta`; `switch_units` is visible to the view only. A host without the extension gets
 *   the same tools and a full text answer (`clientSupportsApps` tells the handler which host asks).
 * - The host's backend holds an rxmcp client that declares the extension and reads the view with
 *   `createAppsClient(session).readUiResource(tool)`; its page (apps/host.ts, ext-apps' `AppBridge`) renders the view
 *   (apps/view.ts, ext-apps' `App`, bundled into the HTML by esbuild) in a sandboxed iframe.
 *
 * `npx tsx apps.ts` checks what the server and the host backend do and exits; `npx tsx apps.ts serve` keeps them
 * running and prints the host page's address to open in a browser (Ctrl-C stops). Needs
 * `npm install rxmcp zod esbuild @modelcontextprotocol/ext-apps @modelcontextprotocol/client`.
 */
import assert from 'node:assert/strict';
import { type IncomingMessage, type ServerResponse, createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type ClientSession, createClient, createServer } from 'rxmcp';
import { appResource, appToolMeta, apps, clientSupportsApps } from 'rxmcp/apps';
import { APPS_CLIENT_SETTINGS, APPS_EXTENSION, AppsError, createAppsClient, isVisibleTo, uiResourceUriOf } from 'rxmcp/apps/client';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';
import { z } from 'zod';

type Units = 'celsius' | 'fahrenheit';
const FORECASTS: Readonly<Record<string, { conditions: string; celsius: readonly number[] }>> = {
  Lisbon: { conditions: 'sunny', celsius: [18, 20, 22, 23, 21] },
  Oslo: { conditions: 'light rain', celsius: [4, 6, 7, 7, 5] },
};
const HOURS = [6, 9, 12, 15, 18];

function forecast(city: string, units: Units) {
  const known = FORECASTS[city];
  if (known === undefined) throw new Error(`No forecast for ${city} (try ${Object.keys(FORECASTS).join(' or ')})`);
  const hourly = HOURS.map((hour, i) => {
    const celsius = known.celsius[i] ?? 0;
    return { hour, temperature: units === 'celsius' ? celsius : Math.round((celsius * 9) / 5 + 32) };
  });
  return { city, conditions: known.conditions, units, hourly };
}

/** The view's TypeScript, bundled for the browser with everything it imports (ext-apps' App), as one script. */
async function bundle(file: string): Promise<string> {
  const entry = fileURLToPath(new URL(`./apps/${file}`, import.meta.url));
  const { outputFiles } = await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, logLevel: 'silent' });
  // Inline in a <script>: no "</script" may end it early.
  return (outputFiles[0]?.text ?? '').replace(/<\/script/gi, '<\\/script');
}

async function weatherServer() {
  const view = appResource({
    uri: 'ui://weather/forecast.html',
    name: 'forecast',
    title: 'Forecast',
    description: 'The hours of one day, with a button to switch units',
    html: `<!doctype html><html><head><meta charset="utf-8"><title>Forecast</title>
<style>body{font:14px system-ui;margin:12px} li{list-style:none}</style></head>
<body><h2 id="city">…</h2><p id="conditions"></p><ul id="hours"></ul>
<button id="units">Show in °F</button> <button id="ask">Ask what to wear</button><p id="status">waiting for the host</p>
<script type="module">${await bundle('view.ts')}</script></body></html>`,
    // A weather API the view could call; nothing else is reachable from it.
    csp: { connectDomains: ['https://api.weather.example'] },
    prefersBorder: true,
  });
  const server = createServer({ name: 'weather', version: '1.0.0', extensions: [apps({ resources: [view] })] });
  server.tool({
    name: 'show_forecast',
    description: 'The forecast of a city for today',
    inputSchema: z.object({ city: z.string() }),
    _meta: appToolMeta(view),
  }, ({ city }, ctx) => {
    const today = forecast(city, 'celsius');
    const hours = today.hourly.map(({ hour, temperature }) => `${hour}:00 ${temperature} °C`).join(', ');
    // Every host gets meaningful text; a host that shows the view needs less of it.
    const text = clientSupportsApps(ctx) ? `${city}: ${today.conditions} (the view shows the hours)` : `${city}: ${today.conditions}; ${hours}`;
    return { content: [{ type: 'text', text }], structuredContent: today };
  });
  server.tool({
    name: 'switch_units',
    description: 'The same forecast in other units (for the view)',
    inputSchema: z.object({ city: z.string(), units: z.enum(['celsius', 'fahrenheit']) }),
    _meta: appToolMeta(view, { visibility: ['app'] }),
  }, ({ city, units }) => ({ content: [{ type: 'text', text: `${city} in ${units}` }], structuredContent: forecast(city, units) }));
  return server;
}

const HOST_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>rxmcp example host</title></head>
<body><h1>Host</h1><p id="status">starting</p><div id="views"></div><h2>Chat</h2><ul id="chat"></ul>
<script type="module" src="/host.js"></script></body></html>`;

/** The host's backend: its MCP client, and the page that renders views. POST only, from the page's own origin. */
async function startHost(mcpUrl: string) {
  const session = await createClient({ name: 'example-host', version: '1.0.0', extensions: { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS } })
    .connect(createStreamableHttpClientTransport(mcpUrl));
  const host = createAppsClient(session);
  const script = await bundle('host.ts');
  const routes: Readonly<Record<string, (body: Record<string, unknown>) => Promise<unknown>>> = {
    async '/host/open'({ tool: name }) {
      const tool = (await session.listTools()).find((listed) => listed.name === name);
      if (tool === undefined) throw new AppsError('NoUiResource', String(name), `No tool ${String(name)}`);
      const listed = (await host.listUiResources()).find((resource) => resource.uri === uiResourceUriOf(tool));
      const view = await host.readUiResource(tool, listed === undefined ? {} : { listed });
      return { html: view.html, contentSecurityPolicy: view.contentSecurityPolicy, permissionsPolicy: view.permissionsPolicy, prefersBorder: view.ui.prefersBorder };
    },
    // The model's call (the agent decided to call the tool): only tools visible to the model.
    async '/host/call'({ name, arguments: args }) {
      const tool = (await session.listTools()).find((listed) => listed.name === name);
      if (tool === undefined || !isVisibleTo(tool, 'model')) throw new Error(`${String(name)} is not a tool for the model`);
      return session.callTool(tool.name, (args ?? {}) as Record<string, unknown>);
    },
    // The view's call, through the bridge: only tools of this server visible to apps.
    '/host/app-call': ({ name, arguments: args }) => host.callToolForApp(String(name), (args ?? {}) as Record<string, unknown>),
  };
  const web = createHttpServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method === 'GET' && (path === '/' || path === '/host.js')) {
      res.writeHead(200, { 'content-type': path === '/' ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8' }).end(path === '/' ? HOST_PAGE : script);
      return;
    }
    const route = routes[path];
    // The view runs in an opaque origin ("null"): it cannot reach these routes behind the bridge's back.
    if (req.method !== 'POST' || route === undefined || req.headers.origin !== origin) {
      res.writeHead(route === undefined ? 404 : 403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not here' }));
      return;
    }
    try {
      let body = '';
      for await (const chunk of req) if ((body += String(chunk)).length > 65_536) throw new Error('body too large');
      const answer = await route(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    } catch (error) {
      res.writeHead(error instanceof AppsError ? 403 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    }
  }

  return {
    session,
    host,
    url: `${origin}/`,
    async close() {
      await session.close();
      await new Promise<void>((resolve) => web.close(() => resolve()));
    },
  };
}

async function check(mcpUrl: string, hostSide: Awaited<ReturnType<typeof startHost>>): Promise<void> {
  const { session, host } = hostSide;
  assert.equal(host.available, true);
  const tools = await session.listTools();
  const show = tools.find((tool) => tool.name === 'show_forecast');
  assert.ok(show !== undefined);
  // What the host shows its model leaves out the view's own tool.
  assert.deepEqual(tools.filter((tool) => isVisibleTo(tool, 'model')).map((tool) => tool.name), ['show_forecast']);
  const view = await host.readUiResource(show);
  assert.match(view.html, /^<!doctype html>/);
  assert.match(view.contentSecurityPolicy, /connect-src https:\/\/api\.weather\.example;/);
  assert.equal(view.ui.prefersBorder, true);
  const result = await session.callTool('show_forecast', { city: 'Lisbon' });
  assert.deepEqual(result.content, [{ type: 'text', text: 'Lisbon: sunny (the view shows the hours)' }]);
  assert.equal((await host.callToolForApp('switch_units', { city: 'Lisbon', units: 'fahrenheit' })).structuredContent?.['units'], 'fahrenheit');
  console.log('an apps host reads the view and calls for it:', view.html.length, 'bytes of HTML;', view.contentSecurityPolicy);
  // What the sandboxed view would send if it tried the backend itself (its CSP already stops it): refused.
  const bypass = await fetch(new URL('/host/app-call', hostSide.url), { method: 'POST', headers: { origin: 'null' }, body: '{"name":"switch_units"}' });
  assert.equal(bypass.status, 403);

  // A host without the extension: the same tool, a text answer that says it all.
  const plain: ClientSession = await createClient({ name: 'text-host', version: '1.0.0' }).connect(createStreamableHttpClientTransport(mcpUrl));
  const text = await plain.callTool('show_forecast', { city: 'Oslo' });
  assert.deepEqual(text.content, [{ type: 'text', text: 'Oslo: light rain; 6:00 4 °C, 9:00 6 °C, 12:00 7 °C, 15:00 7 °C, 18:00 5 °C' }]);
  console.log('a host without the extension gets:', JSON.stringify(text.content));
  await plain.close();
}

async function main(): Promise<void> {
  const mcp = createStreamableHttpServer({ server: await weatherServer() });
  const { url: mcpUrl } = await mcp.listen(0, '127.0.0.1');
  const hostSide = await startHost(mcpUrl);
  const stop = async (): Promise<void> => {
    await hostSide.close();
    await mcp.close();
  };
  if (process.argv[2] !== 'serve') {
    try {
      await check(mcpUrl, hostSide);
    } finally {
      await stop();
    }
    return;
  }
  console.log(`MCP server: ${mcpUrl}`);
  console.log(`host page: ${hostSide.url}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().then(() => process.exit(0)));
}

await main();
