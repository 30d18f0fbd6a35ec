/**
 * Per-item authorization (`requires` on a registration): lists filtered per caller and shared per relevant scope
 * set, a call lacking a scope refused with -32043 (over HTTP 403 `insufficient_scope` naming the scopes, in
 * both eras), a call a predicate refuses answered as for an item that does not exist.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServerCatalog } from '../../actors/features/catalog.ts';
import { listHandler } from '../../actors/features/list-handler.ts';
import type { RequestContext } from '../../actors/handler-types.ts';
import { createClient } from '../../client/create-client.ts';
import type { AuthInfo } from '../../core/auth.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { isWireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { buildTool } from '../../server/registration.ts';
import { createServer } from '../../server/create-server.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { asBody } from '../support/http-raw-client.ts';
import { ModernHttp, assertErrorReply } from '../transports/http-server/modern/modern-http.ts';

const caller = (principal: string, scopes: string[]): AuthInfo => ({ principal, subject: principal, scopes, claims: { sub: principal } });

function guardedServer(): ReturnType<typeof createServer> {
  const server = createServer({ name: 'guarded', version: '1' });
  server.tool({ name: 'public' }, () => 'public');
  server.tool({ name: 'admin', requires: ['mcp:admin'] }, () => 'admin');
  server.tool({ name: 'ada-only', requires: (auth) => auth?.subject === 'ada' }, () => 'ada');
  server.prompt({ name: 'report', requires: ['mcp:reports'] }, () => 'report');
  server.prompt({ name: 'hello' }, () => 'hello');
  server.resource({ uri: 'memo://open', name: 'open' }, () => 'open');
  server.resource({ uri: 'memo://vault', name: 'vault', requires: ['mcp:vault'] }, () => 'vault');
  server.resourceTemplate({ uriTemplate: 'memo://vault/{id}', name: 'vault items', requires: ['mcp:vault'] }, (uri) => uri);
  return server;
}

describe('per-item authorization over memory', () => {
  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} era: lists show what the caller may use; calls without a scope are -32043, hidden ones unknown`, async () => {
      const server = guardedServer();
      for (const [who, expected] of [
        [caller('grace', ['mcp:tools']), { tools: ['public'], prompts: ['hello'], resources: ['memo://open'], templates: [] as string[] }],
        [caller('ada', ['mcp:admin', 'mcp:reports', 'mcp:vault']), { tools: ['public', 'admin', 'ada-only'], prompts: ['report', 'hello'], resources: ['memo://open', 'memo://vault'], templates: ['memo://vault/{id}'] }],
      ] as const) {
        const [clientEnd, serverEnd] = createMemoryPair({ serverAuth: who });
        server.accept(serverEnd);
        const client = await createClient({ name: 'c', version: '1', era }).connect(clientEnd);
        try {
          assert.deepEqual((await client.listTools()).map((tool) => tool.name), expected.tools);
          assert.deepEqual((await client.listPrompts()).map((prompt) => prompt.name), expected.prompts);
          assert.deepEqual((await client.listResources()).map((resource) => resource.uri), expected.resources);
          assert.deepEqual((await client.listResourceTemplates()).map((template) => template.uriTemplate), expected.templates);
          if (who.principal === 'grace') {
            await assert.rejects(client.callTool('admin'), (error: unknown) => isWireError(error) && error.code === ErrorCode.InsufficientScope && JSON.stringify(error.data) === '{"requiredScopes":["mcp:admin"]}');
            await assert.rejects(client.callTool('ada-only'), (error: unknown) => isWireError(error) && error.code === ErrorCode.InvalidParams && /unknown tool "ada-only"/.test(error.message));
            await assert.rejects(client.getPrompt('report'), (error: unknown) => isWireError(error) && error.code === ErrorCode.InsufficientScope);
            await assert.rejects(client.readResource('memo://vault/7'), (error: unknown) => isWireError(error) && error.code === ErrorCode.InsufficientScope);
            if (era === 'legacy') await assert.rejects(client.session.request('resources/subscribe', { uri: 'memo://vault' }), (error: unknown) => isWireError(error) && error.code === ErrorCode.InsufficientScope);
          } else {
            assert.equal((await client.callTool('admin')).content[0]?.type, 'text');
            assert.equal(((await client.callTool('ada-only')).content[0] as { text: string }).text, 'ada');
            assert.equal((await client.readResource('memo://vault/7')).contents[0]?.uri, 'memo://vault/7');
            if (era === 'legacy') assert.deepEqual(await client.session.request('resources/subscribe', { uri: 'memo://vault' }), {});
          }
        } finally {
          await client.close();
        }
      }
      await server.close();
    });
  }
});

describe('filtered lists are shared per relevant scope set', () => {
  const context = (auth: AuthInfo | undefined): RequestContext => ({ auth } as unknown as RequestContext);

  test('callers holding the same relevant scopes get the very same result object; other scopes do not split them', () => {
    const catalog = new ServerCatalog();
    const handler = listHandler(catalog.tools, 'tools', 100);
    catalog.tools.set('public', buildTool({ name: 'public' }, (() => 'x') as never));
    catalog.tools.set('admin', buildTool({ name: 'admin', requires: ['mcp:admin'] }, (() => 'x') as never));
    const a = handler(undefined, context(caller('a', ['mcp:admin', 'email']))) as JsonObject;
    const b = handler(undefined, context(caller('b', ['profile', 'mcp:admin']))) as JsonObject;
    const c = handler(undefined, context(caller('c', ['profile']))) as JsonObject;
    const anonymous = handler(undefined, context(undefined)) as JsonObject;
    assert.equal(a, b, 'one list for every caller with mcp:admin');
    assert.equal(c, anonymous, 'one list for every caller without it');
    assert.deepEqual((a['tools'] as Array<{ name: string }>).map((tool) => tool.name), ['public', 'admin']);
    assert.deepEqual((c['tools'] as Array<{ name: string }>).map((tool) => tool.name), ['public']);
    assert.ok(!('requires' in ((a['tools'] as object[])[1] as object)), 'the rule is not on the wire');
  });

  test('with a predicate among the rules, each caller is judged on its own', () => {
    const catalog = new ServerCatalog();
    const handler = listHandler(catalog.tools, 'tools', 100);
    let asked = 0;
    catalog.tools.set('mine', buildTool({ name: 'mine', requires: (auth) => (asked++, auth?.principal === 'a') }, (() => 'x') as never));
    const a = handler(undefined, context(caller('a', []))) as JsonObject;
    const b = handler(undefined, context(caller('b', []))) as JsonObject;
    assert.deepEqual((a['tools'] as unknown[]).length, 1);
    assert.deepEqual((b['tools'] as unknown[]).length, 0);
    assert.equal(asked, 2);
  });
});

describe('per-item authorization over Streamable HTTP: 403 insufficient_scope for step-up', () => {
  const identities = new Map([['Bearer grace', caller('grace', ['mcp:tools'])]]);
  const protectedResource = { metadata: { resource: 'https://mcp.example.test/mcp', authorization_servers: ['https://as.example.test'] } };
  const authenticate = (request: { header(name: string): string | undefined }): AuthInfo | undefined => identities.get(request.header('authorization') ?? '');

  test('modern era: the call is its own POST, answered 403 with the challenge naming the scope', async () => {
    const server = guardedServer();
    const http = createStreamableHttpServer({ server, authenticate, protectedResource });
    const { url } = await http.listen();
    try {
      const client = new ModernHttp(url);
      const reply = await client.post('tools/call', { name: 'admin', arguments: {} }, { id: 'up', headers: { authorization: 'Bearer grace' } });
      const error = assertErrorReply(reply, 403, ErrorCode.InsufficientScope, 'up');
      assert.deepEqual(error['data'], { requiredScopes: ['mcp:admin'] });
      assert.equal(asBody(reply).headers['www-authenticate'], 'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp", scope="mcp:admin", error="insufficient_scope", error_description="the token lacks a scope this request needs"');
      // A predicate's refusal is the era's unknown-tool answer (-32602, 400), with no challenge.
      const hidden = await client.post('tools/call', { name: 'ada-only', arguments: {} }, { id: 'hidden', headers: { authorization: 'Bearer grace' } });
      assertErrorReply(hidden, 400, ErrorCode.InvalidParams, 'hidden');
      assert.equal(asBody(hidden).headers['www-authenticate'], undefined);
    } finally {
      await http.close();
      await server.close();
    }
  });

  test('legacy era, JSON answers: a lone refused call is 403 with the challenge too', async () => {
    const server = guardedServer();
    const http = createStreamableHttpServer({ server, authenticate, protectedResource, responseMode: 'json' });
    const { url } = await http.listen();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer grace' };
    try {
      const opened = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
      const sessionId = opened.headers.get('mcp-session-id') as string;
      await opened.body?.cancel();
      const session = { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
      await (await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).body?.cancel();
      const refused = await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: {} } }) });
      assert.equal(refused.status, 403);
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
      assert.match(refused.headers.get('www-authenticate') ?? '', /scope="mcp:admin"/);
      const body = (await refused.json()) as { id: number; error: { code: number } };
      assert.equal(body.id, 2);
      assert.equal(body.error.code, ErrorCode.InsufficientScope);
      const allowed = await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'public', arguments: {} } }) });
      assert.equal(allowed.status, 200);
      await allowed.body?.cancel();
    } finally {
      await http.close();
      await server.close();
    }
  });
});
