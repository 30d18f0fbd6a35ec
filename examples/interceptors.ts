/**
 * Interceptors, in one process (an in-memory transport pair): RxJS operators around every request, on both sides.
 *
 * - `server.use` wraps the requests the server serves: here a log of each call with its duration, a quota that
 *   answers by itself with a JSON-RPC error once a caller used it up, and a cache scoped to one tool.
 * - `client.use` wraps the requests the client sends: here a trace id added to `_meta` (the tool reads it), and
 *   a timeout with one retry for a tool that is slow the first time.
 * - The first interceptor registered is the outermost. A server or client without interceptors runs its plain
 *   request path, at no cost.
 *
 * Run: node interceptors.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { type Interceptor, type RequestEvent, WireError, createClient, createServer } from 'rxmcp';
import { createMemoryPair } from 'rxmcp/testing';
import { defer, finalize, of, retry, tap, throwError, timeout } from 'rxjs';
import { setTimeout as sleep } from 'node:timers/promises';

const server = createServer({ name: 'interceptors-example', version: '1.0.0' });
let slowCalls = 0;
server.tool({ name: 'whoami' }, (_args, ctx) => `trace ${String(ctx.meta?.['traceId'])}`);
server.tool({ name: 'price' }, () => ({ content: [{ type: 'text', text: 'price 42' }], structuredContent: { computedAt: Date.now() } }));
server.tool({ name: 'slow' }, async (_args, ctx) => {
  slowCalls += 1;
  // Slow the first time only: the client's timeout gives up on it, and its retry gets the fast answer.
  if (slowCalls === 1) await sleep(1_000, undefined, { signal: ctx.signal });
  return 'finally';
});

// A request log: method, target and duration of every request the server serves.
const log: string[] = [];
const logging: Interceptor = (request, next) =>
  defer(() => {
    const started = performance.now();
    return next(request).pipe(finalize(() => log.push(`${request.method} ${request.target ?? ''} ${Math.round(performance.now() - started)} ms`)));
  });
server.use(logging);

// A quota: five calls per client, then a JSON-RPC error (the handler is not run).
const used = new Map<string, number>();
server.use((request, next) => {
  const caller = request.session.peerInfo?.name ?? 'anonymous';
  const count = (used.get(caller) ?? 0) + 1;
  used.set(caller, count);
  return count > 5 ? throwError(() => new WireError(-32000, `Quota exceeded for ${caller}`, { data: { limit: 5 } })) : next(request);
}, { method: 'tools/call' });

// A cache for one tool: its first result is kept and answered again without running the handler.
let cached: RequestEvent | undefined;
server.use((request, next) => (cached !== undefined ? of(cached) : next(request).pipe(tap((event) => (event.type === 'result' ? (cached = event) : undefined)))), { tool: 'price' });

const client = createClient({ name: 'example-client', version: '1.0.0' });
// Every request carries a trace id in its _meta.
client.use((request, next) => next(request.with({ meta: { ...request.meta, traceId: 'trace-1' } })));
// The slow tool: give up after 100 ms, try once more.
client.use((request, next) => next(request).pipe(timeout(100), retry(1)), { tool: 'slow' });

const [clientEnd, serverEnd] = createMemoryPair();
server.accept(serverEnd);
const session = await client.connect(clientEnd);

assert.deepEqual((await session.callTool('whoami')).content, [{ type: 'text', text: 'trace trace-1' }]);
const first = await session.callTool('price');
const second = await session.callTool('price');
assert.deepEqual(second.structuredContent, first.structuredContent, 'the second price came from the cache');
assert.deepEqual((await session.callTool('slow')).content, [{ type: 'text', text: 'finally' }]);
assert.equal(slowCalls, 2, 'the first slow call was cancelled by the timeout, the retry answered');
await assert.rejects(session.callTool('whoami'), (error: unknown) => error instanceof WireError && error.code === -32000);
assert.ok(log.some((line) => line.startsWith('tools/call whoami')), log.join('\n'));

console.log(log.join('\n'));
await session.close();
await server.close();
