/**
 * rxmcp load against an rxmcp server: over Streamable HTTP in this process with both eras side by side and a mix of
 * every operation, and as a stdio child in each era, open and closed loop. Every answer is checked against its
 * request (the token it carried), nothing is lost, and the books add up in every scope.
 *
 * @serial: asserts that an open loop of 100 calls/s per era sends at least 195 of its 200 planned calls in 2 s, with the server in the same process: a starved event loop sends fewer
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Operation, runLoad } from '../../load/index.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { killChildren, trackChild } from '../support/interop-processes.ts';
import { assertBooks } from './books.ts';
import { echoServer } from './echo-server.ts';
import { ECHO_CHILD } from './processes.ts';

let url = '';
let closeHttp: (() => Promise<void>) | undefined;

before(async () => {
  const http = createStreamableHttpServer({ server: echoServer() });
  url = (await http.listen(0)).url;
  closeHttp = () => http.close();
});

after(async () => {
  await closeHttp?.();
  await killChildren();
});

const mix: Operation[] = [
  { method: 'tools/call', tool: 'echo', arguments: { text: 'hello {{token}}' }, weight: 4 },
  { method: 'tools/list' },
  { method: 'resources/read', uri: 'echo://{{token}}' },
  { method: 'prompts/get', prompt: 'repeat', arguments: { text: '{{token}}' } },
];

test('load - rxmcp over HTTP, legacy and modern side by side: a mix of every operation, every answer right, nothing lost', async () => {
  const result = await runLoad({ target: { url }, era: 'both', rate: 100, durationMs: 2000, warmupMs: 300, sessions: 2, operations: mix, hangMs: 5000 });
  assertBooks(result);
  assert.deepEqual(result.eras, ['legacy', 'modern']);
  // 100 calls/s per era for 2 s: the schedule is exact, so every planned call is sent.
  for (const era of result.byEra) {
    assert.ok(era.sent >= 195 && era.sent <= 201, `${era.era}: ${era.sent} calls sent of the 200 planned`);
    assert.equal(era.ok, era.sent, `${era.era}: every call answered rightly (${JSON.stringify(era.errorsByCode)} ${JSON.stringify(era.wrongSamples)})`);
    assert.equal(era.sessions.opened, 2);
  }
  assert.ok(result.warmup.sent >= 55, `the warm-up is counted apart (${result.warmup.sent} calls)`);
  assert.equal(result.lost, 0);
  assert.deepEqual(result.answers, { duplicate: 0, unknownId: 0, late: 0 });
  assert.deepEqual([...result.plan.operations].sort(), ['prompts/get repeat', 'resources/read echo://{{token}}', 'tools/call echo', 'tools/list']);
  assert.ok(result.rates.planned !== undefined && Math.abs(result.rates.planned - 200) < 1, `planned ${result.rates.planned}/s over both eras`);
  assert.ok(result.series.points.length >= 2, 'a point per interval');
  assert.ok(result.latency.p99Ms !== undefined && result.latency.p99Ms > 0);
});

test('load - an rxmcp stdio child in the legacy era, closed loop: 4 calls in flight, ping in the mix, the child\'s CPU and memory read', async () => {
  const result = await runLoad({
    target: ECHO_CHILD,
    era: 'legacy',
    concurrency: 4,
    durationMs: 1500,
    operations: [{ method: 'tools/call', tool: 'echo', arguments: { text: '{{token}}', delayMs: '2' }, expect: '{{token}}' }, { method: 'ping' }],
    hangMs: 5000,
  });
  assertBooks(result);
  for (const pid of result.server?.pids ?? []) trackChild(pid, 'load echo child');
  assert.deepEqual(result.eras, ['legacy']);
  assert.equal(result.mode, 'closed');
  assert.ok(result.sent > 50, `${result.sent} calls in 1.5 s with 4 in flight`);
  assert.equal(result.ok, result.sent, JSON.stringify(result.byEra[0]?.wrongSamples));
  assert.ok(result.server !== undefined && result.server.rssPeak !== undefined && result.server.rssPeak > 10 * 1024 * 1024, 'the child\'s resident memory was read');
  assert.ok(result.server.cpu !== undefined && result.server.cpu > 0, 'and its CPU');
  assert.equal(result.rates.planned, undefined, 'a closed loop plans no rate');
});

test('load - an rxmcp stdio child in the modern era (2026-07-28), open loop', async () => {
  const result = await runLoad({ target: ECHO_CHILD, era: 'modern', rate: 50, durationMs: 1000, hangMs: 5000 });
  assertBooks(result);
  assert.deepEqual(result.eras, ['modern']);
  assert.deepEqual(result.plan.operations, ['tools/call echo'], 'the server\'s echo tool by default');
  assert.ok(result.sent >= 49 && result.ok === result.sent, `${result.ok} of ${result.sent} ok`);
});

test('load - churned sessions (replaced every 25 calls, once their calls are answered) and sessions opened at a rate lose nothing', async () => {
  const result = await runLoad({ target: { url }, era: 'legacy', rate: 100, durationMs: 1500, sessions: 2, sessionRate: 4, churn: { calls: 25 }, hangMs: 5000 });
  assertBooks(result);
  const sessions = result.byEra[0]?.sessions;
  assert.ok(sessions !== undefined && sessions.churned >= 3, `sessions churned: ${JSON.stringify(sessions)}`);
  // Each churned session was replaced: the two first ones, plus a new one per churn (the last may still be opening).
  assert.ok(sessions.opened >= sessions.churned + 1 && sessions.opened <= sessions.churned + 2, `each churned session replaced: ${JSON.stringify(sessions)}`);
  assert.equal(sessions.lost, 0);
  assert.equal(result.ok, result.sent);
  assert.equal(result.lost, 0);
});
