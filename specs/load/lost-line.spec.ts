/**
 * The summary's loss line (`rxmcp load`, the HTML report's badge): calls the warm-up lost are reported, so a
 * server that hangs on its first calls never reads as one that lost nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lostAny, lostLine } from '../../load/summary.ts';
import type { Counts } from '../../load/tally.ts';

const counts = (sent: number, extra: Partial<Counts> = {}): Counts => ({ sent, ok: sent, errors: 0, wrong: 0, hung: 0, errorsByCode: {}, wrongByReason: {}, ...extra });

test('load summary - nothing lost anywhere: the one happy line', () => {
  const run = { ...counts(1000), lost: 0, plan: { hangMs: 10_000 }, warmup: counts(200) };
  assert.equal(lostLine(run), 'nothing lost: every one of the 1,000 calls sent was answered');
  assert.equal(lostAny(run), false);
});

test('load summary - calls the warm-up lost are reported though the measured part lost none', () => {
  const warmup = counts(200, { ok: 150, hung: 40, errors: 10, errorsByCode: { ConnectionClosed: 10 } });
  const run = { ...counts(1000), lost: 0, plan: { hangMs: 10_000 }, warmup };
  const line = lostLine(run);
  assert.doesNotMatch(line, /every one of/);
  assert.match(line, /^nothing lost of the 1,000 measured calls; the warm-up lost 50 of its 200 calls: 10 failed when their connection went away, 40 hung \(no answer within 10\.0 s\)$/);
  assert.equal(lostAny(run), true);
});

test('load summary - measured losses and warm-up losses in one line', () => {
  const run = { ...counts(1000, { ok: 990, hung: 10 }), lost: 10, plan: { hangMs: 2000 }, warmup: counts(100, { ok: 99, hung: 1 }) };
  assert.match(lostLine(run), /^lost 10 of 1,000 calls: 10 hung \(no answer within [^)]+\); the warm-up lost 1 of its 100 calls: 1 hung/);
  assert.equal(lostAny(run), true);
});
