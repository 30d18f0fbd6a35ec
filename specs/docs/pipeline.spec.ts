/**
 * The architecture picture is data held against the code: docs/pipeline/pipeline.svg is what
 * scripts/draw-pipeline.ts draws from docs/pipeline/pipeline.json, and every file the picture or the design
 * card's table in docs/architecture.md names exists.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PICTURE, draw, readPipeline } from '../../scripts/draw-pipeline.ts';

const root = join(import.meta.dirname, '..', '..');

test('docs - the pipeline picture is what its source draws (run tsx scripts/draw-pipeline.ts after editing the JSON)', () => {
  assert.equal(readFileSync(PICTURE, 'utf8'), draw(readPipeline()));
});

test('docs - every file a stage of the pipeline names exists, and every link joins two stages', () => {
  const pipeline = readPipeline();
  const ids = new Set(pipeline.stages.map((stage) => stage.id));
  for (const stage of pipeline.stages) for (const file of stage.files) assert.ok(existsSync(join(root, file)), `${stage.id}: ${file} exists`);
  for (const link of [...pipeline.flows, ...pipeline.controls]) assert.ok(ids.has(link.from) && ids.has(link.to), `${link.from} -> ${link.to}`);
});

test('docs - architecture.md opens with the picture, and every path in its design-card table exists', () => {
  const page = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
  assert.match(page, /^# .*\n[\s\S]*?## The pipeline\n\n!\[[^\]]+\]\(pipeline\/pipeline\.svg\)/);
  const table = page.slice(page.indexOf('## The design card'), page.indexOf('## Rooms'));
  const paths = [...table.matchAll(/`((?:core|actors|machines|session|server|client|transports)\/[^`]*)`/g)].map((match) => match[1] ?? '');
  assert.ok(paths.length >= 10, `the table names files (${paths.length})`);
  for (const path of paths) assert.ok(existsSync(join(root, path)), `${path} exists`);
});
