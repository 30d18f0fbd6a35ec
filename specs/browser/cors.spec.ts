/**
 * CORS proven in a real browser: a page served from one 127.0.0.1 port runs rxmcp's bundled client against an
 * MCP endpoint on another port (another origin), in headless Chromium. With the page's origin in `cors.origins`
 * the browser's preflights are answered and the whole session works in both eras (the modern era's
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-Region` headers, the legacy era's `Mcp-Session-Id` read from an
 * answer and sent back, DELETE at the end), on the node and the fetch adapter alike. A page on an origin not
 * in the list has its preflight refused and never gets to send its request.
 *
 * Chromium is the Debian package (`apt-get install -y chromium`); without it this spec fails, it does not skip.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingMessage, type Server, type ServerResponse, createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type BrowserContext, chromium } from 'playwright-core';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { type AdapterName, type ServedEndpoint, serveThrough } from '../transports/http-server/adapters.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGE_ENTRY = fileURLToPath(new URL('./page/cross-origin.ts', import.meta.url));
const HTML = `<!doctype html>
<meta charset="utf-8"><title>rxmcp across origins</title>
<p id="status">loading</p>
<script type="module" src="/app.js"></script>`;

/** What the MCP endpoint's socket carried: every request, and the status it was answered with. */
interface Seen {
  readonly method: string;
  readonly origin: string | undefined;
  readonly requestMethod: string | undefined;
  readonly requestHeaders: string;
  readonly sessionId: string | undefined;
  status?: number;
  allowOrigin?: string;
}

let server: McpServer;
let allowedPage: Server;
let otherPage: Server;
let allowedOrigin: string;
let otherOrigin: string;
let profile: string;
let context: BrowserContext | undefined;
const endpoints = new Map<AdapterName, { served: ServedEndpoint; seen: Seen[] }>();
let runs = 0;

async function listenPage(script: string): Promise<[Server, string]> {
  const page = createNodeServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    const [type, content] = path === '/app.js' ? ['text/javascript', script] : path === '/' ? ['text/html', HTML] : ['text/plain', 'not found'];
    res.writeHead(content === 'not found' ? 404 : 200, { 'content-type': `${type}; charset=utf-8` });
    res.end(content);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  return [page, `http://127.0.0.1:${(page.address() as AddressInfo).port}`];
}

function recorder(seen: Seen[]): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const entry: Seen = {
      method: req.method ?? '',
      origin: req.headers.origin,
      requestMethod: req.headers['access-control-request-method'],
      requestHeaders: req.headers['access-control-request-headers'] ?? '',
      sessionId: typeof req.headers['mcp-session-id'] === 'string' ? req.headers['mcp-session-id'] : undefined,
    };
    seen.push(entry);
    // Headers handed to writeHead are not kept for getHeader: read them on their way out.
    const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string>) => ServerResponse;
    res.writeHead = ((status: number, headers?: Record<string, string>) => {
      entry.status = status;
      const allow = headers?.['access-control-allow-origin'];
      if (allow !== undefined) entry.allowOrigin = allow;
      return writeHead(status, headers);
    }) as ServerResponse['writeHead'];
  };
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); this spec must not be skipped`);
  const bundle = await build({ entryPoints: [PAGE_ENTRY], bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent' });
  const script = bundle.outputFiles[0]?.text ?? '';
  assert.ok(script.length > 0, 'esbuild produced the page script');
  [allowedPage, allowedOrigin] = await listenPage(script);
  [otherPage, otherOrigin] = await listenPage(script);

  server = createServer({ name: 'cors-spec', version: '1.0.0' });
  server.tool(
    { name: 'weather', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } },
    (args: Record<string, unknown>) => `sunny in ${String(args['region'])}`,
  );
  for (const adapter of ['node', 'fetch'] as const) {
    const seen: Seen[] = [];
    // Only the first page's origin is a CORS origin; the other one is loopback too, so the default Origin
    // check alone would let it through: what stops it is CORS.
    endpoints.set(adapter, { served: await serveThrough(adapter, server, { cors: { origins: [allowedOrigin] } }, recorder(seen)), seen });
  }

  profile = await mkdtemp(join(tmpdir(), 'rxmcp-chromium-cors-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await context?.close();
  for (const { served } of endpoints.values()) await served.close();
  await server?.close();
  for (const page of [allowedPage, otherPage]) await new Promise<void>((resolve) => (page === undefined ? resolve() : page.close(() => resolve())));
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
});

/** Opens the page from `pageOrigin` against the endpoint behind `adapter`; returns its final status line. */
async function runPage(pageOrigin: string, adapter: AdapterName, era: 'legacy' | 'modern'): Promise<string> {
  assert.ok(context !== undefined);
  const endpoint = endpoints.get(adapter)?.served;
  assert.ok(endpoint !== undefined);
  const page = await context.newPage();
  try {
    // Each run its own endpoint URL (the query is ignored by the endpoint), so no preflight answer cached by
    // the browser for an earlier run spares this one its preflights.
    const url = `${endpoint.url}?run=${++runs}`;
    await page.goto(`${pageOrigin}/?era=${era}&mcp=${encodeURIComponent(url)}`);
    await page.waitForFunction(() => document.getElementById('status')?.textContent !== 'loading', undefined, { timeout: 20_000 });
    return (await page.textContent('#status')) ?? '';
  } finally {
    await page.close();
  }
}

for (const adapter of ['node', 'fetch'] as const) {
  for (const era of ['modern', 'legacy'] as const) {
    test(`browser CORS (${adapter} adapter, ${era} era) - a page on an allowed origin runs a whole session against the endpoint on another origin`, { timeout: 60_000 }, async () => {
      const seen = endpoints.get(adapter)?.seen ?? [];
      seen.length = 0;
      const status = await runPage(allowedOrigin, adapter, era);
      assert.equal(status, 'done: weather | sunny in eu-west');

      const preflights = seen.filter((entry) => entry.method === 'OPTIONS');
      assert.ok(preflights.length > 0, 'the browser sent preflights');
      for (const preflight of preflights) {
        assert.equal(preflight.origin, allowedOrigin);
        assert.equal(preflight.status, 204, `preflight for ${preflight.requestMethod} ${preflight.requestHeaders}`);
        assert.equal(preflight.allowOrigin, allowedOrigin);
      }
      const asked = preflights.map((preflight) => preflight.requestHeaders.toLowerCase());
      if (era === 'modern') {
        assert.ok(asked.some((headers) => headers.includes('mcp-param-region') && headers.includes('mcp-method')), `a preflight asked for the mirrored headers: ${asked.join(' / ')}`);
      } else {
        // The page could send the session id back only by reading it from an answer: the header is exposed.
        // (Its preflight answer, cached, already allowed sending it, so no second preflight asks for it.)
        const sessionId = seen.find((entry) => entry.sessionId !== undefined)?.sessionId;
        assert.ok(sessionId !== undefined, 'the page sent Mcp-Session-Id back');
        const deleted = seen.find((entry) => entry.method === 'DELETE');
        assert.equal(deleted?.sessionId, sessionId);
        assert.equal(deleted?.status, 200, 'the session was ended with DELETE across origins');
      }
      const posts = seen.filter((entry) => entry.method === 'POST');
      assert.ok(posts.length >= 2 && posts.every((post) => post.allowOrigin === allowedOrigin), 'every answer carried the page origin');
    });
  }

  test(`browser CORS (${adapter} adapter) - a page on an origin not in the list is stopped at its preflight and sends nothing`, { timeout: 60_000 }, async () => {
    const seen = endpoints.get(adapter)?.seen ?? [];
    seen.length = 0;
    const status = await runPage(otherOrigin, adapter, 'modern');
    assert.match(status, /^failed: /);
    const fromOther = seen.filter((entry) => entry.origin === otherOrigin);
    assert.ok(fromOther.length > 0 && fromOther.every((entry) => entry.method === 'OPTIONS' && entry.status === 403 && entry.allowOrigin === undefined), `only refused preflights: ${JSON.stringify(fromOther)}`);
  });
}
