/**
 * The tester tells when it, not the server, held a run back: a run whose own process is kept busy (its status
 * callback spins the CPU, as an overloaded tester would) reports the intervals it was bound in, why, and says the
 * figures understate the server; its live status flags those intervals.
 *
 * @serial: asserts the tester's own CPU share and event-loop lag interval by interval: other processes on the cores change what it measures
 *
 * @own-process: spins the process's CPU and reads its CPU time
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { runLoad } from '../../load/index.ts';
import { killChildren, trackChild } from '../support/interop-processes.ts';
import { assertBooks } from './books.ts';
import { trickyChild } from './processes.ts';

after(async () => {
  await killChildren();
});

test('load - a tester kept busy reports that it was the bottleneck (its CPU, its event loop), interval by interval', async () => {
  const flagged: boolean[] = [];
  let spun = 0;
  const result = await runLoad({
    target: trickyChild(),
    era: 'legacy',
    rate: 200,
    durationMs: 2000,
    intervalMs: 500,
    hangMs: 5000,
    onStatus: (status) => {
      flagged.push(status.testerBound);
      // 400 ms of CPU in every 500 ms interval spent here, on the tester's own thread (CPU time, not wall time:
      // on a busy machine the spin takes longer, and the tester is as bound).
      const start = process.cpuUsage();
      let sum = 0;
      while (process.cpuUsage(start).user < 400_000) for (let i = 0; i < 100_000; i++) sum += i;
      spun += sum > 0 ? 1 : 0;
    },
  });
  for (const pid of result.server?.pids ?? []) trackChild(pid, 'tricky server');
  assertBooks(result);
  assert.equal(result.tester.bottleneck, true, result.tester.verdict);
  assert.ok(result.tester.boundIntervals >= 2, `${result.tester.boundIntervals} of ${result.tester.intervals} intervals bound`);
  assert.match(result.tester.verdict, /^the tester held the run back in \d+ of \d+ intervals \((cpu|event loop|send schedule)/);
  assert.match(result.tester.verdict, /the figures understate the server/);
  assert.ok(result.tester.cpu >= 0.5, `the tester used ${result.tester.cpu} of a core`);
  assert.ok((result.tester.slipP99Ms ?? 0) >= 100, `its calls left late: p99 ${result.tester.slipP99Ms} ms`);
  assert.ok(spun >= 2, `the status came ${spun} times`);
  assert.ok(flagged.slice(1).some(Boolean), `the live status flagged it (${flagged.join(', ')})`);
  assert.ok(result.series.points.some((point) => point.testerBound), 'and the time series marks the intervals');
});
