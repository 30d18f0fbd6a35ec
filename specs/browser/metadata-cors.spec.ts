/**
 * The protected-resource metadata (RFC 9728) read by a page of another origin in headless Chromium, as a browser
 * MCP client discovers its authorization server: the endpoint (behind either adapter, with `bearerAuth`) allows
 * only `https://app.example.test` to call it, so the page's own origin (another 127.0.0.1 port) is refused at
 * the MCP endpoint, yet it reads the metadata, with a plain GET and with one whose `MCP-Protocol-Version` header
 * makes the browser ask first (a preflight). No credentials are involved either way.
 *
 * Chromium is the Debian package (`apt-get install -y chromium`); without it this spec fails, it does not skip.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type BrowserContext, chromium } from 'playwright-core';
import { bearerAuth } from '../../auth/index.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { ADAPTERS, type AdapterName, type ServedEndpoint, serveThrough } from '../transports/http-server/adapters.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const RESOURCE = 'https://mcp.example.test/mcp';

/** The page: reads `?metadata=` twice (plain, then with a header that needs a preflight), then tries `?mcp=`. */
const PAGE = `<!doctype html>
<meta charset="utf-8"><title>metadata across origins</title>
<p id="status">loading</p>
<script type="module">
const params = new URLSearchParams(location.search);
const outcome = async (request) => {
  try {
    const response = await request();
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { failed: String(error) };
  }
};
// no-store: the document is cacheable, and the second read must reach the server.
const plain = await outcome(() => fetch(params.get('metadata'), { cache: 'no-store' }));
const preflighted = await outcome(() => fetch(params.get('metadata'), { cache: 'no-store', headers: { 'MCP-Protocol-Version': '2025-11-25' } }));
const mcp = await outcome(() => fetch(params.get('mcp'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
document.getElementById('status').textContent = JSON.stringify({ plain, preflighted, mcp });
</script>`;

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly origin: string | undefined;
}

let server: McpServer;
let page: Server;
let pageOrigin: string;
let profile: string;
let context: BrowserContext | undefined;
const endpoints = new Map<AdapterName, { served: ServedEndpoint; seen: Seen[] }>();

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); this spec must not be skipped`);
  page = createNodeServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;

  server = createServer({ name: 'metadata-cors', version: '1.0.0' });
  for (const adapter of ADAPTERS) {
    const seen: Seen[] = [];
    const auth = bearerAuth({ resource: RESOURCE, authorizationServers: ['https://as.example.test'], scopesSupported: ['mcp:read'] });
    const served = await serveThrough(adapter, server, { ...auth, allowedOrigins: ['https://app.example.test'] }, (req) => {
      seen.push({ method: req.method ?? '', path: new URL(req.url ?? '/', 'http://x').pathname, origin: req.headers.origin });
    });
    endpoints.set(adapter, { served, seen });
  }
  profile = await mkdtemp(join(tmpdir(), 'rxmcp-chromium-metadata-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await context?.close();
  for (const { served } of endpoints.values()) await served.close();
  await server?.close();
  await new Promise<void>((resolve) => (page === undefined ? resolve() : page.close(() => resolve())));
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
});

interface Outcome {
  readonly status?: number;
  readonly body?: string;
  readonly failed?: string;
}

for (const adapter of ADAPTERS) {
  test(`browser (${adapter} adapter) - a page on another origin reads the protected-resource metadata, with and without a preflight, while the MCP endpoint refuses it`, { timeout: 60_000 }, async () => {
    assert.ok(context !== undefined);
    const { served, seen } = endpoints.get(adapter) ?? assert.fail('no endpoint');
    const metadata = `${served.origin}/.well-known/oauth-protected-resource/mcp`;
    const tab = await context.newPage();
    let result: { plain: Outcome; preflighted: Outcome; mcp: Outcome };
    try {
      await tab.goto(`${pageOrigin}/?metadata=${encodeURIComponent(metadata)}&mcp=${encodeURIComponent(served.url)}`);
      await tab.waitForFunction(() => document.getElementById('status')?.textContent !== 'loading', undefined, { timeout: 20_000 });
      result = JSON.parse((await tab.textContent('#status')) ?? '{}') as typeof result;
    } finally {
      await tab.close();
    }
    for (const read of [result.plain, result.preflighted]) {
      assert.equal(read.status, 200, JSON.stringify(read));
      const document = JSON.parse(read.body ?? '{}') as { resource?: string; authorization_servers?: string[] };
      assert.equal(document.resource, RESOURCE);
      assert.deepEqual(document.authorization_servers, ['https://as.example.test']);
    }
    assert.ok(result.mcp.failed !== undefined, `the MCP endpoint's refusal is not readable by the page: ${JSON.stringify(result.mcp)}`);
    const atMetadata = seen.filter((entry) => entry.path === '/.well-known/oauth-protected-resource/mcp');
    assert.deepEqual(atMetadata.map((entry) => entry.method), ['GET', 'OPTIONS', 'GET'], 'the second read was preflighted');
    assert.ok(atMetadata.every((entry) => entry.origin === pageOrigin));
  });
}
