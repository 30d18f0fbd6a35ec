/**
 * `--auth-issuer` on the commands as users run them (real processes on 127.0.0.1, an authorization server
 * served by node:http with tokens minted by jose): `rxmcp serve` challenges a caller without a token, serves its
 * protected-resource metadata, serves a caller with a valid token and refuses one whose token is for another
 * resource or lacks the required scope; `rxmcp gateway --identity-key` tells a server on NATS who the
 * authenticated caller is.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import type { Observable } from 'rxjs';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import { createClient } from '../../../client/create-client.ts';
import { createServer } from '../../../server/create-server.ts';
import { createStreamableHttpClientTransport } from '../../../transports/http/index.ts';
import { serveNats } from '../../../transports/nats/index.ts';
import { type SigningKey, type TestAuthorizationServer, signingKey, startAuthorizationServer } from '../../auth/support.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { freePort, startNatsServer } from '../../support/nats-server.ts';
import { gatewayKeys } from '../../transports/nats/identity-keys.ts';
import { type RunningCli, startCli } from './cli-process.ts';

/** Waits until the command printed `pattern` on stdout (it says where it listens there). */
async function printed(cli: RunningCli, pattern: RegExp): Promise<void> {
  for (let waited = 0; !pattern.test(cli.stdout()); waited += 50) {
    if (waited > 60_000 || cli.child.exitCode !== null) assert.fail(`never printed ${pattern}: ${cli.stdout()} ${cli.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const hour = (): number => Math.floor(Date.now() / 1000) + 3600;

function post(url: string, token?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
  });
}

describe('rxmcp serve and gateway with --auth-issuer', () => {
  let key: SigningKey;
  let as: TestAuthorizationServer;
  const stop: Array<() => Promise<unknown>> = [];

  before(async () => {
    key = await signingKey('ES256', 'k1');
    as = await startAuthorizationServer([key]);
  });

  after(async () => {
    for (const undo of stop.reverse()) await undo().catch(() => undefined);
    await killChildren();
    await as[Symbol.asyncDispose]();
  });

  test('rxmcp serve --auth-issuer - 401 with a challenge and metadata, a valid token served, another resource\'s token and a missing scope refused', async () => {
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const served = startCli(['serve', '--port', String(port), '--auth-issuer', as.issuer, '--auth-allow-loopback-http', '--auth-scope', 'mcp:use']);
    stop.push(async () => {
      served.child.kill('SIGTERM');
      return served.done;
    });
    await printed(served, /requests need an access token from http:\/\/127\.0\.0\.1:\d+ for http:\/\/127\.0\.0\.1:\d+\/mcp, scopes mcp:use/);

    const anonymous = await post(resource);
    assert.equal(anonymous.status, 401);
    const challenge = anonymous.headers.get('www-authenticate') ?? '';
    const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes(`resource_metadata="${metadataUrl}"`), challenge);
    assert.doesNotMatch(challenge, /error=/, 'no token sent: no error code (RFC 6750 section 3.1)');
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    assert.equal(metadata['resource'], resource);
    assert.deepEqual(metadata['authorization_servers'], [as.issuer]);
    assert.deepEqual(metadata['scopes_supported'], ['mcp:use']);

    const token = await as.mint({ iss: as.issuer, aud: resource, sub: 'alice', scope: 'mcp:use', exp: hour() });
    for (const era of ['legacy', 'modern'] as const) {
      const session = await createClient({ name: 'c', version: '0', era }).connect(createStreamableHttpClientTransport(resource, { headers: { authorization: `Bearer ${token}` } }));
      assert.deepEqual((await session.callTool('stats', { numbers: [1, 2, 3] })).structuredContent, { sum: 6, mean: 2 }, era);
      assert.deepEqual((await session.callTool('whoami')).content, [{ type: 'text', text: `You are alice (signed in at ${as.issuer}, scope mcp:use).` }], `${era}: the handler sees the verified caller`);
      await session.close();
    }

    const elsewhere = await post(resource, await as.mint({ iss: as.issuer, aud: 'http://127.0.0.1:1/mcp', sub: 'alice', scope: 'mcp:use', exp: hour() }));
    assert.equal(elsewhere.status, 401);
    assert.match(elsewhere.headers.get('www-authenticate') ?? '', /error="invalid_token", error_description="the token is not for this resource \(audience\)"/);
    const untyped = await post(resource, await as.mint({ iss: as.issuer, aud: resource, sub: 'alice', scope: 'mcp:use', exp: hour() }, { typ: 'JWT' }));
    assert.equal(untyped.status, 401);
    assert.match(untyped.headers.get('www-authenticate') ?? '', /its typ header is not at\+jwt/, 'RFC 9068 by default (--auth-any-token-type is the way out)');
    const unscoped = await post(resource, await as.mint({ iss: as.issuer, aud: resource, sub: 'alice', scope: 'other', exp: hour() }));
    assert.equal(unscoped.status, 403);
    assert.match(unscoped.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.ok(!served.stdout().includes(token) && !served.stderr().includes(token), 'the token is never printed');
  });

  test('rxmcp gateway --auth-issuer --identity-key - the server on NATS sees the authenticated caller; no token is a 401 (probes need none)', async () => {
    const nats = await startNatsServer();
    stop.push(() => nats.dispose());
    const keys = await gatewayKeys('gw');
    const dir = await mkdtemp(join(tmpdir(), 'rxmcp-cli-auth-'));
    stop.push(() => rm(dir, { recursive: true, force: true }));
    const keyFile = join(dir, 'gateway.jwk');
    await writeFile(keyFile, JSON.stringify(keys.privateJwk));

    const principals: Array<string | undefined> = [];
    const server = createServer({ name: 'behind-gateway', version: '0.0.0' });
    server.use((request, next): Observable<RequestEvent> => {
      principals.push(request.session.principal);
      return next(request);
    });
    server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args['text']) }] }));
    const connection = await connect({ servers: nats.url });
    const serving = await serveNats(server, { connection, name: 'authed', identity: { keys: [keys.publicJwk], required: true } });
    stop.push(async () => {
      await serving.close('end');
      await server.close();
      await connection.close();
    });

    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const gateway = startCli(['gateway', '--nats', nats.url, '--name', 'authed', '--port', String(port), '--auth-issuer', as.issuer, '--auth-allow-loopback-http', '--identity-key', keyFile]);
    stop.push(async () => {
      gateway.child.kill('SIGTERM');
      return gateway.done;
    });
    await printed(gateway, /the servers are told who each caller is/);

    const anonymous = await post(resource);
    assert.equal(anonymous.status, 401);
    assert.ok((anonymous.headers.get('www-authenticate') ?? '').includes(`resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`));
    assert.equal(principals.length, 0, 'nothing reached the server');
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'the load balancer\'s probes need no token');

    const token = await as.mint({ iss: as.issuer, aud: resource, sub: 'alice', exp: hour() });
    for (const era of ['legacy', 'modern'] as const) {
      principals.length = 0;
      const session = await createClient({ name: 'c', version: '0', era }).connect(createStreamableHttpClientTransport(resource, { headers: { authorization: `Bearer ${token}` } }));
      assert.deepEqual((await session.callTool('echo', { text: era })).content, [{ type: 'text', text: era }]);
      await session.close();
      assert.ok(principals.length > 0 && principals.every((principal) => principal === 'alice'), `${era}: ${JSON.stringify(principals)}`);
    }
    const elsewhere = await post(resource, await as.mint({ iss: as.issuer, aud: 'http://127.0.0.1:1/mcp', sub: 'mallory', exp: hour() }));
    assert.equal(elsewhere.status, 401);
  });
});
