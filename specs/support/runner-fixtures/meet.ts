/**
 * What the fixture spec files of specs/scripts/run-specs.spec.ts do: record when they start and end in a trace file
 * (RUNNER_FIXTURE_TRACE), and, for the concurrent ones, wait until RUNNER_FIXTURE_PEERS of them have started, which
 * only happens when the runner runs them side by side (the wait is bounded, so one at a time fails instead).
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const MEET_WITHIN_MS = 20_000;

function trace(): string {
  const path = process.env['RUNNER_FIXTURE_TRACE'];
  assert.ok(path !== undefined && path !== '', 'RUNNER_FIXTURE_TRACE names the trace file');
  return path;
}

export const traceLines = (): string[] => readFileSync(trace(), 'utf8').split('\n').filter((line) => line !== '');

export function record(event: 'start' | 'end', file: string): void {
  appendFileSync(trace(), `${event} ${basename(file)}\n`);
}

/** A test that starts, waits for its peers to have started too, and ends. */
export function meetPeers(file: string): void {
  test(`${basename(file)} meets its peers`, async () => {
    const peers = Number(process.env['RUNNER_FIXTURE_PEERS']);
    record('start', file);
    const deadline = Date.now() + MEET_WITHIN_MS;
    while (traceLines().filter((line) => line.startsWith('start concurrent-')).length < peers) {
      assert.ok(Date.now() < deadline, `${peers} fixture files did not all start within ${MEET_WITHIN_MS} ms: they ran one at a time`);
      await sleep(20);
    }
    record('end', file);
  });
}
