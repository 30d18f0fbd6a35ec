/**
 * Step-up through `rxmcp gateway` (a real process, a real nats-server), as `rxmcp serve --auth-issuer` does it:
 * the server on NATS decides (its tools' `requires`, the caller's scopes vouched for by the gateway's identity
 * assertion), and a call lacking a scope is answered 403 with `WWW-Authenticate: Bearer ...
 * error="insufficient_scope"` naming the scopes and the -32043 error as body, instead of the -32043 inside an SSE
 * stream no client steps up from. In the legacy era (SSE answers) and the modern era; the session goes on, the
 * caller with the wider token gets the call, and a call with progress is still streamed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { ErrorCode } from '../../../core/error-codes.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { type SigningKey, type TestAuthorizationServer, signingKey, startAuthorizationServer } from '../../auth/support.ts';
import { RawMcp, asBody, asStream } from '../../support/http-raw-client.ts';
import { killChildren } from '../../support/interop-processes.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../../support/nats-server.ts';
import { ModernHttp } from '../../transports/http-server/modern/modern-http.ts';
import { gatewayKeys } from '../../transports/nats/identity-keys.ts';
import { type RunningCli, startCli } from '../commands/cli-process.ts';

const hour = (): number => Math.floor(Date.now() / 1000) + 3600;

function assertStepUp(reply: Awaited<ReturnType<RawMcp['post']>>, id: number | string, scopes: readonly string[]): void {
  const body = asBody(reply);
  assert.equal(body.status, 403, body.text);
  const challenge = String(body.headers['www-authenticate']);
  assert.match(challenge, /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", scope="[^"]+", error="insufficient_scope"/);
  assert.equal(/scope="([^"]+)"/.exec(challenge)?.[1], scopes.join(' '));
  const message = body.json as { id: number | string; error: { code: number; data: unknown } };
  assert.equal(message.id, id);
  assert.equal(message.error.code, ErrorCode.InsufficientScope);
  assert.deepEqual(message.error.data, { requiredScopes: scopes });
}

describe('rxmcp gateway step-up', () => {
  let nats: NatsServerProcess;
  let key: SigningKey;
  let as: TestAuthorizationServer;
  let connection: NatsConnection;
  let server: McpServer;
  let serving: NatsServing;
  let gateway: RunningCli;
  let dir: string;
  let resource: string;
  const runs: string[] = [];

  before(async () => {
    nats = await startNatsServer();
    key = await signingKey('ES256', 'k1');
    as = await startAuthorizationServer([key]);
    const keys = await gatewayKeys('gw');
    dir = await mkdtemp(join(tmpdir(), 'rxmcp-gateway-step-up-'));
    const keyFile = join(dir, 'gateway.jwk');
    await writeFile(keyFile, JSON.stringify(keys.privateJwk));

    server = createServer({ name: 'behind-gateway', version: '0.0.0', eras: 'both' });
    server.tool({ name: 'read-note' }, () => (runs.push('read-note'), 'a note'));
    server.tool({ name: 'write-note', requires: ['mcp:write'] }, () => (runs.push('write-note'), 'noted'));
    server.tool({ name: 'slow-write', requires: ['mcp:write'] }, async (_args, ctx) => {
      ctx.progress?.({ progress: 1, total: 2 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      runs.push('slow-write');
      return 'slowly noted';
    });
    connection = await connect({ servers: nats.url });
    serving = await serveNats(server, { connection, name: 'notes', identity: { keys: [keys.publicJwk], required: true } });

    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    gateway = startCli(['gateway', '--nats', nats.url, '--name', 'notes', '--port', String(port), '--auth-issuer', as.issuer, '--auth-allow-loopback-http', '--identity-key', keyFile]);
    for (let waited = 0; !/the servers are told who each caller is/.test(gateway.stdout()); waited += 50) {
      if (waited > 60_000 || gateway.child.exitCode !== null) assert.fail(`the gateway did not start: ${gateway.stdout()} ${gateway.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  after(async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.done.catch(() => undefined);
    await killChildren();
    await serving?.close('end');
    await server?.close();
    await connection?.close();
    await nats?.dispose();
    await as?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  const token = (scope: string): Promise<string> => as.mint({ iss: as.issuer, aud: resource, sub: 'alice', scope, exp: hour() });

  test('legacy era, SSE answers: 403 insufficient_scope before any stream; the session goes on; the wider token gets the call', async () => {
    runs.length = 0;
    const reader = `Bearer ${await token('mcp:read')}`;
    const client = new RawMcp(resource, { headers: { authorization: reader } });
    await client.initialize('2025-11-25');
    const id = client.id();
    const refused = await client.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write-note', arguments: {} } });
    assertStepUp(refused, id, ['mcp:write']);
    assert.equal(asBody(refused).headers['mcp-session-id'], client.sessionId, 'the answer names the session');
    assert.deepEqual(runs, [], 'the handler never ran');

    const allowed = await client.call('tools/call', { name: 'read-note', arguments: {} });
    assert.equal(asStream(allowed.reply).status, 200, 'an allowed call is still streamed');
    assert.deepEqual((allowed.response['result'] as { content: unknown[] }).content, [{ type: 'text', text: 'a note' }]);

    const writer = `Bearer ${await token('mcp:read mcp:write')}`;
    const stepped = await client.call('tools/call', { name: 'write-note', arguments: {} }, { authorization: writer });
    assert.equal(asStream(stepped.reply).status, 200);
    assert.deepEqual((stepped.response['result'] as { content: unknown[] }).content, [{ type: 'text', text: 'noted' }]);

    const progress = await client.call('tools/call', { name: 'slow-write', arguments: {}, _meta: { progressToken: 'p' } }, { authorization: writer });
    const stream = asStream(progress.reply);
    assert.equal(stream.status, 200);
    assert.ok(stream.events.some((event) => event.data.includes('notifications/progress')), 'the progress came first, on the stream');
    assert.deepEqual(runs, ['read-note', 'write-note', 'slow-write']);
    client.assertClean();
  });

  test('modern era: the refused call is its own POST, answered 403 with the challenge', async () => {
    const client = new ModernHttp(resource);
    const reply = await client.post('tools/call', { name: 'write-note', arguments: {} }, { id: 'up', headers: { authorization: `Bearer ${await token('mcp:read')}` } });
    assertStepUp(reply, 'up', ['mcp:write']);
    const allowed = await client.post('tools/call', { name: 'write-note', arguments: {} }, { id: 'ok', headers: { authorization: `Bearer ${await token('mcp:write')}` } });
    assert.equal(asBody(allowed).status, 200);
  });
});
