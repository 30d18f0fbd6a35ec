/**
 * Step-up in the legacy era with SSE answers (the default response mode): a POST's stream would be opened with
 * 200 before the handler runs, so a lone request the caller lacks a scope for is refused first, with 403, the
 * `insufficient_scope` challenge naming the scopes and the -32043 error as body; the handler never runs and the
 * session stays usable. Batches, predicates and endpoints without `authenticate` keep the in-stream answers.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuthInfo } from '../../core/auth.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { createServer } from '../../server/create-server.ts';
import { createSessionHost } from '../../server/session-host.ts';
import { createStreamableHttpFetchHandler, createStreamableHttpServer } from '../../transports/http/index.ts';
import { RawMcp, asBody, asStream } from '../support/http-raw-client.ts';

const caller = (principal: string, scopes: string[]): AuthInfo => ({ principal, subject: principal, scopes, claims: { sub: principal } });
const identities = new Map([
  ['Bearer grace', caller('grace', ['mcp:tools'])],
  ['Bearer grace-admin', caller('grace', ['mcp:tools', 'mcp:admin', 'mcp:vault'])],
]);
const authenticate = (request: { header(name: string): string | undefined }): AuthInfo | undefined => identities.get(request.header('authorization') ?? '');
const protectedResource = { metadata: { resource: 'https://mcp.example.test/mcp', authorization_servers: ['https://as.example.test'] } };
const CHALLENGE = 'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp", scope="mcp:admin", error="insufficient_scope", error_description="the token lacks a scope this request needs"';

function guardedServer(): { server: ReturnType<typeof createServer>; runs: Map<string, number> } {
  const runs = new Map<string, number>();
  const ran = (name: string): string => {
    runs.set(name, (runs.get(name) ?? 0) + 1);
    return name;
  };
  const server = createServer({ name: 'guarded', version: '1' });
  server.tool({ name: 'public' }, () => ran('public'));
  server.tool({ name: 'admin', requires: ['mcp:admin'] }, () => ran('admin'));
  server.tool({ name: 'ada-only', requires: (auth) => auth?.subject === 'ada' }, () => ran('ada-only'));
  server.prompt({ name: 'report', requires: ['mcp:admin'] }, () => ran('report'));
  server.resource({ uri: 'memo://vault', name: 'vault', requires: ['mcp:vault'] }, () => ran('vault'));
  server.resourceTemplate({ uriTemplate: 'memo://vault/{id}', name: 'vault items', requires: ['mcp:vault'] }, (uri) => ran(uri));
  return { server, runs };
}

function assertStepUp(reply: Awaited<ReturnType<RawMcp['post']>>, id: number, scopes: string[]): void {
  const body = asBody(reply);
  assert.equal(body.status, 403);
  assert.equal(body.headers['content-type'], 'application/json');
  assert.match(String(body.headers['www-authenticate']), /^Bearer resource_metadata="[^"]+", scope="([^"]+)", error="insufficient_scope"/);
  assert.equal(/scope="([^"]+)"/.exec(String(body.headers['www-authenticate']))?.[1], scopes.join(' '));
  const message = body.json as { id: number; error: { code: number; data: unknown } };
  assert.equal(message.id, id);
  assert.equal(message.error.code, ErrorCode.InsufficientScope);
  assert.deepEqual(message.error.data, { requiredScopes: scopes });
}

const callTool = (client: RawMcp, name: string): { jsonrpc: '2.0'; id: number; method: string; params: object } => ({ jsonrpc: '2.0', id: client.id(), method: 'tools/call', params: { name, arguments: {} } });

describe('step-up in the legacy era with SSE answers', () => {
  test('a call lacking a scope is 403 with the challenge before any stream opens; the session goes on; with the scope it runs', async () => {
    const { server, runs } = guardedServer();
    const http = createStreamableHttpServer({ server, authenticate, protectedResource });
    const { url } = await http.listen();
    try {
      const client = new RawMcp(url, { headers: { authorization: 'Bearer grace' } });
      await client.initialize('2025-06-18');
      const call = callTool(client, 'admin');
      const refused = await client.post(call);
      assertStepUp(refused, call.id, ['mcp:admin']);
      assert.equal(asBody(refused).headers['www-authenticate'], CHALLENGE);
      assert.equal(asBody(refused).headers['mcp-session-id'], client.sessionId, 'the answer names the session, as its streams do');
      assert.equal(runs.get('admin'), undefined, 'the handler never ran');

      // The same session serves the caller on: an allowed call is answered on its stream.
      const allowed = await client.call('tools/call', { name: 'public', arguments: {} });
      assert.equal(asStream(allowed.reply).status, 200);
      assert.deepEqual((allowed.response['result'] as { content: unknown[] }).content, [{ type: 'text', text: 'public' }]);

      // Prompts, static resources and templates step up the same way.
      for (const [method, params, scope] of [
        ['prompts/get', { name: 'report' }, 'mcp:admin'],
        ['resources/read', { uri: 'memo://vault' }, 'mcp:vault'],
        ['resources/read', { uri: 'memo://vault/7' }, 'mcp:vault'],
      ] as const) {
        const id = client.id();
        assertStepUp(await client.post({ jsonrpc: '2.0', id, method, params }), id, [scope]);
      }
      assert.equal(runs.size, 1, 'only the public tool ran');

      // A predicate's refusal tells nothing: the ordinary unknown-tool error, inside the stream.
      const hidden = await client.call('tools/call', { name: 'ada-only', arguments: {} });
      assert.equal(asStream(hidden.reply).status, 200);
      assert.equal((hidden.response['error'] as { code: number }).code, ErrorCode.InvalidParams);

      // The caller stepped up (same principal, more scopes): the call runs on the same session.
      const stepped = await client.call('tools/call', { name: 'admin', arguments: {} }, { authorization: 'Bearer grace-admin' });
      assert.equal(asStream(stepped.reply).status, 200);
      assert.deepEqual((stepped.response['result'] as { content: unknown[] }).content, [{ type: 'text', text: 'admin' }]);
      assert.equal(runs.get('admin'), 1);
      client.assertClean();
    } finally {
      await http.close();
      await server.close();
    }
  });

  test('behind a session host, statelessly, and through the fetch handler alike', async () => {
    const { server, runs } = guardedServer();
    const host = createSessionHost(server);
    const hosted = createStreamableHttpServer({ server: host, authenticate, protectedResource });
    const stateless = createStreamableHttpServer({ server, authenticate, protectedResource, stateless: true });
    const edge = createStreamableHttpFetchHandler({ server, authenticate, protectedResource });
    try {
      const viaHost = new RawMcp((await hosted.listen()).url, { headers: { authorization: 'Bearer grace' } });
      await viaHost.initialize('2025-06-18');
      const call = callTool(viaHost, 'admin');
      assertStepUp(await viaHost.post(call), call.id, ['mcp:admin']);

      const bare = new RawMcp((await stateless.listen()).url, { headers: { authorization: 'Bearer grace' }, revision: '2025-06-18' });
      const statelessCall = callTool(bare, 'admin');
      assertStepUp(await bare.post(statelessCall), statelessCall.id, ['mcp:admin']);

      const origin = 'http://127.0.0.1:8080';
      const headers = { host: '127.0.0.1:8080', 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer grace' };
      const post = (body: unknown, extra: Record<string, string> = {}): Promise<Response> =>
        edge.handleFetch(new Request(`${origin}/mcp`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) }));
      const opened = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await opened.body?.cancel();
      const session = { 'mcp-session-id': opened.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-06-18' };
      assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status, 202);
      const refused = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: {} } }, session);
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('www-authenticate'), CHALLENGE);
      assert.equal(((await refused.json()) as { error: { code: number } }).error.code, ErrorCode.InsufficientScope);
      assert.equal(runs.get('admin'), undefined, 'no handler ran anywhere');
      viaHost.assertClean();
      bare.assertClean();
    } finally {
      await hosted.close();
      await stateless.close();
      await edge.close();
      await host.close();
      await server.close();
    }
  });

  test('batches and endpoints without authenticate keep the -32043 inside the stream', async () => {
    const { server, runs } = guardedServer();
    const open = createStreamableHttpServer({ server });
    const guarded = createStreamableHttpServer({ server, authenticate, protectedResource });
    try {
      // No authenticate: nobody is checked before the stream; the handler's -32043 comes on it.
      const anonymous = new RawMcp((await open.listen()).url);
      await anonymous.initialize('2025-06-18');
      const plain = await anonymous.call('tools/call', { name: 'admin', arguments: {} });
      assert.equal(asStream(plain.reply).status, 200);
      assert.equal((plain.response['error'] as { code: number }).code, ErrorCode.InsufficientScope);

      // A 2025-03-26 batch: one status for several answers, so each is answered on the stream.
      const batching = new RawMcp((await guarded.listen()).url, { headers: { authorization: 'Bearer grace' } });
      await batching.initialize('2025-03-26');
      const batch = [callTool(batching, 'admin'), callTool(batching, 'public')];
      const reply = asStream(await batching.post(batch));
      assert.equal(reply.status, 200);
      const answers = JSON.parse((await reply.next((event) => event.event === 'message' && event.data.startsWith('['))).data) as Array<{ id: number; error?: { code: number } }>;
      assert.equal(answers.find((answer) => answer.id === batch[0]?.id)?.error?.code, ErrorCode.InsufficientScope);
      assert.equal(runs.get('public'), 1);
      assert.equal(runs.get('admin'), undefined);
      anonymous.assertClean();
      batching.assertClean();
    } finally {
      await open.close();
      await guarded.close();
      await server.close();
    }
  });
});
