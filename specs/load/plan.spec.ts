/**
 * The parts of a run that need no server: the open-loop schedule (exact due times: constant, ramped, stepped),
 * the closed loop's concurrency, the placeholders, workload files and the command line's fault and step forms,
 * with their mistakes named.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Schedule } from '../../load/schedule.ts';
import { compileText, compileValue } from '../../load/templates.ts';
import { parseFaultFlag, parseStepsFlag, parseWorkload } from '../../load/workload.ts';
import { parseBytes, parseDuration, parseFraction } from '../../load/units.ts';
import { resolveOptions } from '../../load/options.ts';

const dueTimes = (schedule: Schedule): number[] => {
  const times: number[] = [];
  for (let k = 0; ; k++) {
    const at = schedule.timeOf(k);
    if (at === undefined) return times;
    times.push(at);
  }
};

test('schedule - a constant rate: call k due at k / rate exactly, none past the end, no drift', () => {
  const schedule = new Schedule({ warmupMs: 0, rampMs: 0, steps: [{ level: 200, durationMs: 1000 }] });
  const times = dueTimes(schedule);
  assert.equal(times.length, 200);
  times.forEach((at, k) => assert.ok(Math.abs(at - k * 5) < 1e-9, `call ${k} at ${at}`));
  assert.equal(schedule.totalCalls, 200);
  assert.equal(schedule.callsBefore(500), 100);
});

test('schedule - a ramp from nothing: calls due as the integral of the rate says (quadratic), then steady', () => {
  const schedule = new Schedule({ warmupMs: 0, rampMs: 1000, steps: [{ level: 100, durationMs: 2000 }] });
  const times = dueTimes(schedule);
  // Over the ramp 100 t^2 / 2 calls are due by t (s): 50 in the first second, then 100 more in the next.
  assert.equal(times.filter((at) => at < 1000).length, 50);
  assert.equal(times.length, 150);
  assert.ok(Math.abs((times[8] ?? 0) - Math.sqrt(8 * 2 / 100) * 1000) < 1e-6, 'call 8 at sqrt(2k / rate)');
  assert.equal(schedule.levelAt(500), 50);
});

test('schedule - steps after a warm-up at the first level; a closed loop asks for each step\'s concurrency', () => {
  const schedule = new Schedule({ warmupMs: 500, rampMs: 0, steps: [{ level: 100, durationMs: 1000 }, { level: 300, durationMs: 1000 }] });
  assert.deepEqual(schedule.stepStarts, [500, 1500]);
  assert.equal(schedule.endMs, 2500);
  const times = dueTimes(schedule);
  assert.equal(times.filter((at) => at < 500).length, 50, 'the warm-up at the first level');
  assert.equal(times.filter((at) => at >= 1500).length, 300);
  assert.equal(schedule.callsBefore(2500) - schedule.callsBefore(500), 400);
  assert.equal(schedule.concurrencyAt(100), 100);
  assert.equal(schedule.concurrencyAt(2000), 300);
  const ramped = new Schedule({ warmupMs: 0, rampMs: 1000, steps: [{ level: 8, durationMs: 2000 }] });
  assert.equal(ramped.concurrencyAt(0), 1, 'at least one in flight');
  assert.equal(ramped.concurrencyAt(500), 4);
});

test('templates - the token, sequence, session, random and padding placeholders, filled per call', () => {
  const text = compileText('a{{token}}b{{seq}}c{{ session }}d{{pad:3}}e');
  assert.ok(text !== undefined);
  assert.equal(text({ token: 'T_', seq: 7, session: 2 }), 'aT_b7c2dxxxe');
  assert.equal(compileText('plain'), undefined, 'a text without placeholders is used as it is');
  const random = compileText('{{random:3}}');
  for (let i = 0; i < 20; i++) assert.match(random?.({ token: '', seq: 0, session: 0 }) ?? '', /^[012]$/);
  const value = compileValue({ a: '{{token}}', b: 3, c: ['x', '{{seq}}'] });
  assert.deepEqual(value({ token: 'T', seq: 5, session: 0 }), { a: 'T', b: 3, c: ['x', '5'] });
  const constant = { a: 1 };
  assert.equal(compileValue(constant)({ token: '', seq: 0, session: 0 }), constant, 'the same object when nothing is generated');
  assert.throws(() => compileText('{{pad:999999999}}'), /takes N up to/);
});

test('workload - a YAML file: durations, steps, churn, operations in short and long forms, faults', () => {
  const workload = parseWorkload(
    `warmup: 2s
steps:
  - { rate: 100, duration: 10s }
  - { rate: 200, duration: 500ms }
sessions: 4
churn: { calls: 1000, after: 1m }
hangAfter: 3s
operations:
  - { call: echo, arguments: { message: "{{token}}" }, expect: "Echo: {{token}}", weight: 8 }
  - { list: tools }
  - { method: resources/read, uri: "demo://x" }
  - { prompt: p, arguments: { a: b } }
  - { ping: true, weight: 0.5 }
faults:
  - { kill: 10s, restartAfter: 1s }
  - { pause: 5s, for: 2s }
  - { drop: 8s }
`,
    'soak.yaml',
  );
  assert.equal(workload.warmupMs, 2000);
  assert.deepEqual(workload.steps, [{ rate: 100, durationMs: 10_000 }, { rate: 200, durationMs: 500 }]);
  assert.deepEqual(workload.churn, { calls: 1000, afterMs: 60_000 });
  assert.equal(workload.hangMs, 3000);
  assert.deepEqual(workload.operations, [
    { method: 'tools/call', tool: 'echo', arguments: { message: '{{token}}' }, expect: 'Echo: {{token}}', weight: 8 },
    { method: 'tools/list' },
    { method: 'resources/read', uri: 'demo://x' },
    { method: 'prompts/get', prompt: 'p', arguments: { a: 'b' } },
    { method: 'ping', weight: 0.5 },
  ]);
  assert.deepEqual(workload.faults, [{ kind: 'kill', atMs: 10_000, restartAfterMs: 1000 }, { kind: 'pause', atMs: 5000, forMs: 2000 }, { kind: 'drop', atMs: 8000 }]);
  assert.deepEqual(parseWorkload('{"rate": 5, "duration": "3s"}', 'w.json'), { durationMs: 3000, rate: 5 });
});

test('workload - mistakes name the key, echo the value and say what would do', () => {
  assert.throws(() => parseWorkload('durration: 5s'), /unknown key "durration" \(known: duration, warmup/);
  assert.throws(() => parseWorkload('duration: soon'), /duration must be a duration such as 30s, 500ms, 2m or 1h, got "soon"/);
  assert.throws(() => parseWorkload('operations: [{ colll: echo }]'), /operations\[0\]: say what it sends: call: <tool>/);
  assert.throws(() => parseWorkload('faults: [{ explode: 1s }]'), /faults\[0\]: a fault is \{ kill: <when>/);
  assert.throws(() => parseWorkload('rate: -3'), /rate: must be a positive number, got -3/);
  assert.throws(() => parseWorkload('{ nope', 'w.json'), /w\.json could not be read/);
});

test('flags - faults, steps, durations, sizes and fractions in their command-line forms', () => {
  assert.deepEqual(parseFaultFlag('kill@10s+1.5s'), { kind: 'kill', atMs: 10_000, restartAfterMs: 1500 });
  assert.deepEqual(parseFaultFlag('kill@2s'), { kind: 'kill', atMs: 2000 });
  assert.deepEqual(parseFaultFlag('pause@5s:500ms'), { kind: 'pause', atMs: 5000, forMs: 500 });
  assert.deepEqual(parseFaultFlag('drop@8s'), { kind: 'drop', atMs: 8000 });
  assert.throws(() => parseFaultFlag('explode@1s'), /a fault is kill@WHEN\[\+RESTART_AFTER\], pause@WHEN:FOR or drop@WHEN .*got "explode@1s"/);
  assert.throws(() => parseFaultFlag('pause@1s+2s'), /a pause fault takes :FOR/);
  assert.deepEqual(parseStepsFlag('100:10s, 200:1m', 'rate'), [{ rate: 100, durationMs: 10_000 }, { rate: 200, durationMs: 60_000 }]);
  assert.throws(() => parseStepsFlag('100', 'rate'), /steps are LEVEL:DURATION/);
  assert.equal(parseDuration('1.5m'), 90_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseBytes('2MB'), 2 * 1024 * 1024);
  assert.equal(parseFraction('0.5%'), 0.005);
  assert.equal(parseFraction('0.02'), 0.02);
  assert.throws(() => parseFraction('150%'), /must be a percentage such as 1%/);
});

test('options - what cannot work together is refused before anything is opened', () => {
  const target = { url: 'http://127.0.0.1:9/mcp' };
  assert.throws(() => resolveOptions({ target, rate: 10, concurrency: 2 }), /give rate \(open loop\) or concurrency \(closed loop\), not both/);
  assert.throws(() => resolveOptions({ target, faults: [{ kind: 'kill', atMs: 1000 }] }), /a kill fault needs the server's process: a stdio target \(-- <command>\) or its pid/);
  assert.throws(() => resolveOptions({ target, era: 'both', operations: [{ method: 'ping' }] }), /ping does not exist in revision 2026-07-28/);
  assert.throws(() => resolveOptions({ target, durationMs: 1000, faults: [{ kind: 'drop', atMs: 5000 }] }), /comes after the run's end/);
  assert.throws(() => resolveOptions({ target, steps: [{ rate: 1, durationMs: 1 }, { concurrency: 2, durationMs: 1 }] }), /every step gives a rate/);
  const resolved = resolveOptions({ target });
  assert.equal(resolved.mode, 'open');
  assert.deepEqual(resolved.steps, [{ level: 100, durationMs: 10_000 }]);
  assert.deepEqual(resolved.eras, ['auto']);
});
