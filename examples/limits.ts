/**
 * Rate limits (`rxmcp/limits`): token buckets per principal and per tool, and what a caller over the limit
 * sees: the JSON-RPC error -32029 naming the limit with `data.retryAfterMs`, and on a 2026-07-28 HTTP POST the
 * status 429 with `Retry-After`.
 *
 * Once the interceptor API is merged, one line limits every request of a server:
 *
 *     server.use(rateLimit({ limits: [...] }));
 *
 * Until then, and for a quota inside one handler, the same buckets are used directly: a store, a
 * `TokenBucket` for the rate, and `rateLimitExceeded` for the error (exactly what `rateLimit` raises).
 *
 * Run: node limits.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createClient, createServer, WireError } from 'rxmcp';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';
import { MemoryBucketStore, TokenBucket, rateLimitExceeded, retryAfterMsOf } from 'rxmcp/limits';

// Three searches at once, then one a second, per caller. A million callers at most are remembered (about 47
// bytes each plus the key); a caller idle until its bucket is full again is forgotten, which changes nothing.
const perCaller = new TokenBucket({ capacity: 3, refillPerSecond: 1 });
const buckets = new MemoryBucketStore({ maxBuckets: 1_000_000 });

const server = createServer({ name: 'search', version: '1.0.0' });
server.tool({ name: 'search', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }, (args, ctx) => {
  // No authorization here: the caller's name stands in for its principal.
  const caller = ctx.session.peerInfo?.name ?? 'anonymous';
  const decision = buckets.take(`search|${caller}`, perCaller, perCaller.costUnits(1));
  if (!decision.allowed) throw rateLimitExceeded('search per caller', decision.retryAfterMs, '3 at once, 1 per second');
  return `results for ${String(args['q'])} (${decision.remaining} left now)`;
});

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
