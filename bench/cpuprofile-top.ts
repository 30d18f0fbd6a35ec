/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time, with their
 * file:line. For finding hotspots, e.g. after `ping-roundtrip.ts --profile=rxmcp`.
 *
 *   npx tsx bench/cpuprofile-top.ts <file.cpuprofile> [--top=25]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argInt, fmt, repoRoot } from './lib.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly hitCount?: number;
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const file = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
if (file === undefined) throw new Error('usage: bench/cpuprofile-top.ts <file.cpuprofile> [--top=25]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const where = (frame: ProfileNode['callFrame']): string => {
  if (frame.url === '') return '(native)';
  const path = frame.url.startsWith('file:') ? relative(repoRoot, fileURLToPath(frame.url)) : frame.url;
  return `${path}:${frame.lineNumber + 1}`;
};

// Self time per node: each sample is charged the time delta that follows it.
const byNode = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<string, number>();
let totalUs = 0;
profile.samples.forEach((id, i) => {
  const node = byNode.get(id);
  const delta = profile.timeDeltas[i + 1] ?? 0;
  if (node === undefined) return;
  const key = `${node.callFrame.functionName || '(anonymous)'}  ${where(node.callFrame)}`;
  selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
  totalUs += delta;
});

const top = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, argInt('top', 25));
console.log(`self time, ${fmt(totalUs / 1000, 0)} ms sampled:`);
for (const [key, us] of top) console.log(`  ${fmt((100 * us) / totalUs, 1).padStart(5)} %  ${fmt(us / 1000, 1).padStart(8)} ms  ${key}`);
