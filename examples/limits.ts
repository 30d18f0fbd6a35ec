/**
 * Rate limits (`rxmcp/limits`): token buckets per principal, per session, per tool, and what a caller over the
 * limit sees: the JSON-RPC error -32029 naming the limit with `data.retryAfterMs`, and on a 2026-07-28 HTTP POST
 * the status 429 with `Retry-After`.
 *
 * `rateLimit` is an interceptor: `server.use(rateLimit(...), scope)` limits every request it covers, in both
 * eras and on every transport. (The same buckets can also be used directly inside one handler: `TokenBucket`, a
 * store, and `rateLimitExceeded` for the error.)
 *
 * Run: node limits.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createClient, createServer, WireError } from 'rxmcp';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';
import { MemoryBucketStore, rateLimit, retryAfterMsOf } from 'rxmcp/limits';

const server = createServer({ name: 'search', version: '1.0.0' });
server.tool({ name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, (args) => `results for ${String(args['q'])}`);

// Three searches at once, then one a second, per caller. A million callers at most are remembered (about 47
// bytes each plus the key); a caller idle until its bucket is full again is forgotten, which changes nothing.
// No authorization here, so the caller's name stands in for its principal (with authorization: `by: 'principal'`).
server.use(
  rateLimit({
    store: new MemoryBucketStore({ maxBuckets: 1_000_000 }),
    limits: [{ name: 'search per caller', by: (request) => request.session.peerInfo?.name, capacity: 3, refillPerSecond: 1 }],
  }),
  { tool: 'search' },
);

const http = createStreamableHttpServer({ server });
const { url, close } = await http.listen(0);

try {
  const client = await createClient({ name: 'alice', version: '1.0.0' }).connect(createStreamableHttpClientTransport(url));
  for (let i = 0; i < 3; i += 1) await client.callTool('search', { q: 'rxjs' });
  // The fourth call within the second is refused: the error names the limit and says when to retry.
  const refused = await client.callTool('search', { q: 'rxjs' }).then(
    () => assert.fail('the fourth call should be refused'),
    (error: unknown) => error,
  );
  assert.ok(refused instanceof WireError);
  assert.equal(refused.code, -32029);
  assert.match(refused.message, /^Rate limit exceeded: search per caller/);
  const wait = retryAfterMsOf(refused);
  assert.ok(wait !== undefined && wait > 0 && wait <= 1000);
  await client.close();

  // A 2026-07-28 request is its own POST, so its refusal is also an HTTP 429 with Retry-After (seconds).
  const post = (): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'search',
          arguments: { q: 'nats' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bob', version: '1.0.0' } },
        },
      }),
    });
  for (let i = 0; i < 3; i += 1) assert.equal((await post()).status, 200);
  const limited = await post();
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  const body = (await limited.json()) as { error: { code: number; data: { limit: string; retryAfterMs: number } } };
  assert.equal(body.error.code, -32029);
  assert.equal(body.error.data.limit, 'search per caller');
  console.log(`refused with -32029, retry after ${body.error.data.retryAfterMs} ms (HTTP 429, Retry-After: 1)`);
} finally {
  await close();
  await server.close();
}
