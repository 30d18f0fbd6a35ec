/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time, with their
 * file:line. For finding hotspots, e.g. after `ping-roundtrip.ts --profile=rxmcp`.
 *
 *   npx tsx bench/cpuprofile-top.ts <file.cpuprofile> [--top=25] [--maps=<maps.json>] [--callers] [--inclusive]
 *        [--under=transports/nats]
 *
 * `--inclusive` adds the repo functions with the most total time (self plus everything they called), and the
 * split of the busy (non-idle) time between the repo's code, node_modules, node's internals and natives.
 * `--under=<path>` adds the repo functions under that path (e.g. `transports/nats`) by total time, each with
 * what it spent in its direct callees (everything below them, by callee), so that a layer's own costs show apart
 * from the layers it calls.
 * `--callers` adds a second table: the self time of natives (`set natives`, `get name`, ...) and of tsx's
 * `__name` helper, charged to the nearest repo function above them in the stack (who paid for them).
 *
 * Under tsx every module is one line of generated code, so positions are resolved through the source maps
 * the profiled process wrote (`--maps`, see bench/source-maps.ts); without them a tsx frame shows as `:1`.
 * A function is placed at the line where it is defined.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { argInt, argValue, fmt, hasFlag, repoRoot } from './lib.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber: number };
  readonly hitCount?: number;
  readonly children?: readonly number[];
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

const mapsFile = argValue('maps');
const payloads = mapsFile === undefined ? {} : (JSON.parse(readFileSync(mapsFile, 'utf8')) as Record<string, SourceMapPayload>);
const sourceMaps = new Map(Object.entries(payloads).map(([url, payload]) => [url, new SourceMap(payload)]));

const where = (frame: ProfileNode['callFrame']): string => {
  if (frame.url === '') return '(native)';
  const path = frame.url.startsWith('file:') ? relative(repoRoot, fileURLToPath(frame.url)) : frame.url;
  const entry = sourceMaps.get(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  const line = entry !== undefined && 'originalLine' in entry ? entry.originalLine : frame.lineNumber;
  return `${path}:${line + 1}`;
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

if (hasFlag('callers')) {
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const ownCode = (node: ProfileNode): boolean =>
    node.callFrame.url.startsWith('file:') && !node.callFrame.url.includes('/node_modules/') && node.callFrame.functionName !== '__name';
  const special = new Set(['(garbage collector)', '(idle)', '(program)', '(root)']);
  const charged = new Map<string, number>();
  let helperUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id);
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (node === undefined || special.has(node.callFrame.functionName) || ownCode(node)) return;
    if (node.callFrame.url !== '' && node.callFrame.functionName !== '__name') return;
    let up = parent.get(node.id);
    while (up !== undefined && !ownCode(up)) up = parent.get(up.id);
    const payer = up === undefined ? '(no repo caller)' : `${up.callFrame.functionName || '(anonymous)'}  ${where(up.callFrame)}`;
    const key = `${node.callFrame.functionName || '(anonymous)'}  <-  ${payer}`;
    charged.set(key, (charged.get(key) ?? 0) + delta);
    helperUs += delta;
  });
  console.log(`\nnatives and __name (${fmt((100 * helperUs) / totalUs, 1)} % in all), charged to the nearest repo caller:`);
  for (const [key, us] of [...charged].sort((a, b) => b[1] - a[1]).slice(0, argInt('top', 25))) {
    console.log(`  ${fmt((100 * us) / totalUs, 1).padStart(5)} %  ${fmt(us / 1000, 1).padStart(8)} ms  ${key}`);
  }
}

if (hasFlag('inclusive')) {
  const parentOf = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const isRepo = (node: ProfileNode): boolean => node.callFrame.url.startsWith('file:') && !node.callFrame.url.includes('/node_modules/');
  const bucketOf = (node: ProfileNode): string =>
    isRepo(node) ? 'repo code (self)' : node.callFrame.url.includes('/node_modules/') ? 'node_modules (self)'
      : node.callFrame.url.startsWith('node:') ? 'node internals (self)' : 'natives, GC, program (self)';
  const total = new Map<string, number>();
  const buckets = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id);
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    busyUs += delta;
    buckets.set(bucketOf(node), (buckets.get(bucketOf(node)) ?? 0) + delta);
    const seen = new Set<string>();
    for (let up: ProfileNode | undefined = node; up !== undefined; up = parentOf.get(up.id)) {
      if (!isRepo(up) || up.callFrame.functionName === '__name') continue;
      const key = `${up.callFrame.functionName || '(anonymous)'}  ${where(up.callFrame)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + delta);
    }
  });
  console.log(`\nbusy (non-idle) time ${fmt(busyUs / 1000, 0)} ms, by where the samples were:`);
  for (const [bucket, us] of [...buckets].sort((a, b) => b[1] - a[1])) console.log(`  ${fmt((100 * us) / busyUs, 1).padStart(5)} %  ${bucket}`);
  console.log('\nrepo functions by total time (self + callees), % of busy time:');
  for (const [key, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, argInt('top', 25))) {
    console.log(`  ${fmt((100 * us) / busyUs, 1).padStart(5)} %  ${fmt(us / 1000, 1).padStart(8)} ms  ${key}`);
  }
}

const under = argValue('under');
if (under !== undefined) {
  const parentOf = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const keyOf = (node: ProfileNode): string => `${node.callFrame.functionName || '(anonymous)'}  ${where(node.callFrame)}`;
  const inside = (node: ProfileNode): boolean => node.callFrame.url.startsWith('file:') && where(node.callFrame).startsWith(under);
  // Per function under the path: total time (recursion counted once), its self time, and its time per direct callee.
  const totals = new Map<string, { total: number; self: number; callees: Map<string, number> }>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const node = byNode.get(id);
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    busyUs += delta;
    const seen = new Set<string>();
    let below: ProfileNode | undefined;
    for (let up: ProfileNode | undefined = node; up !== undefined; below = up, up = parentOf.get(up.id)) {
      if (!inside(up) || up.callFrame.functionName === '__name') continue;
      const key = keyOf(up);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = totals.get(key) ?? { total: 0, self: 0, callees: new Map<string, number>() };
      totals.set(key, entry);
      entry.total += delta;
      if (below === undefined) entry.self += delta;
      else entry.callees.set(keyOf(below), (entry.callees.get(keyOf(below)) ?? 0) + delta);
    }
  });
  const pct = (us: number): string => `${fmt((100 * us) / busyUs, 1).padStart(5)} %`;
  const ownSelf = [...totals.values()].reduce((sum, entry) => sum + entry.self, 0);
  console.log(`\nself time of the functions under ${under}: ${pct(ownSelf).trim()} of busy time (${fmt(ownSelf / 1000, 0)} ms)`);
  console.log(`functions under ${under} by total time, % of busy time (${fmt(busyUs / 1000, 0)} ms), with self time and the direct callees they spent it in:`);
  for (const [key, entry] of [...totals].sort((a, b) => b[1].total - a[1].total).slice(0, argInt('top', 25))) {
    console.log(`  ${pct(entry.total)}  ${fmt(entry.total / 1000, 1).padStart(8)} ms  ${key}  (self ${pct(entry.self).trim()})`);
    for (const [callee, us] of [...entry.callees].sort((a, b) => b[1] - a[1]).slice(0, 6)) {
      if (us / busyUs >= 0.002) console.log(`             ${pct(us)}  -> ${callee}`);
    }
  }
}
