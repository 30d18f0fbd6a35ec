/**
 * Correctness under load, against a server built to be wrong (fixtures/tricky-server.mjs): one that swaps the
 * answers of concurrent calls is caught as `wrong` ("another call's answer"), one that answers twice is caught on
 * the wire as duplicate answers, and the command fails (exit 1) with the line that says so. The same workload
 * against the same program answering rightly is all ok.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { runRxmcp } from '../../cli/main.ts';
import { runLoad } from '../../load/index.ts';
import { killChildren } from '../support/interop-processes.ts';
import { assertBooks } from './books.ts';
import { trickyChild } from './processes.ts';

after(async () => {
  await killChildren();
});

const echo = { method: 'tools/call', tool: 'echo', arguments: { message: '{{token}}' }, expect: 'Echo: {{token}}' } as const;

test('load - the program answering rightly: every call ok (the control for the specs below)', async () => {
  const result = await runLoad({ target: trickyChild(), era: 'legacy', concurrency: 4, durationMs: 800, operations: [echo], hangMs: 3000 });
  assertBooks(result);
  assert.ok(result.sent > 20);
  assert.equal(result.ok, result.sent);
  assert.equal(result.wrong, 0);
});

test('load - a server that swaps the answers of concurrent calls is caught: wrong, as another call\'s answer, with examples', async () => {
  const result = await runLoad({ target: trickyChild('--swap'), era: 'legacy', concurrency: 4, durationMs: 800, operations: [echo], hangMs: 3000 });
  assertBooks(result);
  assert.ok(result.wrong > 10, `${result.wrong} wrong of ${result.sent}`);
  assert.equal(result.wrongByReason["another call's answer"], result.wrong);
  const sample = result.byEra[0]?.wrongSamples[0];
  assert.ok(sample !== undefined);
  assert.match(sample.expected, /^Echo: \d+-0-\d+_$/);
  assert.match(sample.got, /^Echo: \d+-0-\d+_$/);
  assert.notEqual(sample.expected, sample.got);
  // Without --expect the default check (the answer holds the call's token) catches it too.
  const loose = await runLoad({ target: trickyChild('--swap'), era: 'legacy', concurrency: 4, durationMs: 500, hangMs: 3000 });
  assertBooks(loose);
  assert.deepEqual(loose.plan.operations, ['tools/call echo']);
  assert.ok(loose.wrong > 5 && loose.wrongByReason["another call's answer"] === loose.wrong, JSON.stringify(loose.wrongByReason));
});

test('load - a server that answers every call twice: each call counted once (ok), the second answers caught as duplicates', async () => {
  const result = await runLoad({ target: trickyChild('--duplicate'), era: 'legacy', rate: 100, durationMs: 800, operations: [echo], hangMs: 3000 });
  assertBooks(result);
  assert.equal(result.ok, result.sent, 'the first answer of each call is right');
  assert.ok(result.sent >= 79);
  assert.equal(result.answers.duplicate, result.sent, 'one duplicate per call');
  assert.equal(result.answers.unknownId, 0);
});

test('load - the command fails a run with wrong answers, saying why (exit 1), and one with duplicates', async () => {
  const run = async (flags: string): Promise<{ code: number; stdout: string; stderr: string }> => {
    let stdout = '';
    let stderr = '';
    const { code } = await runRxmcp(['load', '--concurrency', '4', '--duration', '600ms', '--era', 'legacy', '-q', '--', ...trickyCommand(flags)], {
      out: (text) => (stdout += `${text}\n`),
      err: (text) => (stderr += `${text}\n`),
    });
    return { code, stdout, stderr };
  };
  const swapped = await run('--swap');
  assert.equal(swapped.code, 1, swapped.stderr);
  assert.match(swapped.stdout, /WRONG ANSWERS: [\d,]+ \(another call's answer [\d,]+\)/);
  assert.match(swapped.stderr, /rxmcp load: BROKEN: wrong answers: [\d,]+ of [\d,]+ calls/);
  const doubled = await run('--duplicate');
  assert.equal(doubled.code, 1, doubled.stderr);
  assert.match(doubled.stderr, /BROKEN: answers not matching a request: [\d,]+ duplicate, 0 with an unknown id/);
  const right = await run('');
  assert.equal(right.code, 0, right.stderr);
  assert.match(right.stdout, /nothing lost: every one of the [\d,]+ calls sent was answered/);
});

function trickyCommand(flags: string): string[] {
  const child = trickyChild(...flags.split(' ').filter((flag) => flag !== ''));
  return [child.command, ...child.args];
}
