/**
 * `rxmcp dev auth-server` as a process: the development authorization server on 127.0.0.1 and its sign-in page,
 * driven over HTTP the way a browser submits it (cookies kept, the form posted). What an MCP client needs of it:
 * both metadata documents, open registration, PKCE required, a token for the resource asked for (its audience,
 * the signed-in name as subject, the granted scopes, signed with the published keys) and a refresh token; a refusal
 * and a bad name answered as such; another Host refused; the command's mistakes as usage errors; a graceful stop.
 * (docs/auth.md's walk-through, with rxmcp serve and rxmcp call in Chromium, runs in docs.pack-test.ts.)
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { killChildren } from '../../support/interop-processes.ts';
import { type RunningCli, runCli, startCli } from '../commands/cli-process.ts';

const RESOURCE = 'http://127.0.0.1:3999/mcp';
const REDIRECT = 'http://127.0.0.1:45678/callback';

/** A browser's part: same-origin redirects followed with the cookies kept; stops at a page or at another origin. */
class Browser {
  readonly #cookies = new Map<string, string>();

  async go(url: string | URL, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ page?: Response; left?: URL }> {
    let current = new URL(url);
    const origin = current.origin;
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form === undefined ? undefined : new URLSearchParams(init.form).toString();
    for (let hop = 0; hop < 10; hop += 1) {
      if (current.origin !== origin) return { left: current };
      const response = await fetch(current, {
        method,
        redirect: 'manual',
        headers: { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; '), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
        ...(body === undefined ? {} : { body }),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        if (eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return { page: response };
      await response.body?.cancel();
      current = new URL(location, current);
      method = 'GET';
      body = undefined;
    }
    throw new Error('too many redirects');
  }
}

async function printed(running: RunningCli, pattern: RegExp, ms = 30_000): Promise<RegExpExecArray> {
  const started = Date.now();
  for (;;) {
    const match = pattern.exec(running.stdout());
    if (match !== null) return match;
    if (Date.now() - started > ms || running.child.exitCode !== null) throw new Error(`never printed ${pattern}:\n${running.stdout()}\n${running.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('rxmcp dev auth-server', () => {
  let running: RunningCli;
  let issuer = '';
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  before(async () => {
    running = startCli(['dev', 'auth-server', '--port', '0', '--scope', 'notes:read', '--scope', 'notes:write']);
    issuer = (await printed(running, /a development authorization server at (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    await printed(running, /Ctrl-C stops/);
    as = await oauth.processDiscoveryResponse(new URL(issuer), await oauth.discoveryRequest(new URL(issuer), { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }));
    const registered = await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: 'spec client', redirect_uris: [REDIRECT], application_type: 'native', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
      { [oauth.allowInsecureRequests]: true },
    );
    client = await oauth.processDynamicClientRegistrationResponse(registered);
  });
  after(async () => {
    await killChildren();
  });

  /** An authorization request for RESOURCE with PKCE, and its verifier. */
  async function authorization(scope: string, options: { pkce?: boolean; resource?: string } = {}): Promise<{ url: URL; verifier: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope,
      state: 'spec-state',
      resource: options.resource ?? RESOURCE,
      ...(options.pkce === false ? {} : { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }),
    }).toString();
    return { url, verifier };
  }

  test('prints what it is and what to run next, with the issuer it listens as', () => {
    assert.match(running.stdout(), new RegExp(`npx rxmcp serve --auth-issuer ${issuer} --auth-allow-loopback-http --auth-scope notes:read`));
    assert.match(running.stdout(), /Scopes for MCP servers: notes:read, notes:write\./);
    assert.match(running.stdout(), /for this machine only/);
  });

  test('metadata at both locations, naming its own issuer; open registration and S256 advertised', async () => {
    const rfc8414 = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    assert.equal(rfc8414['issuer'], issuer);
    assert.equal(as.issuer, issuer);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.equal(typeof as.registration_endpoint, 'string');
    assert.ok(as.scopes_supported?.includes('notes:write'));
  });

  test('the sign-in page names the client, the resource and the scopes; Allow under a name gives a token for that resource', async () => {
    const browser = new Browser();
    const { url, verifier } = await authorization('notes:read');
    const { page } = await browser.go(url);
    assert.equal(page?.status, 200);
    assert.match(page?.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/);
    const html = (await page?.text()) ?? '';
    assert.match(html, /<strong>spec client<\/strong> asks for access to <code>http:\/\/127\.0\.0\.1:3999\/mcp<\/code> with the scopes <code>notes:read<\/code>/);
    const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1] ?? '';

    const refused = await browser.go(new URL(action, issuer), { method: 'POST', form: { name: 'not a name!', decision: 'allow' } });
    assert.equal(refused.page?.status, 400);
    assert.match((await refused.page?.text()) ?? '', /A name is letters, digits/);

    const { left } = await browser.go(new URL(action, issuer), { method: 'POST', form: { name: 'ada', decision: 'allow' } });
    assert.equal(left?.origin, new URL(REDIRECT).origin);
    const params = oauth.validateAuthResponse(as, client, left ?? new URL(REDIRECT), 'spec-state');
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, {
      additionalParameters: { resource: RESOURCE },
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(typeof tokens.refresh_token, 'string', 'a refresh token for a client allowed the grant');
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri ?? '')), { issuer, audience: RESOURCE });
    assert.equal(payload.sub, 'ada');
    assert.equal(payload['scope'], 'notes:read');
    assert.match(running.stdout(), /ada signed in and allowed spec client: notes:read for http:\/\/127\.0\.0\.1:3999\/mcp/);
  });

  test('Deny sends the client access_denied; no PKCE or a resource that is no URL are refused', async () => {
    const browser = new Browser();
    const { page } = await browser.go((await authorization('notes:write')).url);
    const action = /<form method="post" action="([^"]+)">/.exec((await page?.text()) ?? '')?.[1] ?? '';
    const { left } = await browser.go(new URL(action, issuer), { method: 'POST', form: { name: 'ada', decision: 'deny' } });
    assert.equal(left?.searchParams.get('error'), 'access_denied');

    const { left: noPkce } = await new Browser().go((await authorization('notes:read', { pkce: false })).url);
    assert.equal(noPkce?.searchParams.get('error'), 'invalid_request');
    assert.match(noPkce?.searchParams.get('error_description') ?? '', /requires PKCE/);
    const { left: notUrl } = await new Browser().go((await authorization('notes:read', { resource: 'urn:not-a-server' })).url);
    assert.equal(notUrl?.searchParams.get('error'), 'invalid_target');
  });

  test('a request naming another host is refused (no DNS rebinding)', async () => {
    const { port } = new URL(issuer);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const sent = request({ host: '127.0.0.1', port, path: '/.well-known/openid-configuration', headers: { host: `attacker.example:${port}` } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      sent.once('error', reject);
      sent.end();
    });
    assert.equal(status, 421);
  });

  test('mistakes on its command line are usage errors; SIGTERM stops it', async () => {
    const typo = await runCli(['dev', 'auth-servr']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown tool "auth-servr"; did you mean auth-server\?/);
    const spaced = await runCli(['dev', 'auth-server', '--scope', 'two words']);
    assert.equal(spaced.code, 2);
    assert.match(spaced.stderr, /--scope takes one scope/);
    const help = await runCli(['dev']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /auth-server \[--port N\] \[--scope S \.\.\.\]/);

    running.child.kill('SIGTERM');
    const done = await running.done;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /rxmcp dev auth-server: stopped/);
  });
});
