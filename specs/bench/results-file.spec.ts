/**
 * A partial benchmark run keeps what it did not measure: sections written by hand stay, even when their titles
 * begin like a part's ("NATS near the floor"), and the Reliability section (put back by `npm run fuzz`'s owner
 * code) is not kept twice.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readPreviousReport } from '../../bench/results-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'rxmcp-results-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const report = [
  '# Benchmark results',
  '## Charts\nimages',
  '## NATS: `tools/call` over the NATS binding\nnats figures',
  '## NATS method\nhow',
  '## NATS near the floor (issue 20)\nby hand',
  '## Modern era (2026-07-28): `tools/call` over stdio and Streamable HTTP\nmodern figures',
  '## Modern era as lean as legacy (issue 20)\nby hand too',
  '## Scale\nscale figures',
  '## Capacity model (docs/deploy.md)\nmodel',
  '## Commands run\n- `node --import tsx bench/nats-calls.ts --rounds=5`',
  '## Reliability\nfuzz',
].join('\n\n');

test('sections by hand stay, parts keep only the headings they write, Reliability is left to its owner', () => {
  const file = join(dir, 'RESULTS.md');
  writeFileSync(file, report);
  const previous = readPreviousReport(file);
  assert.match(previous.sections.nats, /nats figures/);
  assert.match(previous.sections.nats, /## NATS method/);
  assert.doesNotMatch(previous.sections.nats, /by hand/);
  assert.match(previous.sections.modern, /modern figures/);
  assert.doesNotMatch(previous.sections.modern, /by hand too/);
  assert.match(previous.sections.scale, /scale figures/);
  assert.match(previous.byHand, /## NATS near the floor \(issue 20\)\n/);
  assert.match(previous.byHand, /## Modern era as lean as legacy \(issue 20\)\n/);
  assert.match(previous.byHand, /## Capacity model/);
  assert.doesNotMatch(previous.byHand, /Reliability|## Charts/);
  assert.deepEqual(previous.commands.nats, ['node --import tsx bench/nats-calls.ts --rounds=5']);
});
