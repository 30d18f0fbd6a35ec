/**
 * The client hosts of the side-by-side benchmarks (bench/contender-hosts.ts, bench/contender-host.ts): a host builds
 * the contender its suite names with the suite's factory, answers `measure` and `rate` over IPC with figures it took
 * itself, passes on what the suite checked (the era), and exits once closed; a contender the suite does not know is
 * an error the benchmark process sees, not a hang.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hosted } from '../../bench/contender-hosts.ts';

test('a hosted stdio floor answers a sample and a rate, then closes and its host exits', { timeout: 120_000 }, async () => {
  const floor = await hosted('stdio', 'floor', 'tsx');
  assert.equal(floor.name, 'floor');
  assert.equal(floor.label, 'raw floor (newline JSON-RPC echo child)');
  assert.equal(floor.era, undefined);
  const sample = await floor.measure(500, 8);
  assert.ok(sample.opsPerSec > 0, `calls/s ${sample.opsPerSec}`);
  assert.ok(sample.cpuUsPerOp > 0, `client CPU per call ${sample.cpuUsPerOp}`);
  // /proc counts in 10 ms ticks: a short sample may read 0, but it is a number (NaN only off Linux).
  assert.equal(typeof sample.peerCpuUsPerOp, 'number');
  assert.ok(!(sample.peerCpuUsPerOp < 0), `server CPU per call ${sample.peerCpuUsPerOp}`);
  assert.ok((await floor.rate(1, 50)) > 0);
  assert.deepEqual(await floor.close(), { listenerWarnings: 0 });
});

test('a hosted modern contender passes on the era its suite checked', { timeout: 120_000 }, async () => {
  const floor = await hosted('modern', 'floorStdio', 'tsx');
  assert.equal(floor.era, 'none (plain JSON-RPC, no envelope)');
  assert.ok((await floor.measure(100, 1)).opsPerSec > 0);
  assert.deepEqual(await floor.close(), { listenerWarnings: 0 });
});

test('a contender its suite does not know rejects with the suite\'s message', { timeout: 120_000 }, async () => {
  await assert.rejects(hosted('stdio', 'nope', 'tsx'), /stdio\/nope: RangeError: stdio contenders are rxmcp, sdk, sdk2, tmcp, floor, not nope/);
});
