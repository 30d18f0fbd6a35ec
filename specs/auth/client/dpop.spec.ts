/**
 * DPoP on MCP requests (auth/client/dpop): a DPoP-bound token from oidc-provider presented to a resource server
 * that checks every request with oauth4webapi's `validateJwtAccessToken` (requireDPoP: the proof's signature,
 * `htm`, `htu`, `ath`, and the key against the token's `cnf.jkt`). The server may demand its own nonce
 * (`use_dpop_nonce`, RFC 9449 §9) and rotate it on successes; the binding answers the challenge once and keeps
 * nonces it observes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import * as oauth from 'oauth4webapi';
import { clientCredentials, dpop, type DPoPBinding, tokenHeaders } from '../../../auth/client/index.ts';
import type { AuthResponse } from '../../../auth/client/index.ts';
import { type RunningProvider, SCOPE, SECRET, startProvider } from '../../support/oidc-grants-provider.ts';

const loopback = { [oauth.allowInsecureRequests]: true } as const;

interface ResourceServer {
  readonly url: URL;
  /** Demand this nonce in proofs (undefined: none); rotated to `next` after each success when set. */
  nonce: string | undefined;
  next: string | undefined;
  readonly jtis: string[];
  readonly statuses: number[];
  close(): Promise<void>;
}

async function startResourceServer(as: () => oauth.AuthorizationServer): Promise<ResourceServer> {
  let url = new URL('http://127.0.0.1/');
  const state: Omit<ResourceServer, 'close' | 'url'> = { nonce: undefined, next: undefined, jtis: [], statuses: [] };
  const server: Server = createServer((req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(new URL(req.url ?? '/', url), { method: req.method ?? 'GET', headers });
    const answer = (status: number, extra: Record<string, string> = {}): void => {
      state.statuses.push(status);
      res.writeHead(status, extra).end();
    };
    oauth
      .validateJwtAccessToken(as(), request, url.href, { ...loopback, requireDPoP: true })
      .then(() => {
        const proof = jose.decodeJwt(headers.get('dpop') ?? '');
        state.jtis.push(String(proof.jti));
        if (state.nonce !== undefined && proof['nonce'] !== state.nonce) {
          answer(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce", error_description="a nonce is required"', 'dpop-nonce': state.nonce });
          return;
        }
        if (state.next !== undefined) {
          state.nonce = state.next;
          answer(200, { 'dpop-nonce': state.next });
          return;
        }
        answer(200);
      })
      .catch(() => answer(401, { 'www-authenticate': 'DPoP error="invalid_token"' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  return Object.assign(state, {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

function view(response: Response, url: URL): AuthResponse {
  return { status: response.status, url, method: 'POST', header: (name) => response.headers.get(name) ?? undefined };
}

/** What the provider does with the binding per request: headers, send, observe, and one more send when challenged. */
async function send(binding: DPoPBinding, accessToken: string, url: URL, limit = 3): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < limit; attempt += 1) {
    const response = await fetch(url, { method: 'POST', headers: await binding.headersFor(accessToken, { method: 'POST', url }) });
    status = response.status;
    binding.observe(view(response, url));
    if (status !== 401 || !(await binding.challenged(view(response, url)))) return status;
  }
  return status;
}

describe('DPoP on resource requests', () => {
  let provider: RunningProvider;
  let as: oauth.AuthorizationServer;
  let rs: ResourceServer;

  before(async () => {
    provider = await startProvider();
    const issuer = new URL(provider.issuer);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...loopback, algorithm: 'oidc' }));
    rs = await startResourceServer(() => as);
  });
  after(async () => {
    await rs.close();
    await provider.close();
  });

  const boundToken = async (binding: DPoPBinding): Promise<oauth.TokenEndpointResponse> =>
    clientCredentials({ clientId: 'cc-basic', clientSecret: SECRET })({
      as,
      client: { client_id: 'unused' },
      clientAuth: oauth.None(),
      resource: rs.url.href,
      scope: SCOPE,
      dpop: await binding.handle(as),
      http: loopback,
    });

  test('every request carries Authorization: DPoP and a fresh proof that the server accepts', async () => {
    const binding = dpop();
    const tokens = await boundToken(binding);
    const headers = await tokenHeaders(tokens, { method: 'POST', url: rs.url }, binding);
    assert.match(headers['authorization'] ?? '', /^DPoP /);
    const proof = jose.decodeJwt(headers['dpop'] ?? '');
    assert.equal(proof['htm'], 'POST');
    assert.equal(proof['htu'], rs.url.href);
    assert.equal(typeof proof['ath'], 'string');
    const jtis = rs.jtis.length;
    for (let i = 0; i < 3; i += 1) assert.equal(await send(binding, tokens.access_token, rs.url), 200);
    assert.equal(new Set(rs.jtis.slice(jtis)).size, 3, 'a new jti per request');
  });

  test('a proof from another key is refused', async () => {
    const tokens = await boundToken(dpop());
    assert.equal(await send(dpop(), tokens.access_token, rs.url), 401);
  });

  test('use_dpop_nonce from the resource server: one retry with the nonce, then nonces rotated on successes are used', async () => {
    const binding = dpop();
    const tokens = await boundToken(binding);
    rs.nonce = 'rs-nonce-1';
    rs.next = 'rs-nonce-2';
    const from = rs.statuses.length;
    assert.equal(await send(binding, tokens.access_token, rs.url), 200);
    assert.deepEqual(rs.statuses.slice(from), [401, 200]);
    // The success rotated the nonce; the binding saw it through observe, so no challenge this time.
    rs.next = undefined;
    assert.equal(await send(binding, tokens.access_token, rs.url), 200);
    assert.deepEqual(rs.statuses.slice(from), [401, 200, 200]);
    rs.nonce = undefined;
  });

  test('a server repeating the nonce already sent is not retried again', async () => {
    const binding = dpop();
    const tokens = await boundToken(binding);
    rs.nonce = 'stuck';
    const from = rs.statuses.length;
    const response = await fetch(rs.url, { method: 'POST', headers: await binding.headersFor(tokens.access_token, { method: 'POST', url: rs.url }) });
    assert.equal(await binding.challenged(view(response, rs.url)), true);
    const again = await fetch(rs.url, { method: 'POST', headers: await binding.headersFor(tokens.access_token, { method: 'POST', url: rs.url }) });
    assert.equal(again.status, 200);
    // Now a refusal carrying the same nonce (the server wants something else): no retry.
    const refusal: AuthResponse = { status: 401, url: rs.url, method: 'POST', header: (name) => ({ 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'stuck' })[name.toLowerCase()] };
    assert.equal(await binding.challenged(refusal), false);
    assert.deepEqual(rs.statuses.slice(from), [401, 200]);
    rs.nonce = undefined;
  });

  test('a Bearer challenge or an invalid_token refusal is not a nonce challenge', async () => {
    const binding = dpop();
    const header = (values: Record<string, string>) => (name: string) => values[name.toLowerCase()];
    assert.equal(await binding.challenged({ status: 401, url: rs.url, method: 'POST', header: header({ 'www-authenticate': 'Bearer error="invalid_token"', 'dpop-nonce': 'n' }) }), false);
    assert.equal(await binding.challenged({ status: 401, url: rs.url, method: 'POST', header: header({ 'www-authenticate': 'DPoP error="invalid_token"', 'dpop-nonce': 'n' }) }), false);
    assert.equal(await binding.challenged({ status: 401, url: rs.url, method: 'POST', header: header({ 'www-authenticate': 'DPoP error="use_dpop_nonce"' }) }), false);
  });

  test('a bearer token is presented as Bearer; a DPoP token without its key is refused locally', async () => {
    const request = { method: 'POST', url: rs.url };
    assert.deepEqual(await tokenHeaders({ access_token: 't', token_type: 'bearer' }, request, dpop()), { authorization: 'Bearer t' });
    await assert.rejects(tokenHeaders({ access_token: 't', token_type: 'dpop' }, request, undefined), /DPoP key/);
  });

  test('the key follows the server: ES256 by default, the first algorithm it lists otherwise', async () => {
    const ed = await dpop().handle({ issuer: 'https://as.test', dpop_signing_alg_values_supported: ['PS256', 'Ed25519'] });
    const binding = dpop();
    const handle = await binding.handle({ issuer: 'https://as.test', dpop_signing_alg_values_supported: ['PS256', 'Ed25519'] });
    assert.equal(handle, await binding.handle(), 'one handle per binding');
    assert.notEqual(ed, handle);
    const headers = await binding.headersFor('t', { method: 'GET', url: rs.url });
    assert.equal(jose.decodeProtectedHeader(headers['dpop'] ?? '').alg, 'Ed25519');
    await assert.rejects(dpop().handle({ issuer: 'https://as.test', dpop_signing_alg_values_supported: ['HS256'] }), /no DPoP algorithm/);
  });
});
