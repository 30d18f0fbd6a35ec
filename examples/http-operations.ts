/**
 * Running an MCP endpoint next to other services: liveness and readiness probes for the orchestrator or load
 * balancer, and CORS for a browser app served from another origin.
 *
 * - `/healthz` answers 200 while the process answers; `/readyz` answers 200 while a new session would be
 *   taken, and 503 with the reason while it would not: the session host is full, the server is shutting down,
 *   or your own check (`health.readiness`) names a dependency that is down. Both are on by default.
 * - `cors: { origins }` (off by default) answers the browser's preflights for those origins and lets their
 *   pages read the MCP headers (`Mcp-Session-Id`, ...); other origins get no CORS header.
 * - The same options work on `createStreamableHttpFetchHandler` (Deno, Bun, workers).
 *
 * Run: node http-operations.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createClient, createServer, createSessionHost } from 'rxmcp';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';
import { createStreamableHttpFetchHandler } from 'rxmcp/http/web';

const server = createServer({ name: 'operated', version: '1.0.0' });
server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => String(args['text']));
const host = createSessionHost(server, { maxSessions: 1 });

let databaseUp = true;
const http = createStreamableHttpServer({
  server: host,
  // Readiness also asks this; keep it quick (the probe waits for it). Throwing counts as "not ready".
  health: { readiness: () => (databaseUp ? undefined : 'the database is unreachable') },
  cors: { origins: ['https://app.example.com'] },
});
const { url, close } = await http.listen(0);
const base = new URL(url).origin;
const readiness = async (): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${base}/readyz`);
  return { status: response.status, body: await response.json() };
};

try {
  // Kubernetes: livenessProbe httpGet /healthz, readinessProbe httpGet /readyz (on the same port).
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  assert.deepEqual(await readiness(), { status: 200, body: { status: 'ready' } });

  // The host takes one session: while it is held, this replica is not ready for more.
  const client = await createClient({ name: 'user', version: '1.0.0', era: 'legacy' }).connect(createStreamableHttpClientTransport(url));
  const full = await readiness();
  assert.equal(full.status, 503);
  assert.match((full.body as { reason: string }).reason, /maximum of 1 sessions/);
  await client.close();
  assert.equal((await readiness()).status, 200);

  // A dependency down: not ready, with the reason (and nothing more) for whoever looks.
  databaseUp = false;
  assert.deepEqual(await readiness(), { status: 503, body: { status: 'unavailable', reason: 'the database is unreachable' } });
  databaseUp = true;

  // What a browser asks before a page on https://app.example.com POSTs to the endpoint.
  const preflight = await fetch(url, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example.com');
  assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, DELETE');
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Mcp-Session-Id/);
  // Another origin gets no CORS header: its browser keeps the answer from the page.
  const other = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example.com', 'access-control-request-method': 'POST' } });
  assert.equal(other.status, 403);
  assert.equal(other.headers.get('access-control-allow-origin'), null);

  // The same probes on the fetch handler (no socket needed to ask it).
  const web = createStreamableHttpFetchHandler({ server, health: { readinessPath: '/ready' } });
  const ready = await web.handleFetch(new Request('http://127.0.0.1/ready'));
  assert.equal(ready.status, 200);
  await web.close();

  console.log('probes and CORS answered as expected');
} finally {
  await http.close();
  await close();
  await host.close();
}
