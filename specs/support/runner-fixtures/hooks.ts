/**
 * What the batched fixture files of specs/scripts/run-specs.spec.ts do: a `before` and an `after` at the top of the
 * file and two tests, each recording itself and its process id in the trace file (RUNNER_FIXTURE_TRACE), so the
 * spec can tell which files shared a process and whether each file's hooks ran around its own tests.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { basename } from 'node:path';
import { after, before, test } from 'node:test';

function note(file: string, what: string): void {
  const path = process.env['RUNNER_FIXTURE_TRACE'];
  assert.ok(path !== undefined && path !== '', 'RUNNER_FIXTURE_TRACE names the trace file');
  appendFileSync(path, `${process.pid} ${basename(file)} ${what}\n`);
}

export function hookedFile(file: string): void {
  let ready = false;
  before(() => {
    ready = true;
    note(file, 'before');
  });
  after(() => note(file, 'after'));
  test(`${basename(file)} first`, () => {
    assert.ok(ready, "the file's own before ran first");
    note(file, 'first');
  });
  test(`${basename(file)} second`, () => note(file, 'second'));
}
