/**
 * All benchmarks, rxmcp against the official SDK 1.x: the foundation (ping round trips, heap per idle
 * session; bench/foundation.ts) and the features (tools/call, tools/list scaling; bench/features.ts). Each
 * benchmark runs in fresh child processes; the report goes to bench/RESULTS.md. `npm run bench` runs this.
 *
 *   npx tsx bench/run.ts [--rounds=7] [--count=20000] [--warmup=5000] [--n=10000] [--no-suite] [--no-strip]
 *                        [--call-rounds=7] [--call-count=20000] [--call-warmup=5000] [--window=64]
 *                        [--list-sessions=1,100,1000] [--no-foundation] [--no-features]
 *
 * The headline figures run the sources under tsx, as the project runs them; unless `--no-strip`, the
 * ping, heap and tools/call figures are measured again with types stripped only (bench/strip-types.mjs).
 * A benchmark, not a test: it reports the figures against their targets and never fails on them.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { featuresMarkdown, measureFeatures } from './features.ts';
import { foundationMarkdown, measureFoundation } from './foundation.ts';
import { type Loader, argInt, argValue, fmt, hasFlag, repoRoot } from './lib.ts';

const suite = !hasFlag('no-suite');
const loaders: Loader[] = hasFlag('no-strip') ? ['tsx'] : ['tsx', 'strip'];
const withFoundation = !hasFlag('no-foundation');
const withFeatures = !hasFlag('no-features');
const listSessions = argValue('list-sessions');

const invocation = ['npx tsx bench/run.ts', ...process.argv.slice(2)].join(' ');
const startedAt = new Date();
const loadBefore = os.loadavg();

const foundation = withFoundation
  ? await measureFoundation({ rounds: argInt('rounds', 7), count: argInt('count', 20_000), warmup: argInt('warmup', 5_000), n: argInt('n', 10_000), suite, loaders })
  : undefined;
const features = withFeatures
  ? await measureFeatures({ rounds: argInt('call-rounds', 7), count: argInt('call-count', 20_000), warmup: argInt('call-warmup', 5_000), window: argInt('window', 64), suite, loaders, ...(listSessions === undefined ? {} : { listSessions }) })
  : undefined;
const loadAfter = os.loadavg();

const parts = [foundation === undefined ? undefined : foundationMarkdown(foundation), features === undefined ? undefined : featuresMarkdown(features)]
  .filter((part) => part !== undefined);
const cpu = os.cpus();
const skipped = [withFoundation ? '' : 'foundation', withFeatures ? '' : 'features'].filter((s) => s !== '');

const markdown = `# Benchmark results

Produced by \`npm run bench\` (that is \`${invocation}\`)${skipped.length > 0 ? `; skipped: ${skipped.join(', ')}` : ''}.
Foundation: \`ping\` round trips and heap per idle session. Features: \`tools/call\` and \`tools/list\` scaling.

- Date: ${startedAt.toISOString()}
- Node: ${process.version} (${process.platform} ${process.arch}, V8 ${process.versions.v8})
- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${fmt(os.totalmem() / 1024 ** 3, 1)} GiB RAM
- Load average (1/5/15 min) before: ${loadBefore.map((l) => fmt(l)).join(' / ')}, after: ${loadAfter.map((l) => fmt(l)).join(' / ')}
  (a shared machine: wall-clock figures are noisier than CPU figures)

${parts.map((part) => part.sections).join('\n')}
## Commands run

${parts.flatMap((part) => part.commands).map((c) => `- \`${c}\``).join('\n')}
`;

const file = join(repoRoot, 'bench/RESULTS.md');
writeFileSync(file, markdown);
console.log(`\nwrote ${file}`);
