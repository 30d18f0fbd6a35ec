/**
 * A protected MCP server (`rxmcp/auth`): bearer tokens verified against an authorization server's JWKS, the
 * protected-resource metadata clients discover, handlers that see the caller as `ctx.auth`, and a tool only
 * callers with a scope may use (others do not see it; a call without the scope is answered 403
 * `insufficient_scope`, so a client can step up).
 *
 * The authorization server here is a stand-in started on 127.0.0.1 (metadata and a JWKS, tokens minted with
 * jose): in production it is your identity provider, and clients obtain tokens from it (`rxmcp/auth/client`).
 *
 * Run: node auth-server.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createClient, createServer } from 'rxmcp';
import { bearerAuth } from 'rxmcp/auth';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';

// --- a stand-in authorization server: RFC 8414 metadata and its signing keys ---------------------------------
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' }] };
const authorizationServer = createHttpServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  if (req.url === '/.well-known/oauth-authorization-server') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'] }));
  else if (req.url === '/jwks') res.end(JSON.stringify(jwks));
  else res.writeHead(404).end('{}');
});
await new Promise<void>((resolve) => authorizationServer.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(authorizationServer.address() as AddressInfo).port}`;

// --- the MCP server ---------------------------------------------------------------------------------------------
const resource = 'https://mcp.example.com/mcp'; // its public URL: the audience of its tokens
const server = createServer({ name: 'protected', version: '1.0.0' });
server.tool({ name: 'whoami' }, (_args, ctx) => `you are ${ctx.auth?.subject} (client ${ctx.auth?.clientId})`);
server.tool({ name: 'purge-cache', requires: ['mcp:admin'] }, () => 'purged');

const http = createStreamableHttpServer({
  server,
  ...bearerAuth({
    resource,
    authorizationServers: [issuer],
    scopesSupported: ['mcp:tools', 'mcp:admin'],
    requiredScopes: ['mcp:tools'],
    allowLoopbackHttp: true, // the stand-in speaks plain http on loopback; real authorization servers use https
  }),
});
const { url } = await http.listen();

const tokenFor = (scope: string): Promise<string> =>
  new SignJWT({ scope, client_id: 'example-app' })
    .setProtectedHeader({ alg: 'ES256', kid: 'key-1', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject('ada')
    .setAudience(resource)
    .setExpirationTime('5m')
    .sign(privateKey);

try {
  // Discovery: a request without a token is told where the metadata is.
  const refused = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.equal(refused.status, 401);
  console.log('401:', refused.headers.get('www-authenticate'));
  const metadata = (await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))).json()) as { authorization_servers: string[] };
  assert.deepEqual(metadata.authorization_servers, [issuer]);

  // A caller with mcp:tools: sees whoami only; purge-cache needs a step-up.
  const transport = createStreamableHttpClientTransport(url, { headers: { authorization: `Bearer ${await tokenFor('mcp:tools')}` } });
  const client = await createClient({ name: 'example', version: '1.0.0' }).connect(transport);
  assert.deepEqual((await client.listTools()).map((tool) => tool.name), ['whoami']);
  const answer = await client.callTool('whoami');
  console.log((answer.content[0] as { text: string }).text);
  await assert.rejects(client.callTool('purge-cache'), /Insufficient scope/);
  await client.close();

  // With the admin scope as well, the tool is there.
  const admin = await createClient({ name: 'example', version: '1.0.0' }).connect(
    createStreamableHttpClientTransport(url, { headers: { authorization: `Bearer ${await tokenFor('mcp:tools mcp:admin')}` } }),
  );
  assert.deepEqual((await admin.listTools()).map((tool) => tool.name), ['whoami', 'purge-cache']);
  assert.equal(((await admin.callTool('purge-cache')).content[0] as { text: string }).text, 'purged');
  await admin.close();
} finally {
  await http.close();
  await server.close();
  authorizationServer.close();
}
