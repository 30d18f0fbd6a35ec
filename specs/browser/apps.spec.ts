/**
 * MCP Apps in a real browser: examples/apps.ts, run as written (`serve`: the weather server on Streamable HTTP and
 * the host's backend, both on 127.0.0.1), its host page opened in headless Chromium. The page (ext-apps'
 * `AppBridge`) loads the view the backend read with `rxmcp/apps/client` into a sandboxed iframe; the view
 * (ext-apps' `App`, bundled into the `ui://` resource) gets the tool input and result and draws them; its own tool
 * call (`switch_units`, visible to the app only) goes through the bridge and the backend; its `ui/message` lands
 * in the host's chat. The view's document runs under the resource's Content-Security-Policy, in an opaque origin.
 *
 * Chromium is the Debian package (`apt-get install -y chromium`); without it this spec fails, it does not skip.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type BrowserContext, type Frame, type Page, chromium } from 'playwright-core';
import { type ExampleProcess, startExample } from '../support/example-process.ts';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WAIT_MS = 20_000;

let example: ExampleProcess | undefined;
let hostUrl: string;
let profile: string | undefined;
let context: BrowserContext | undefined;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); this spec must not be skipped`);
  example = await startExample('apps', ['serve'], /^host page: (http:\/\/127\.0\.0\.1:\d+\/)$/);
  hostUrl = example.match[1]!;
  profile = await mkdtemp(join(tmpdir(), 'rxmcp-chromium-apps-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await context?.close();
  await example?.stop();
  if (profile !== undefined) await rm(profile, { recursive: true, force: true });
});

/** The host page with the view shown: the tool result drawn inside the iframe. */
async function openHost(): Promise<{ page: Page; view: Frame; errors: string[] }> {
  assert.ok(context !== undefined);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(hostUrl);
  const element = await page.waitForSelector('iframe#view', { timeout: WAIT_MS });
  const view = await element.contentFrame();
  assert.ok(view !== null, 'the iframe has a frame');
  await view.waitForFunction(() => document.getElementById('status')?.textContent === 'Forecast shown', undefined, { timeout: WAIT_MS }).catch(async (error: unknown) => {
    throw new Error(`the view did not show the forecast (host: ${await page.textContent('#status')}; view: ${await view.textContent('#status')}; page errors: ${errors.join('; ')}; example: ${example?.output.join(' | ')})`, { cause: error });
  });
  return { page, view, errors };
}

const hours = (view: Frame) => view.$$eval('#hours li', (items) => items.map((item) => item.textContent));

test('browser - the host page renders the tool\'s view with the tool input and result', { timeout: 60_000 }, async () => {
  const { page, view, errors } = await openHost();
  try {
    assert.equal(await page.textContent('#status'), 'tool result sent');
    assert.equal(await view.textContent('#city'), 'Lisbon');
    assert.equal(await view.textContent('#conditions'), 'sunny');
    assert.deepEqual(await hours(view), ['06:00 18 °C', '09:00 20 °C', '12:00 22 °C', '15:00 23 °C', '18:00 21 °C']);
    assert.equal(await page.getAttribute('iframe#view', 'sandbox'), 'allow-scripts');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('browser - the view calls its app-only tool through the host and sends a message to the host\'s chat', { timeout: 60_000 }, async () => {
  const { page, view, errors } = await openHost();
  try {
    await view.click('#units');
    await view.waitForFunction(() => document.querySelector('#hours li')?.textContent?.endsWith('°F') === true, undefined, { timeout: WAIT_MS });
    assert.deepEqual(await hours(view), ['06:00 64 °F', '09:00 68 °F', '12:00 72 °F', '15:00 73 °F', '18:00 70 °F']);
    await view.click('#ask');
    await page.waitForFunction(() => [...document.querySelectorAll('#chat li')].some((item) => item.textContent?.startsWith('view: ')), undefined, { timeout: WAIT_MS });
    const chat = await page.$$eval('#chat li', (items) => items.map((item) => item.textContent));
    assert.deepEqual(chat, ['(the model calls show_forecast with {"city":"Lisbon"})', 'view: What should I wear in Lisbon today?']);
    await view.waitForFunction(() => document.getElementById('status')?.textContent === 'Message sent to the chat', undefined, { timeout: WAIT_MS });
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('browser - the view runs in an opaque origin under the declared CSP: no host DOM, no undeclared connection', { timeout: 60_000 }, async () => {
  const { page, view } = await openHost();
  try {
    const origin = new URL(hostUrl).origin;
    const probe = await view.evaluate(async (hostOrigin) => {
      const outcome: { origin: string; parent: string; fetch: string; violations: string[] } = { origin: window.origin, parent: '', fetch: '', violations: [] };
      document.addEventListener('securitypolicyviolation', (event) => outcome.violations.push(event.violatedDirective));
      try {
        outcome.parent = String(window.parent.document.title);
      } catch (error) {
        outcome.parent = (error as Error).name;
      }
      try {
        const response = await fetch(`${hostOrigin}/host/app-call`, { method: 'POST', body: '{"name":"switch_units"}' });
        outcome.fetch = `answered ${response.status}`;
      } catch (error) {
        outcome.fetch = (error as Error).name;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      return outcome;
    }, origin);
    assert.equal(probe.origin, 'null', 'the sandbox gives the view an opaque origin');
    assert.equal(probe.parent, 'SecurityError', 'the view cannot reach the host page');
    assert.equal(probe.fetch, 'TypeError', 'the fetch to an undeclared origin is refused');
    assert.ok(probe.violations.includes('connect-src'), `the refusal is the CSP's connect-src: ${probe.violations.join(', ')}`);
  } finally {
    await page.close();
  }
});
