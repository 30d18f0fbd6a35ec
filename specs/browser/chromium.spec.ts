/**
 * Runtime neutrality, proven in a real browser: rxmcp's client and the fetch Streamable HTTP client transport,
 * bundled by esbuild for the browser platform (which refuses any Node builtin in the graph), run in headless
 * Chromium against the `rxmcp serve` demo server on createStreamableHttpServer, on 127.0.0.1. The page lists
 * the tools, calls `count` with a live progress display, and cancels another `count`.
 *
 * Chromium is the Debian package (`apt-get install -y chromium`); without it this spec fails, it does not skip.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse, createServer as createNodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { createDemoServer, type DemoServer } from '../../cli/demo-server.ts';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';

type Era = 'legacy' | 'modern';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PAGE_ENTRY = fileURLToPath(new URL('./page/app.ts', import.meta.url));
const HTML = `<!doctype html>
<meta charset="utf-8"><title>rxmcp in a browser</title>
<p id="status">loading</p>
<ul id="tools"></ul>
<button id="count">count</button> <ol id="progress"></ol> <p id="result"></p>
<button id="count-cancel">count, then cancel</button> <ol id="cancel-progress"></ol> <p id="cancel-status"></p>
<script type="module" src="/app.js"></script>`;

let demo: DemoServer;
let endpoint: StreamableHttpServer;
let web: ReturnType<typeof createNodeServer>;
let origin: string;
let profile: string;
let context: BrowserContext | undefined;
/** Every JSON-RPC message the page POSTed to /mcp, as the server received it. */
const received: Array<{ readonly method?: string; readonly id?: unknown; readonly params?: { readonly requestId?: unknown } }> = [];
/** The POSTed messages whose HTTP exchange the client closed before the server had finished answering. */
const abandoned: unknown[] = [];

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); this spec must not be skipped`);
  const bundle = await build({ entryPoints: [PAGE_ENTRY], bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent' });
  const script = bundle.outputFiles[0]?.text ?? '';
  assert.ok(script.length > 0, 'esbuild produced the page script');

  demo = createDemoServer();
  web = createNodeServer((req, res) => void serve(req, res, script));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  // The page's own origin, allowed by name (the default, loopback origins, would allow it too).
  endpoint = createStreamableHttpServer({ server: demo.server, allowedOrigins: [origin] });

  profile = await mkdtemp(join(tmpdir(), 'rxmcp-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await context?.close();
  await endpoint?.close();
  await new Promise<void>((resolve) => (web === undefined ? resolve() : web.close(() => resolve())));
  demo?.stop();
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
});

/** The page, its script, and the MCP endpoint on one origin: the page needs no CORS. */
async function serve(req: IncomingMessage, res: ServerResponse, script: string): Promise<void> {
  const path = new URL(req.url ?? '/', origin).pathname;
  if (path === '/mcp') {
    if (req.method !== 'POST') return endpoint.handleNode(req, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const messages = (Array.isArray(body) ? body : [body]) as typeof received;
    received.push(...messages);
    res.once('close', () => {
      if (!res.writableFinished) abandoned.push(...messages);
    });
    return endpoint.handleNode(req, res, body);
  }
  const [type, content] = path === '/app.js' ? ['text/javascript', script] : path === '/' ? ['text/html', HTML] : ['text/plain', 'not found'];
  res.writeHead(content === 'not found' ? 404 : 200, { 'content-type': `${type}; charset=utf-8` });
  res.end(content);
}

async function openPage(era: Era): Promise<Page> {
  assert.ok(context !== undefined);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${origin}/?era=${era}`);
  await page.waitForFunction(() => document.getElementById('status')?.textContent !== 'loading', undefined, { timeout: 15_000 });
  assert.equal(await page.textContent('#status'), 'connected', `the page connected (page errors: ${errors.join('; ')})`);
  return page;
}

for (const era of ['modern', 'legacy'] as const) {
  test(`browser, ${era} era - the bundled client lists the tools and shows count's progress live, before its result`, { timeout: 60_000 }, async () => {
    const page = await openPage(era);
    try {
      const tools = await page.$$eval('#tools li', (items) => items.map((item) => item.textContent));
      assert.ok(tools.includes('count') && tools.includes('greet') && tools.includes('stats'), `the demo tools are listed: ${tools.join(', ')}`);

      // Snapshots of the DOM as it changes: progress must be on screen while there is no result yet.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { seen: string[] }).seen = seen;
        new MutationObserver(() => seen.push(`${document.querySelectorAll('#progress li').length}|${document.getElementById('result')?.textContent ?? ''}`)).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
        });
      });
      await page.click('#count');
      await page.waitForFunction(() => (document.getElementById('result')?.textContent ?? '') !== '', undefined, { timeout: 15_000 });
      assert.equal(await page.textContent('#result'), 'Counted to 4.');
      assert.deepEqual(await page.$$eval('#progress li', (items) => items.map((item) => item.textContent)), ['1/4', '2/4', '3/4', '4/4']);
      const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
      assert.ok(seen.includes('1|') && seen.includes('4|'), `progress was displayed before the result arrived: ${seen.join(' ')}`);
    } finally {
      await page.close();
    }
  });

  test(`browser, ${era} era - a call the page cancels is cancelled on the server and shown cancelled`, { timeout: 60_000 }, async () => {
    const page = await openPage(era);
    try {
      await page.click('#count-cancel');
      await page.waitForFunction(() => (document.getElementById('cancel-status')?.textContent ?? '') !== '', undefined, { timeout: 15_000 });
      assert.equal(await page.textContent('#cancel-status'), 'cancelled (RequestAborted)');
      const call = received.findLast((message) => message.method === 'tools/call' && JSON.stringify(message.params).includes('"n":20'));
      assert.ok(call !== undefined, 'the server received the call to cancel');
      // A legacy session sends notifications/cancelled; in 2026-07-28 a request is cancelled by closing its POST,
      // so the server sees its answer's connection go before the answer is done.
      const cancelledOnServer = (): boolean =>
        era === 'legacy'
          ? received.some((message) => message.method === 'notifications/cancelled' && message.params?.requestId === call.id)
          : abandoned.includes(call);
      const deadline = Date.now() + 5000;
      while (!cancelledOnServer() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(cancelledOnServer(), `the server saw request ${JSON.stringify(call.id)} cancelled`);
      // The count of 20 would take 4 s; the cancelled one reported at most its first steps.
      const progress = await page.$$eval('#cancel-progress li', (items) => items.length);
      assert.ok(progress >= 1 && progress < 20, `the cancelled count stopped early (${progress} progress reports)`);
    } finally {
      await page.close();
    }
  });
}
