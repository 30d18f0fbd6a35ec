/** The accounting every load spec checks: in every scope, sent = ok + errors + wrong + hung, and the parts agree. */
import assert from 'node:assert/strict';
import type { Counts, LoadResult } from '../../load/index.ts';

const sum = (record: Readonly<Record<string, number>>): number => Object.values(record).reduce((total, value) => total + value, 0);

export function assertCountsAddUp(counts: Counts, scope: string): void {
  assert.equal(counts.sent, counts.ok + counts.errors + counts.wrong + counts.hung, `${scope}: sent ${counts.sent} = ok ${counts.ok} + errors ${counts.errors} + wrong ${counts.wrong} + hung ${counts.hung}`);
  assert.equal(sum(counts.errorsByCode), counts.errors, `${scope}: errors by code add up to the errors`);
  assert.equal(sum(counts.wrongByReason), counts.wrong, `${scope}: wrong by reason add up to the wrong`);
}

/** Every scope of a result adds up, and the scopes add up to each other. */
export function assertBooks(result: LoadResult): void {
  assertCountsAddUp(result, 'total');
  assertCountsAddUp(result.warmup, 'warm-up');
  for (const era of result.byEra) assertCountsAddUp(era, `era ${era.era}`);
  for (const window of result.windows) assertCountsAddUp(window, `window ${window.label}`);
  if (result.byEra.length > 1) assert.equal(result.byEra.reduce((total, era) => total + era.sent, 0), result.sent, 'the eras add up to the total');
  assert.equal(result.windows.reduce((total, window) => total + window.sent, 0), result.sent + result.warmup.sent, 'the windows add up to the total and the warm-up');
  const lostCodes = ['ConnectionClosed', 'TransportFailed', 'RequestAborted'];
  const lostByCode = lostCodes.reduce((total, code) => total + (result.errorsByCode[code] ?? 0), 0);
  assert.equal(result.lost, result.hung + lostByCode, 'lost = hung + calls whose connection went away');
  assert.equal(result.latency.count, result.ok + result.errors + result.wrong, 'every answered call has a latency');
}
