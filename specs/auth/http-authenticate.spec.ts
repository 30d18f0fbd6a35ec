/**
 * The Streamable HTTP endpoint's own `authenticate` contract, without rxmcp/auth: an `AuthInfo` answer reaches
 * handlers (also over the 2024-11-05 HTTP+SSE transport), an `AuthRefusal` is answered with its status and
 * challenge, any other throw is a 401 naming the protected-resource metadata.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { type AuthInfo, AuthRefusal } from '../../core/auth.ts';
import { createServer } from '../../server/create-server.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';

const ada: AuthInfo = { principal: 'ada', subject: 'ada', scopes: ['s'], claims: {} };

function served() {
  const server = createServer({ name: 'custom', version: '1' });
  server.tool({ name: 'whoami' }, (_args, ctx) => ctx.auth?.principal ?? 'nobody');
  const http = createStreamableHttpServer({
    server,
    legacySse: true,
    authenticate: (request) => {
      const header = request.header('authorization');
      if (header === 'Bearer ada') return ada;
      if (header === 'Bearer banned') throw new AuthRefusal(403, 'this account is suspended', 'Bearer error="insufficient_scope"');
      if (header === 'Bearer boom') throw new Error('a bug in the hook, with secret details');
      return undefined;
    },
    protectedResource: { metadata: { resource: 'https://api.example.test/mcp', authorization_servers: ['https://as.example.test'] }, metadataUrl: 'https://api.example.test/prm' },
  });
  return { server, http };
}

const post = (url: string, authorization: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

test('an AuthRefusal keeps its status and challenge; another throw is a 401 naming the metadata, its message kept inside', async () => {
  const { server, http } = served();
  const { url } = await http.listen();
  try {
    const banned = await post(url, 'Bearer banned');
    assert.equal(banned.status, 403);
    assert.equal(banned.headers.get('www-authenticate'), 'Bearer error="insufficient_scope"');
    assert.match(((await banned.json()) as { error: { message: string } }).error.message, /Forbidden: this account is suspended/);
    const boom = await post(url, 'Bearer boom');
    assert.equal(boom.status, 401);
    assert.equal(boom.headers.get('www-authenticate'), 'Bearer resource_metadata="https://api.example.test/prm"');
    assert.doesNotMatch(await boom.text(), /secret details/);
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
    assert.equal(((await metadata.json()) as { resource: string }).resource, 'https://api.example.test/mcp');
  } finally {
    await http.close();
    await server.close();
  }
});

for (const mode of ['streamable', 'legacy-sse'] as const) {
  test(`an AuthInfo from authenticate is ctx.auth (${mode})`, async () => {
    const { server, http } = served();
    const { url } = await http.listen();
    try {
      const transport = createStreamableHttpClientTransport(mode === 'streamable' ? url : url.replace(/\/mcp$/, '/sse'), { mode, headers: { authorization: 'Bearer ada' } });
      const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(transport);
      assert.equal(((await client.callTool('whoami')).content[0] as { text: string }).text, 'ada');
      await client.close();
    } finally {
      await http.close();
      await server.close();
    }
  });
}
