/**
 * A server: tools (one with a zod schema), a resource, a resource template and a prompt, served on Streamable
 * HTTP. To show the wire without any MCP client library, it is then called with plain `fetch`: initialize, a
 * tool call in that session, and a request from a foreign web origin, which the DNS-rebinding check refuses.
 *
 * Run: node server.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createServer } from 'rxmcp';
import { createStreamableHttpServer } from 'rxmcp/http';
import { z } from 'zod';

const server = createServer({ name: 'notes', version: '1.0.0', instructions: 'Notes for the day.' });

// A Standard Schema (zod) or a JSON Schema; either way arguments are validated before the handler runs, and
// invalid ones come back as an `isError` result the model can read.
server.tool(
  { name: 'add', description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
  ({ a, b }) => ({ structuredContent: { sum: a + b }, content: [{ type: 'text', text: String(a + b) }] }),
);
server.resource({ uri: 'notes://today', name: 'today', mimeType: 'text/plain' }, () => 'Nothing planned.');
server.resourceTemplate({ uriTemplate: 'notes://days/{day}', name: 'day' }, (_uri, { day }) => `Plans for ${day}`);
server.prompt({ name: 'plan', arguments: [{ name: 'day', required: true }] }, ({ day }) => `Plan ${day} for me.`);

// Streamable HTTP on 127.0.0.1; port 0 picks a free one. `responseMode: 'json'` answers each request with one
// JSON body (the default, 'sse', answers with an event stream that can carry progress before the result).
const http = createStreamableHttpServer({ server, path: '/mcp', responseMode: 'json' });
const listening = await http.listen(0);
console.log(`serving at ${listening.url}`);

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
async function post(body: object, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(listening.url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
}

try {
  // The legacy-era handshake: initialize, then notifications/initialized, both with the session id.
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fetch', version: '0' } },
  });
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id');
  assert.ok(sessionId !== null, 'initialize opens a session');
  const initialized = (await init.json()) as { result: { serverInfo: { name: string }; capabilities: Record<string, unknown> } };
  assert.equal(initialized.result.serverInfo.name, 'notes');
  assert.ok('tools' in initialized.result.capabilities && 'resources' in initialized.result.capabilities);

  const inSession = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, inSession)).status, 202);

  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }, inSession);
  const called = (await call.json()) as { result: { structuredContent: { sum: number } } };
  assert.deepEqual(called.result.structuredContent, { sum: 5 });

  // Invalid arguments: a result with isError, not a protocol error.
  const invalid = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 'two' } } }, inSession);
  assert.equal(((await invalid.json()) as { result: { isError?: boolean } }).result.isError, true);

  const read = await post({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'notes://days/friday' } }, inSession);
  const contents = ((await read.json()) as { result: { contents: { text: string }[] } }).result.contents;
  assert.equal(contents[0]?.text, 'Plans for friday');

  // DNS rebinding: a web page from an origin the server was not told about (and likewise a Host header it was
  // not told about) gets 403 before anything else is looked at.
  const foreign = await post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { ...inSession, origin: 'https://attacker.example' });
  assert.equal(foreign.status, 403);

  // DELETE ends the session; its id is unknown afterwards.
  assert.equal((await fetch(listening.url, { method: 'DELETE', headers: inSession })).status, 200);
  assert.equal((await post({ jsonrpc: '2.0', id: 6, method: 'ping' }, inSession)).status, 404);
} finally {
  await listening.close();
  await http.close();
}
console.log('server: ok');
