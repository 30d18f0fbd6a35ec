/**
 * One login per command, whatever the era probing does, run as users run the commands (real processes) against
 * our resource server trusting a real oidc-provider. The browser is a program of the spec's (`$BROWSER`) that
 * writes down every URL it is asked to open: each line is one authorization request, each with the loopback
 * redirect of one callback listener. The spec plays the user on those URLs (oidc-provider's headless login) or
 * leaves them alone.
 *
 * - A login not completed asks once (the modern probe and the legacy fallback both meet the 401), whether the
 *   login gives up before the probe's 5 s window or after it (when `initialize` goes out beside the probe), and
 *   says "login not completed", never "cannot reach" a server that answered.
 * - A login completed asks once too, on a dual-era server and on a legacy-only one (the probe refused after the
 *   login, then `initialize` with the same tokens), and when the user takes longer than the probe's window.
 * - An Authorization header of the user's own that the server refuses reads "refused", not "cannot reach".
 * - `rxmcp login <url>` logs in ahead of a script: the next `rxmcp call` needs no login; a second `rxmcp login`
 *   finds the login kept; after `rxmcp logout` a login not completed exits 1; a server that asks for nothing is
 *   said so.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createServer } from '../../../server/create-server.ts';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { freePort } from '../../support/nats-server.ts';
import { type OidcProviderHandle, authorize, startOidcProvider } from '../../support/oidc-provider.ts';
import { type ProtectedRxmcpServer, startProtectedRxmcpServer } from '../../support/protected-rxmcp-server.ts';
import { type CliRun, runCli, startCli } from '../commands/cli-process.ts';

describe('one login per command', () => {
  let op: OidcProviderHandle;
  let dual: ProtectedRxmcpServer;
  let legacyOnly: ProtectedRxmcpServer;
  let open: { url: string; http: StreamableHttpServer; close(): Promise<void> };
  let dir: string;
  let browserLog: string;
  let configs = 0;

  before(async () => {
    op = await startOidcProvider();
    op.approval = { accountId: 'hopper' };
    dual = await startProtectedRxmcpServer(op);
    legacyOnly = await startProtectedRxmcpServer(op, { eras: 'legacy' });
    const server = createServer({ name: 'open', version: '1.0.0', eras: 'both' });
    server.tool({ name: 'hello' }, () => 'hello');
    const http = createStreamableHttpServer({ server });
    const port = await freePort();
    await http.listen(port);
    open = { url: `http://127.0.0.1:${port}/mcp`, http, close: async () => (await http.close(), await server.close()) };
    dir = await mkdtemp(join(tmpdir(), 'rxmcp-one-login-'));
    browserLog = join(dir, 'browser.log');
    // The browser: writes down each URL it is asked to open (one argument, as the command passes it).
    await writeFile(join(dir, 'browser'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${browserLog}'\n`);
    await chmod(join(dir, 'browser'), 0o755);
  });
  after(async () => {
    await killChildren();
    await Promise.all([dual.close(), legacyOnly.close(), open.close()]);
    await op.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A fresh user (no credentials yet) whose browser is the recorder. */
  const freshUser = async (): Promise<NodeJS.ProcessEnv> => {
    const config = join(dir, `config-${++configs}`);
    await rm(browserLog, { force: true });
    return { ...process.env, XDG_CONFIG_HOME: config, BROWSER: join(dir, 'browser') };
  };
  const opened = async (): Promise<URL[]> =>
    (await readFile(browserLog, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => new URL(line));
  /** The first URL the browser was asked to open. */
  const firstOpened = async (): Promise<URL> => {
    for (let waited = 0; waited < 60_000; waited += 50) {
      const [url] = await opened();
      if (url !== undefined) return url;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the browser was never opened');
  };
  const assertOnePrompt = async (run: CliRun): Promise<void> => {
    const urls = await opened();
    assert.equal(urls.length, 1, `one authorization request: ${urls.map((url) => url.href).join('\n')}\n${run.stderr}`);
    assert.equal(run.stderr.match(/open this URL in a browser/g)?.length, 1, run.stderr);
    const listeners = new Set(urls.map((url) => new URL(url.searchParams.get('redirect_uri') ?? '').port));
    assert.equal(listeners.size, 1, 'one callback listener');
  };

  for (const loginTimeoutMs of [2000, 6500]) {
    const order = loginTimeoutMs < 5000 ? 'the probe fails first, then the legacy fallback' : 'initialize goes out beside the waiting probe';
    test(`a login not completed (--login-timeout ${loginTimeoutMs}: ${order}) is asked once and said so`, async () => {
      const env = await freshUser();
      const run = await runCli(['call', dual.url, 'whoami', '--login-timeout', String(loginTimeoutMs)], { env });
      assert.equal(run.code, 1, run.stderr);
      await assertOnePrompt(run);
      assert.match(run.stderr, new RegExp(`rxmcp call: login not completed: the browser did not come back within ${Math.round(loginTimeoutMs / 1000)} s \\(--login-timeout\\); open the printed URL`));
      assert.doesNotMatch(run.stderr, /cannot reach/);
    });
  }

  for (const [name, server] of [['dual-era', () => dual], ['legacy-only', () => legacyOnly]] as const) {
    test(`a login completed on a ${name} server is asked once`, async () => {
      const env = await freshUser();
      const running = startCli(['call', server().url, 'whoami', '--json'], { env });
      await authorize(await firstOpened(), { deliver: true });
      const run = await running.done;
      assert.equal(run.code, 0, run.stderr);
      assert.equal((JSON.parse(JSON.parse(run.stdout).content[0].text) as { subject?: string }).subject, 'hopper');
      await assertOnePrompt(run);
    });
  }

  test('a login the user completes after the probe\'s 5 s window is asked once', async () => {
    const env = await freshUser();
    const running = startCli(['inspect', dual.url, '--json'], { env });
    const url = await firstOpened();
    await new Promise((resolve) => setTimeout(resolve, 5500));
    await authorize(url, { deliver: true });
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /whoami/);
    await assertOnePrompt(run);
  });

  test('rxmcp login ahead of a script: the next call needs none; a second login finds it kept; after logout, one not completed exits 1', async () => {
    const env = await freshUser();
    const loggingIn = startCli(['login', dual.url], { env });
    await authorize(await firstOpened(), { deliver: true });
    const login = await loggingIn.done;
    assert.equal(login.code, 0, login.stderr);
    assert.equal(login.stdout, `logged in to ${dual.url}; rxmcp logout ${dual.url} forgets it\n`);
    await assertOnePrompt(login);
    assert.equal((await readdir(join(env['XDG_CONFIG_HOME'] as string, 'rxmcp', 'credentials'))).length, 1);

    const call = await runCli(['call', dual.url, 'whoami', '--json'], { env });
    assert.equal(call.code, 0, call.stderr);
    assert.doesNotMatch(call.stderr, /open this URL/);
    assert.equal((await opened()).length, 1, 'the browser was not opened again');

    const again = await runCli(['login', dual.url], { env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^already logged in to .*: the kept login was accepted/);
    assert.equal((await opened()).length, 1);

    assert.equal((await runCli(['logout', dual.url], { env })).code, 0);
    const unfinished = await runCli(['login', dual.url, '--login-timeout', '1000'], { env });
    assert.equal(unfinished.code, 1, unfinished.stderr);
    assert.match(unfinished.stderr, /^rxmcp login: .*needs a login[\s\S]*rxmcp login: login not completed: the browser did not come back within 1 s/m);
    assert.equal((await opened()).length, 2, 'one more authorization request, for the one login');
  });

  test('an Authorization header of your own that the server refuses is said so: no login, not "cannot reach"', async () => {
    const env = await freshUser();
    const run = await runCli(['call', dual.url, 'whoami', '-H', 'Authorization: Bearer not-a-token'], { env });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`^rxmcp call: ${dual.url.replace(/[.]/g, '\\.')} refused the request: .*HTTP 401`));
    assert.deepEqual(await opened(), []);
  });

  test('rxmcp login to a server that asks for no login says so', async () => {
    const env = await freshUser();
    const run = await runCli(['login', open.url], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${open.url} asked for no login: there is nothing to keep\n`);
    assert.deepEqual(await opened(), []);
  });
});
