/**
 * `rxmcp call|inspect` logging in to a protected server, run as users run them (real processes), against our
 * resource server trusting a real oidc-provider. The browser is played by the spec: with `--no-browser` the
 * command prints the authorization URL; the spec follows it through oidc-provider's headless login and delivers
 * the redirect to the command's loopback listener. Then: tokens kept in a 0600 file under XDG_CONFIG_HOME, a
 * second command needing no login, a step-up login for a tool needing more scope, `rxmcp logout <url>` revoking (RFC 7009) and forgetting them, and a login that never comes back
 * ending the command within its --login-timeout.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { killChildren } from '../../support/interop-processes.ts';
import { type OidcProviderHandle, authorize, startOidcProvider } from '../../support/oidc-provider.ts';
import { type ProtectedRxmcpServer, startProtectedRxmcpServer } from '../../support/protected-rxmcp-server.ts';
import { runCli, startCli } from '../commands/cli-process.ts';

const LOGIN_URL = /open this URL in a browser:\n\s+(\S+)/;

describe('rxmcp CLI OAuth login', () => {
  let op: OidcProviderHandle;
  let server: ProtectedRxmcpServer;
  let config: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    op = await startOidcProvider();
    server = await startProtectedRxmcpServer(op);
    config = await mkdtemp(join(tmpdir(), 'rxmcp-cli-login-'));
    env = { ...process.env, XDG_CONFIG_HOME: config, BROWSER: '' };
  });
  after(async () => {
    await killChildren();
    await server.close();
    await op.close();
    await rm(config, { recursive: true, force: true });
  });

  const credentialFiles = async (): Promise<string[]> => readdir(join(config, 'rxmcp', 'credentials')).catch(() => []);

  test('call: the printed login URL, completed in "the browser", reaches the loopback listener; the call runs', async () => {
    op.approval = { accountId: 'turing' };
    const running = startCli(['call', server.url, 'whoami', '--no-browser', '--json'], { env });
    await running.waitForStderr(LOGIN_URL);
    const url = new URL(LOGIN_URL.exec(running.stderr())?.[1] ?? '');
    assert.equal(url.origin, op.issuer);
    assert.equal(url.searchParams.get('resource'), server.url);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
    assert.equal(redirect.hostname, '127.0.0.1');
    assert.notEqual(redirect.port, '');

    const { delivered } = await authorize(url, { deliver: true });
    assert.equal(delivered?.status, 200, 'the listener took the redirect');
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { content: Array<{ text: string }> };
    const me = JSON.parse(result.content[0]?.text ?? '{}') as Record<string, unknown>;
    assert.equal(me['subject'], 'turing');
    assert.deepEqual(me['scopes'], ['mcp:read']);
    assert.doesNotMatch(run.stderr, /eyJ/, 'no token on stderr');

    // The listener is gone once used.
    await assert.rejects(fetch(redirect));
    const files = await credentialFiles();
    assert.equal(files.length, 1);
    assert.equal((await stat(join(config, 'rxmcp', 'credentials', files[0] ?? ''))).mode & 0o777, 0o600);
    assert.equal((await stat(join(config, 'rxmcp', 'credentials'))).mode & 0o777, 0o700);
  });

  test('inspect: the kept tokens are used, no login asked', async () => {
    const run = await runCli(['inspect', server.url, '--no-browser', '--json'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /open this URL/);
    assert.match(run.stdout, /whoami/);
  });

  test('call of a tool hidden until a wider login: 403 insufficient_scope, a step-up login, then the call', async () => {
    const running = startCli(['call', server.url, 'write-note', 'text=from the terminal', '--no-browser'], { env });
    await running.waitForStderr(LOGIN_URL);
    const url = new URL(LOGIN_URL.exec(running.stderr())?.[1] ?? '');
    const scopes = (url.searchParams.get('scope') ?? '').split(' ');
    assert.ok(scopes.includes('mcp:read') && scopes.includes('mcp:write'), `the step-up asks for both: ${scopes.join(' ')}`);
    await authorize(url, { deliver: true });
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /noted/);
    assert.deepEqual(server.notes.at(-1), { text: 'from the terminal', principal: 'turing' });

    const typo = await runCli(['call', server.url, 'write-nope', '--no-browser'], { env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /the server has no tool "write-nope"; did you mean write-note\?/);
  });

  test('logout forgets the server; the next command asks for a login again, and gives up after --login-timeout', async () => {
    // What the file holds before: the refresh token and the client it was issued to.
    const [file] = await credentialFiles();
    const held = JSON.parse(await readFile(join(config, 'rxmcp', 'credentials', file ?? ''), 'utf8')) as { entries: Record<string, Record<string, unknown>> };
    const refreshToken = Object.entries(held.entries).find(([name]) => name.startsWith('tokens '))?.[1]['refreshToken'];
    const clientId = Object.entries(held.entries).find(([name]) => name.startsWith('client '))?.[1]['clientId'];
    assert.ok(typeof refreshToken === 'string' && typeof clientId === 'string');

    const logout = await runCli(['logout', server.url], { env });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, new RegExp(`revoked the tokens issued by ${op.issuer}`));
    assert.match(logout.stdout, /logged out of/);
    const refresh = await fetch(op.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
    });
    assert.equal(refresh.status, 400);
    assert.equal(((await refresh.json()) as { error?: string }).error, 'invalid_grant', 'the refresh token was revoked');
    assert.deepEqual(await credentialFiles(), []);
    const again = await runCli(['logout', server.url], { env });
    assert.match(again.stdout, /no login kept/);

    const running = startCli(['call', server.url, 'whoami', '--no-browser', '--login-timeout', '1500'], { env });
    await running.waitForStderr(LOGIN_URL);
    const run = await running.done;
    assert.equal(run.code, 1);
    assert.match(run.stderr, /rxmcp call: login not completed: the browser did not come back within 2 s/);
    assert.doesNotMatch(run.stderr, /cannot reach/);
  });
});
