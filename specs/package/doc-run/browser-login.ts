/**
 * The reader at the browser, for pages whose commands log in: the authorization URL a command printed is opened in
 * headless Chromium (the Debian package, as the browser specs use it), the sign-in page's Allow is pressed as the
 * page tells the reader to, and the browser follows the redirects to the command's loopback listener. A missing
 * Chromium fails the page; it is never skipped.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LOGIN_MS = 30_000;

/** An OAuth authorization request (RFC 6749 section 4.1.1) in a command's output. */
export const AUTHORIZATION_URL = /https?:\/\/\S+[?&]response_type=code\S*/;

export class ReaderBrowser {
  #browser: Browser | undefined;

  /** Signs in at `url` and resolves once the browser reached a page of another origin (the client's redirect). */
  async signIn(url: string): Promise<void> {
    if (this.#browser === undefined) {
      if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install the Debian package (apt-get install -y chromium); a page that logs in is not skipped`);
      this.#browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    }
    // A context per login: no cookie of an earlier sign-in, as for a reader who signs in once.
    const context = await this.#browser.newContext();
    try {
      const page = await context.newPage();
      const issuer = new URL(url).origin;
      await page.goto(url, { timeout: LOGIN_MS });
      await Promise.all([
        page.waitForURL((current) => current.origin !== issuer, { timeout: LOGIN_MS }),
        page.getByRole('button', { name: 'Allow' }).click({ timeout: LOGIN_MS }),
      ]);
    } finally {
      await context.close();
    }
  }

  async close(): Promise<void> {
    await this.#browser?.close();
    this.#browser = undefined;
  }
}
