// @serial: the runner's own spec checks that this file runs with no other file running
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { record, traceLines } from './meet.ts';

test('serial.ts runs alone, after the concurrent files', () => {
  record('start', import.meta.filename);
  const lines = traceLines();
  const peers = Number(process.env['RUNNER_FIXTURE_PEERS']);
  assert.equal(lines.filter((line) => line.startsWith('start concurrent-')).length, peers, 'every concurrent file has started');
  assert.equal(lines.filter((line) => line.startsWith('end concurrent-')).length, peers, 'and ended');
  record('end', import.meta.filename);
});
