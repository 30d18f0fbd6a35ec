/**
 * Faults under load. A server paused with SIGSTOP shows in the open loop's latency, counted from when each call
 * was due (the calls due during the pause are sent and wait), where a closed loop hides it (it sends nothing while
 * the server is stopped); a handler that sleeps shows the same way. A killed stdio child is started again and
 * the run goes on, the calls in flight at the kill counted as lost; dropped connections are opened again. The
 * books add up before, during and after every fault.
 *
 * @serial: kills a stdio server child 1 s into a 3.5 s run and needs it started again (node and tsx) and answering before the run ends: a shared machine starts it too late
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type LoadResult, type WindowResult, runLoad } from '../../load/index.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { killChildren, trackChild } from '../support/interop-processes.ts';
import { assertBooks } from './books.ts';
import { echoServer } from './echo-server.ts';
import { ECHO_CHILD, trickyChild } from './processes.ts';

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

function windowOf(result: LoadResult, kind: WindowResult['kind']): WindowResult {
  const found = result.windows.find((window) => window.kind === kind);
  assert.ok(found !== undefined, `a ${kind} window in ${result.windows.map((window) => window.label).join(', ')}`);
  return found;
}

const track = (result: LoadResult): void => {
  for (const pid of result.server?.pids ?? []) trackChild(pid, 'load child');
};

test('load - a server paused with SIGSTOP shows in the open-loop latency; a closed loop sends nothing meanwhile and hides it', async () => {
  const open = await runLoad({ target: ECHO_CHILD, era: 'legacy', rate: 100, durationMs: 2400, faults: [{ kind: 'pause', atMs: 800, forMs: 600 }], hangMs: 5000 });
  track(open);
  assertBooks(open);
  assert.equal(open.lost, 0, 'a pause loses nothing');
  const [fault] = open.faults;
  assert.ok(fault !== undefined && fault.kind === 'pause' && fault.targets === 1);
  assert.ok(fault.releasedAtMs !== undefined && fault.releasedAtMs - fault.atMs >= 590, 'SIGCONT came after the pause');
  assert.ok(fault.recoveredAtMs !== undefined, 'answered again');
  const during = windowOf(open, 'fault');
  assert.ok(during.sent >= 50, `the calls due during the pause were sent on schedule (${during.sent})`);
  assert.ok((during.latency.p50Ms ?? 0) >= 150, `and waited: p50 ${during.latency.p50Ms} ms from when they were due`);
  assert.ok((during.latency.maxMs ?? 0) >= 450, `the first waited about the whole pause: max ${during.latency.maxMs} ms`);
  assert.ok((open.latency.p99Ms ?? 0) >= 400, `the run's p99 shows the stall: ${open.latency.p99Ms} ms`);
  assert.ok((windowOf(open, 'step').latency.p50Ms ?? Infinity) < 100, 'before the pause it answered quickly');

  const closed = await runLoad({ target: ECHO_CHILD, era: 'legacy', concurrency: 1, durationMs: 2400, faults: [{ kind: 'pause', atMs: 800, forMs: 600 }], hangMs: 5000 });
  track(closed);
  assertBooks(closed);
  assert.ok(windowOf(closed, 'fault').sent <= 3, `a closed loop of 1 sent ${windowOf(closed, 'fault').sent} calls while the server was stopped`);
});

test('load - a handler that sleeps shows in the latency and the service time', async () => {
  const result = await runLoad({ target: trickyChild('--sleep-ms', '300'), era: 'legacy', rate: 20, durationMs: 1000, hangMs: 5000 });
  assertBooks(result);
  assert.equal(result.ok, result.sent);
  assert.ok((result.serviceTime.p50Ms ?? 0) >= 295 && (result.latency.p50Ms ?? 0) >= 295, `p50 ${result.latency.p50Ms} ms`);
});

test('load - a killed stdio child is started again: the calls in flight at the kill are lost and counted, the run goes on', async () => {
  const result = await runLoad({
    target: ECHO_CHILD,
    era: 'legacy',
    concurrency: 4,
    durationMs: 3500,
    operations: [{ method: 'tools/call', tool: 'echo', arguments: { text: '{{token}}', delayMs: '20' } }],
    faults: [{ kind: 'kill', atMs: 1000, restartAfterMs: 200 }],
    hangMs: 5000,
  });
  track(result);
  assertBooks(result);
  const [fault] = result.faults;
  assert.ok(fault !== undefined && fault.kind === 'kill' && fault.targets === 1, JSON.stringify(result.faults));
  assert.ok(fault.recoveredAtMs !== undefined && fault.recoveredAtMs - fault.atMs >= 200, `answered again ${fault.recoveredAtMs === undefined ? 'never' : fault.recoveredAtMs - fault.atMs} ms after the kill, after the restart delay`);
  // 4 calls in flight, each taking 20 ms: the kill always strikes some, which fail when the child is gone.
  assert.ok(fault.inFlight.calls >= 1 && fault.inFlight.calls <= 4, JSON.stringify(fault.inFlight));
  assert.equal(fault.inFlight.errors, fault.inFlight.calls, 'every call in flight at the kill failed');
  const closed = result.errorsByCode['ConnectionClosed'] ?? 0;
  assert.ok(closed >= fault.inFlight.calls, `counted among the errors (${JSON.stringify(result.errorsByCode)})`);
  assert.equal(result.lost, closed + result.hung, 'and as lost');
  assert.ok(windowOf(result, 'after-fault').ok > 20, 'after the restart the calls are answered again');
  assert.equal(result.wrong, 0);
  const sessions = result.byEra[0]?.sessions;
  assert.equal(sessions?.lost, 1);
  assert.equal(sessions?.opened, 2, 'one session, opened again once');
});

test('load - dropped connections are opened again; what was in flight is counted, before, during and after', async () => {
  const result = await runLoad({
    target: { url },
    era: 'legacy',
    rate: 100,
    sessions: 2,
    durationMs: 1800,
    operations: [{ method: 'tools/call', tool: 'echo', arguments: { text: '{{token}}', delayMs: '30' } }],
    faults: [{ kind: 'drop', atMs: 700 }],
    hangMs: 5000,
  });
  assertBooks(result);
  const [fault] = result.faults;
  assert.ok(fault !== undefined && fault.kind === 'drop' && fault.targets === 2, JSON.stringify(result.faults));
  assert.ok(fault.recoveredAtMs !== undefined);
  assert.equal(result.byEra[0]?.sessions.lost, 2);
  assert.ok(windowOf(result, 'after-fault').ok > 30);
  assert.ok(windowOf(result, 'step').ok > 30);
  assert.equal(result.wrong, 0);
});

test('load - calls the open loop held back at the in-flight cap while the server was paused are counted as not sent, not forgotten', async () => {
  // 100/s for 1.6 s with at most 5 in flight, the server stopped from 0.4 s to the end: the calls due meanwhile are
  // held back at the cap, and the run ends with them never sent.
  const result = await runLoad({ target: ECHO_CHILD, era: 'legacy', rate: 100, durationMs: 1600, maxInFlight: 5, faults: [{ kind: 'pause', atMs: 400, forMs: 1400 }], hangMs: 5000 });
  track(result);
  assertBooks(result);
  const planned = Math.round((result.rates.planned ?? 0) * 1.6);
  assert.ok(result.unsent !== undefined && result.unsent >= 50, `calls held back at the cap are counted (${result.unsent} of ${planned} planned)`);
  assert.equal(result.sent + result.unsent, planned, 'every planned call is either sent or counted as not sent');
});
