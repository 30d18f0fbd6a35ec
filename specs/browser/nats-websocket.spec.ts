/**
 * The NATS client transport in a real browser: rxmcp's client on rxmcp/nats/client, over the nats.js v3 WebSocket
 * transport (`wsconnect`), bundled by esbuild for the browser platform (which refuses any Node builtin in the
 * graph), runs in headless Chromium against a real nats-server with websocket enabled. This process serves the
 * demo server on that nats-server (`serveNats`, over the TCP transport of @nats-io/transport-node); the page
 * lists its tools, calls `greet` and `count` (with progress), and reports what it got, in both eras.
 *
 * Chromium is the Debian package (`apt-get install -y chromium`), nats-server too; without either this spec fails,
 * it does not skip.
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
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { build } from 'esbuild';
import { type BrowserContext, chromium } from 'playwright-core';
import { createDemoServer, type DemoServer } from '../../cli/demo-server.ts';
import { type NatsServing, serveNats } from '../../transports/nats/index.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../support/nats-server.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGE_ENTRY = fileURLToPath(new URL('./page/nats-client.ts', import.meta.url));
const HTML = `<!doctype html>
<meta charset="utf-8"><title>rxmcp over NATS in a browser</title>
<pre id="report"></pre>
<script type="module" src="/app.js"></script>`;
const NAME = 'browser-demo';

let nats: NatsServerProcess;
let wsPort: number;
let connection: NatsConnection;
let demo: DemoServer;
let serving: NatsServing;
let web: ReturnType<typeof createNodeServer>;
let origin: string;
let profile: string;
let context: BrowserContext | undefined;
let script: string;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); this spec must not be skipped`);
  const bundle = await build({ entryPoints: [PAGE_ENTRY], bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent', metafile: true });
  script = bundle.outputFiles[0]?.text ?? '';
  assert.ok(script.length > 0, 'esbuild produced the page script');
  // The browser graph holds no Node transport of nats.js, and no JetStream (rxmcp/nats/client needs neither).
  const inputs = Object.keys(bundle.metafile.inputs);
  assert.ok(inputs.some((input) => input.includes('@nats-io/nats-core/')), 'the page is built on @nats-io/nats-core');
  assert.deepEqual(inputs.filter((input) => /@nats-io\/(transport-node|jetstream|kv|obj)\//.test(input)), []);

  wsPort = await freePort();
  // The websocket listener beside the usual client port, in the config file nats-server is started with.
  nats = await startNatsServer({ config: () => `websocket {\n  listen: "127.0.0.1:${wsPort}"\n  no_tls: true\n}` });
  connection = await connect({ servers: nats.url });
  demo = createDemoServer();
  serving = await serveNats(demo.server, { connection, name: NAME });

  web = createNodeServer((req, res) => serve(req, res));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  profile = await mkdtemp(join(tmpdir(), 'rxmcp-chromium-nats-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await context?.close();
  await new Promise<void>((resolve) => (web === undefined ? resolve() : web.close(() => resolve())));
  await serving?.close();
  demo?.stop();
  await connection?.drain().catch(() => undefined);
  await nats?.dispose();
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
});

function serve(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', origin).pathname;
  const [type, content] = path === '/app.js' ? ['text/javascript', script] : path === '/' ? ['text/html', HTML] : ['text/plain', 'not found'];
  res.writeHead(content === 'not found' ? 404 : 200, { 'content-type': `${type}; charset=utf-8` });
  res.end(content);
}

for (const era of ['legacy', 'modern'] as const) {
  test(`browser over NATS WebSocket, ${era} era - the bundled client lists the tools and calls them through serveNats`, { timeout: 60_000 }, async () => {
    assert.ok(context !== undefined);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      const query = new URLSearchParams({ ws: `ws://127.0.0.1:${wsPort}`, name: NAME, era });
      await page.goto(`${origin}/?${query.toString()}`);
      await page.waitForFunction(() => (document.getElementById('report')?.textContent ?? '') !== '', undefined, { timeout: 30_000 });
      const report = JSON.parse((await page.textContent('#report')) ?? '{}') as { failed?: string; tools?: string[]; greeting?: string; progress?: string[]; counted?: string; era?: string };
      assert.equal(report.failed, undefined, `the page failed: ${report.failed ?? ''} (page errors: ${errors.join('; ')})`);
      assert.equal(report.era, era);
      assert.ok(report.tools?.includes('greet') && report.tools.includes('count') && report.tools.includes('stats'), `the demo tools are listed: ${String(report.tools)}`);
      assert.equal(report.greeting, 'Hello, Chromium!');
      assert.equal(report.counted, 'Counted to 3.');
      assert.deepEqual(report.progress, ['1/3', '2/3', '3/3']);
    } finally {
      await page.close();
    }
  });
}
