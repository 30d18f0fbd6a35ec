/**
 * Progress and cancellation, in one process (an in-memory transport pair).
 *
 * - A tool reports progress with `ctx.progress`; the client sees it as `progress` events of `callTool$`, or
 *   through `onProgress` of the Promise call.
 * - Unsubscribing from `callTool$` (or aborting the `signal` of a Promise call) sends `notifications/cancelled`:
 *   the handler's `ctx.signal` aborts, and the Promise call fails with the local error `RequestAborted`.
 * - A timeout also cancels, and is reported as `RequestTimeout`.
 *
 * Run: node progress-and-cancellation.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { createClient, createServer, isLocalError } from 'rxmcp';
import { createMemoryPair } from 'rxmcp/testing';
import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { setTimeout as sleep } from 'node:timers/promises';

const server = createServer({ name: 'progress-example', version: '1.0.0' });

// Counts to `to`, reporting each step as progress, and stops early when the client cancels.
server.tool(
  {
    name: 'count',
    inputSchema: { type: 'object', properties: { to: { type: 'integer', minimum: 1 } }, required: ['to'] },
  },
  async (args, ctx) => {
    const to = Number(args['to']);
    for (let step = 1; step <= to; step += 1) {
      await sleep(5, undefined, { signal: ctx.signal }); // throws once the request is cancelled
      ctx.progress({ progress: step, total: to, message: `step ${step}` });
    }
    return `counted to ${to}`;
  },
);

// Works for a minute unless cancelled first, and records the cancellations it saw.
const cancelledCalls: unknown[] = [];
let slowCallsStarted = 0;
server.tool({ name: 'slow' }, async (_args, ctx) => {
  slowCallsStarted += 1;
  ctx.signal.addEventListener('abort', () => cancelledCalls.push(ctx.signal.reason));
  await sleep(60_000, undefined, { signal: ctx.signal });
  return 'finished';
});

/** Waits, a bounded time, for something another party does (here: the server handling a cancellation). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; !condition(); await sleep(5)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
  }
}

const client = createClient({ name: 'progress-client', version: '1.0.0' });
const [clientEnd, serverEnd] = createMemoryPair();
server.accept(serverEnd);
const session = await client.connect(clientEnd);

// 1. The Observable call: progress events, then the result.
const events = await lastValueFrom(session.callTool$('count', { to: 3 }, { progress: true }).pipe(toArray()));
assert.deepEqual(
  events.map((event) => (event.type === 'progress' ? event.progress : 'result')),
  [1, 2, 3, 'result'],
);
const last = events.at(-1);
assert.ok(last?.type === 'result');
assert.deepEqual(last.result.content, [{ type: 'text', text: 'counted to 3' }]);

// 2. The Promise call, with onProgress.
const seen: number[] = [];
const result = await session.callTool('count', { to: 2 }, { onProgress: ({ progress }) => seen.push(progress) });
assert.deepEqual(seen, [1, 2]);
assert.deepEqual(result.content, [{ type: 'text', text: 'counted to 2' }]);

// 3. Cancelling by unsubscribing: take the first progress event, then stop listening.
const first = await firstValueFrom(session.callTool$('count', { to: 1000 }, { progress: true }).pipe(filter((e) => e.type === 'progress'), take(1)));
assert.equal(first.type === 'progress' && first.progress, 1);

// 4. Cancelling a Promise call with an AbortSignal.
const controller = new AbortController();
const waiting = session.callTool('slow', {}, { signal: controller.signal });
await until(() => slowCallsStarted === 1, 'the handler started');
controller.abort();
await assert.rejects(waiting, (error: unknown) => isLocalError(error) && error.code === 'RequestAborted');

// 5. A timeout cancels too, and says so.
await assert.rejects(
  session.callTool('slow', {}, { timeoutMs: 50 }),
  (error: unknown) => isLocalError(error) && error.code === 'RequestTimeout',
);

// The server saw both cancellations (the handler's signal aborted), and the session is still usable.
await until(() => cancelledCalls.length === 2, 'the server saw both cancellations');
assert.equal((await session.callTool('count', { to: 1 })).isError, undefined);

await session.close();
await server.close();
console.log('progress and cancellation: ok');
