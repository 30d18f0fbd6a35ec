/**
 * Grants and DPoP through the whole client: `createClient` over the Streamable HTTP transport, `createOAuthClient` as
 * its `auth`, a real oidc-provider as the authorization server (demanding DPoP nonces), and a protected MCP server:
 * the mock MCP server behind a gate that serves the protected-resource metadata and checks every request with
 * oauth4webapi's `validateJwtAccessToken` (requireDPoP) and its own `DPoP-Nonce`. The session connects, lists
 * and calls with DPoP-bound client-credentials tokens; a refused workload assertion fails the connection after one
 * token request, with no other grant tried.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import * as oauth from 'oauth4webapi';
import { clientCredentials, dpop, jwtBearer, createOAuthClient } from '../../../auth/client/index.ts';
import { createClient } from '../../../client/create-client.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/client/index.ts';
import { closeAllMockServers, type MockServer, startMockServer } from '../../support/http-mock-server.ts';
import { JWT_BEARER, type RunningProvider, SECRET, startProvider, workloadAssertion } from '../../support/oidc-grants-provider.ts';

const loopback = { [oauth.allowInsecureRequests]: true } as const;
const RS_NONCE = 'gate-nonce';

interface Gate {
  readonly url: string;
  /** Authorization scheme, DPoP jti and status of every MCP request that reached the gate. */
  readonly seen: { scheme: string | undefined; jti: string | undefined; nonce: unknown; status: number }[];
  close(): Promise<void>;
}

/** The protected MCP server: PRM, then DPoP-checked requests forwarded to the mock. */
async function startGate(provider: RunningProvider, upstream: MockServer): Promise<Gate> {
  const issuer = new URL(provider.issuer);
  let as: Promise<oauth.AuthorizationServer> | undefined;
  const seen: Gate['seen'] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      if (req.method === 'GET' && path === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [provider.issuer], dpop_bound_access_tokens_required: true }));
        return;
      }
      if (req.method === 'GET' && path.startsWith('/.well-known/')) return void res.writeHead(404).end();
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const authorization = headers.get('authorization');
      const proof = headers.get('dpop');
      const claims = proof === null ? {} : jose.decodeJwt(proof);
      const record = { scheme: authorization?.split(' ')[0], jti: typeof claims.jti === 'string' ? claims.jti : undefined, nonce: claims['nonce'], status: 0 };
      seen.push(record);
      const refuse = (extra: Record<string, string>): void => {
        record.status = 401;
        res.writeHead(401, { ...extra, 'content-type': 'application/json' }).end('{}');
      };
      const challenge = `DPoP resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
      if (authorization === null) return refuse({ 'www-authenticate': challenge });
      as ??= oauth.discoveryRequest(issuer, { ...loopback, algorithm: 'oidc' }).then((response) => oauth.processDiscoveryResponse(issuer, response));
      const request = new Request(new URL(path, base), { method: req.method ?? 'POST', headers });
      const valid = await oauth.validateJwtAccessToken(await as, request, `${base}/mcp`, { ...loopback, requireDPoP: true }).then(
        () => true,
        () => false,
      );
      if (!valid) return refuse({ 'www-authenticate': `${challenge}, error="invalid_token"` });
      if (claims['nonce'] !== RS_NONCE) return refuse({ 'www-authenticate': `DPoP error="use_dpop_nonce"`, 'dpop-nonce': RS_NONCE });
      const forwarded = new Headers();
      for (const name of ['content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id']) {
        const value = headers.get(name);
        if (value !== null) forwarded.set(name, value);
      }
      const answer = await fetch(upstream.url, { method: req.method ?? 'POST', headers: forwarded, ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }) });
      record.status = answer.status;
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body === null) res.end();
      else Readable.fromWeb(answer.body as NodeReadableStream).pipe(res);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('grants and DPoP end to end (oidc-provider, Streamable HTTP)', () => {
  let provider: RunningProvider;
  let upstream: MockServer;
  let gate: Gate;

  before(async () => {
    provider = await startProvider({ requireDPoPNonce: true });
    upstream = await startMockServer({ sessions: false, notificationBody: false, tools: { echo: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }) } });
    gate = await startGate(provider, upstream);
  });
  after(async () => {
    await gate.close();
    await provider.close();
    await closeAllMockServers();
  });

  test('client credentials with DPoP: nonces from both servers, a fresh proof on every request', async () => {
    const auth = createOAuthClient({ grant: clientCredentials({ clientId: 'cc-basic', clientSecret: SECRET }), dpop: dpop() });
    const session = await createClient({ era: 'legacy', name: 'grants-e2e', version: '1.0.0' }).connect(createStreamableHttpClientTransport(gate.url, { auth }));
    try {
      assert.deepEqual((await session.listTools()).map((tool) => tool.name), ['echo']);
      const result = await session.callTool('echo', { said: 'hello' });
      assert.deepEqual(result.content, [{ type: 'text', text: '{"said":"hello"}' }]);
    } finally {
      await session.close();
    }
    // The authorization server: a proof refused for want of a nonce, then the same request with it.
    const tokenRequests = provider.requests.filter((request) => request.grantType === 'client_credentials');
    assert.deepEqual(tokenRequests.map((request) => request.status), [400, 200]);
    assert.equal(typeof jose.decodeJwt(tokenRequests[1]?.dpop ?? '')['nonce'], 'string');
    // The MCP server: unauthorized first, then DPoP only; its nonce demanded once and carried from then on.
    const authorized = gate.seen.filter((entry) => entry.scheme !== undefined);
    assert.equal(gate.seen[0]?.status, 401);
    assert.ok(authorized.length >= 3, `initialize, notification, list and call at least (${authorized.length})`);
    assert.ok(authorized.every((entry) => entry.scheme === 'DPoP'));
    assert.equal(authorized[0]?.status, 401, 'the first proof had no nonce');
    // (The standalone GET stream is refused by the mock with 405: authorized, just not offered.)
    assert.ok(authorized.slice(1).every((entry) => entry.nonce === RS_NONCE && entry.status !== 401));
    assert.equal(new Set(authorized.map((entry) => entry.jti)).size, authorized.length, 'one jti per request');
  });

  test('a refused workload assertion fails the connection after one token request, with no other grant', async () => {
    const before = provider.requests.length;
    const expired = await workloadAssertion(provider, provider.issuer, '-60s');
    const auth = createOAuthClient({ grant: jwtBearer({ clientId: 'workload', assertion: expired }) });
    const client = createClient({ era: 'legacy', name: 'grants-e2e', version: '1.0.0' });
    await assert.rejects(client.connect(createStreamableHttpClientTransport(gate.url, { auth })));
    const made = provider.requests.slice(before);
    assert.deepEqual(made.map((request) => request.grantType), [JWT_BEARER]);
    assert.equal(made[0]?.status, 400);
  });
});
