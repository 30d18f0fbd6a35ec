/**
 * The HTML report in a real browser: a run with a kill fault (so there are errors, a fault band, the server's
 * CPU and memory) is rendered by headless Chromium from a file with the network off, and each chart is checked to
 * hold a drawing: its SVG has series paths with points, and its screenshot has coloured pixels (the series'
 * colours; the grid, axes and text are grey) in numbers no empty chart has.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { chromium } from 'playwright-core';
import { runLoad } from '../../load/index.ts';
import { renderReport } from '../../load/report/html.ts';
import { killChildren, trackChild } from '../support/interop-processes.ts';
import { trickyChild } from './processes.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CHARTS = ['throughput', 'latency', 'distribution', 'errors', 'cpu', 'memory'] as const;

const dir = mkdtempSync(join(tmpdir(), 'rxmcp-load-report-'));

after(async () => {
  await killChildren();
  rmSync(dir, { recursive: true, force: true });
});

/** Counts a PNG's saturated pixels, in the page (the browser decodes it). */
const COUNT_COLOURED = `async (base64) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + base64;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(0, 0, image.width, image.height);
  let coloured = 0;
  for (let i = 0; i < data.length; i += 4) {
    const r = data[i], g = data[i + 1], b = data[i + 2];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
  }
  return coloured;
}`;

test('report - rendered by headless Chromium with no network: every chart drawn, the fault marked', async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); this spec must not be skipped`);
  const result = await runLoad({
    target: trickyChild('--sleep-ms', '30'),
    era: 'legacy',
    concurrency: 4,
    durationMs: 2500,
    intervalMs: 250,
    faults: [{ kind: 'kill', atMs: 900, restartAfterMs: 200 }],
    hangMs: 3000,
  });
  for (const pid of result.server?.pids ?? []) trackChild(pid, 'tricky server');
  assert.ok(result.errors > 0, 'the kill made errors to chart');
  const file = join(dir, 'report.html');
  const html = renderReport(result);
  writeFileSync(file, html);
  assert.doesNotMatch(html, /<script|\ssrc=|\shref=|@import|url\(/i, 'nothing to run, nothing to fetch');

  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ offline: true, viewport: { width: 960, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => void requests.push(request.url()));
    await page.goto(`file://${file}`);
    assert.deepEqual(requests.filter((address) => !address.startsWith('file:') && !address.startsWith('data:')), [], 'the report asks the network for nothing');
    assert.match(await page.title(), /^rxmcp load: /);
    await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
    for (const id of CHARTS) {
      const figure = page.locator(`figure.chart[data-chart="${id}"]`);
      assert.equal(await figure.count(), 1, `the ${id} chart is there`);
      const pathLengths = await figure.locator('path.series').evaluateAll((paths) => paths.map((path) => (path.getAttribute('d') ?? '').length));
      assert.ok(pathLengths.some((length) => length > 20), `the ${id} chart draws a series (${JSON.stringify(pathLengths)})`);
      const shot = await figure.locator('svg').screenshot();
      const coloured = (await page.evaluate(`(${COUNT_COLOURED})(${JSON.stringify(shot.toString('base64'))})`)) as number;
      assert.ok(coloured > 150, `the ${id} chart's picture holds its drawing: ${coloured} coloured pixels`);
    }
    const bands = await page.locator('figure.chart[data-chart="throughput"] rect.band title').allTextContents();
    assert.ok(bands.some((label) => /^kill at \d+\.\ds$/.test(label)), `the kill is marked on the time charts (${bands.join(', ')})`);
    const badges = await page.locator('.badge').allTextContents();
    assert.ok(badges.some((text) => /^lost \d+ of \d+ calls/.test(text)), `the losses are told (${badges.join(' | ')})`);
  } finally {
    await browser.close();
  }
});

test('report - a run with nothing measured says so instead of drawing empty axes', () => {
  const html = renderReport({
    ...emptyResult(),
  });
  assert.match(html, /Nothing to draw: no ms \(log\) was measured/);
});

function emptyResult(): Parameters<typeof renderReport>[0] {
  const none = { count: 0, minMs: undefined, meanMs: undefined, p50Ms: undefined, p90Ms: undefined, p99Ms: undefined, p999Ms: undefined, maxMs: undefined };
  const counts = { sent: 0, ok: 0, errors: 0, wrong: 0, hung: 0, errorsByCode: {}, wrongByReason: {} };
  return {
    format: 'rxmcp-load/1',
    target: 'http://127.0.0.1:9/mcp',
    startedAt: new Date(0).toISOString(),
    eras: ['legacy'],
    mode: 'open',
    plan: { warmupMs: 0, durationMs: 1000, rampMs: 0, steps: [{ level: 1, durationMs: 1000 }], sessions: 1, hangMs: 1000, operations: [] },
    ...counts,
    lost: 0,
    unsent: undefined,
    answers: { duplicate: 0, unknownId: 0, late: 0 },
    latency: none,
    serviceTime: none,
    histogram: '',
    distribution: [],
    rates: { planned: 1, sent: 0, ok: 0 },
    warmup: counts,
    windows: [],
    faults: [],
    series: { intervalMs: 1000, points: [] },
    server: undefined,
    tester: { cpu: 0, loopDelayP99Ms: 0, slipP99Ms: undefined, intervals: 0, boundIntervals: 0, bottleneck: false, verdict: 'not the bottleneck' },
    byEra: [],
    interrupted: false,
  };
}
