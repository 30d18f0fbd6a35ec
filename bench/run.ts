/**
 * All benchmarks, rxmcp against the official SDK 1.x: the foundation (ping round trips, heap per idle
 * session; bench/foundation.ts), the features (tools/call, tools/list scaling; bench/features.ts) and the
 * transports (tools/call over stdio and HTTP, memory per idle HTTP session; bench/transports.ts); the modern
 * era (revision 2026-07-28 tools/call over stdio and HTTP, rxmcp against the official SDK 2.x; bench/modern.ts);
 * NATS (tools/call over the NATS binding against raw nats.js floors, with a scale-out over server processes;
 * bench/nats.ts, which starts its own nats-server); scale (100,000 idle sessions, 10,000 session pairs, a churn of
 * 1,000,000 sessions, 10,000 idle HTTP sessions; bench/scale.ts); and micro benchmarks (codecs, validation,
 * routing; bench/micro.ts). Each benchmark runs in fresh child processes; the report goes to bench/RESULTS.md, its
 * charts (SVG) to bench/charts/ (bench/results-charts.ts). `npm run bench` runs this, all parts.
 *
 *   npx tsx bench/run.ts [--only=foundation,features,transports,modern,nats,scale,micro]
 *                        [--no-foundation] [--no-features] [--no-transports] [--no-modern] [--no-nats] [--no-scale] [--no-micro]
 *                        [--rounds=7] [--count=20000] [--warmup=5000] [--n=10000] [--no-suite] [--no-strip]
 *                        [--call-rounds=7] [--call-count=20000] [--call-warmup=5000] [--window=64]
 *                        [--list-sessions=1,100,1000]
 *                        [--stdio-rounds=7] [--stdio-count=20000] [--stdio-warmup=5000]
 *                        [--http-rounds=5] [--http-count=5000] [--http-warmup=1000] [--http-sessions=200]
 *                        [--http-session-count=10000] [--idle-sessions=2000]
 *                        [--modern-rounds=7] [--modern-sample-ms=400] [--modern-warmup-ms=1500] [--modern-levels=1,8,64]
 *                        [--nats-rounds=5] [--nats-sample-ms=1000] [--nats-warmup-ms=1500] [--nats-levels=1,64]
 *                        [--nats-scale=1,2,3|none] [--nats-clients=4]
 *                        [--scale-only=idle,pairs,churn,http] [--idle-n=100000] [--sdk-idle-max=100000] [--pairs=10000]
 *                        [--pair-reps=5] [--pair-window=1] [--churn=1000000] [--churn-every=100000] [--sdk-churn=50000]
 *                        [--churn-concurrency=256] [--http-n=10000] [--sdk-http-max=10000]
 *                        [--micro-max-time-ms=1000] [--micro-suites=codecs,validation,routing]
 *
 * The headline figures run the sources under tsx, as the project runs them; unless `--no-strip`, they are
 * measured again with types stripped only (bench/strip-types.mjs; the modern, NATS, scale and micro parts run under tsx
 * only). Parts not run keep their sections of the previous RESULTS.md, and their chart data (bench/charts/data.json),
 * so every chart is redrawn after any run. A benchmark, not a test: it reports the figures against their targets and
 * never fails on them.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { featuresMarkdown, measureFeatures } from './features.ts';
import { foundationMarkdown, measureFoundation } from './foundation.ts';
import { type Loader, argInt, argValue, fmt, hasFlag, repoRoot } from './lib.ts';
import { measureMicro, microMarkdown } from './micro.ts';
import { type FreshRuns, chartDataOf, writeReportCharts } from './results-charts.ts';
import { type Part, parts, readPreviousReport, stamp } from './results-file.ts';
import { reliabilitySectionOf } from './reliability-section.ts';
import { measureModern, modernMarkdown } from './modern.ts';
import { measureNats, natsMarkdown } from './nats.ts';
import { measureScale, scaleMarkdown, scaleOptionsFromArgs } from './scale.ts';
import { measureTransports } from './transports.ts';
import { transportsMarkdown } from './transports-markdown.ts';

const suite = !hasFlag('no-suite');
const loaders: Loader[] = hasFlag('no-strip') ? ['tsx'] : ['tsx', 'strip'];
const only = argValue('only')?.split(',').map((p) => p.trim());
const unknown = only?.filter((p) => !(parts as readonly string[]).includes(p)) ?? [];
if (unknown.length > 0) throw new RangeError(`--only takes ${parts.join(', ')}; got ${unknown.join(', ')}`);
const selected = (part: Part): boolean => (only === undefined ? !hasFlag(`no-${part}`) : only.includes(part));
const listSessions = argValue('list-sessions');
const window = argInt('window', 64);

const invocation = ['npx tsx bench/run.ts', ...process.argv.slice(2)].join(' ');
const file = join(repoRoot, 'bench/RESULTS.md');
const previous = readPreviousReport(file);
// `npm run fuzz` owns this section; a benchmark run keeps it as it was.
const reliability = existsSync(file) ? reliabilitySectionOf(readFileSync(file, 'utf8')) : '';
const startedAt = new Date();
const loadBefore = os.loadavg();

const produced: Partial<Record<Part, { sections: string; commands: string[] }>> = {};
/** The runs the charts are drawn from (bench/results-charts.ts). */
const runs: { -readonly [K in keyof FreshRuns]: FreshRuns[K] } = {};
if (selected('foundation')) {
  produced.foundation = foundationMarkdown(await measureFoundation({ rounds: argInt('rounds', 7), count: argInt('count', 20_000), warmup: argInt('warmup', 5_000), n: argInt('n', 10_000), suite, loaders }));
}
if (selected('features')) {
  runs.features = await measureFeatures({ rounds: argInt('call-rounds', 7), count: argInt('call-count', 20_000), warmup: argInt('call-warmup', 5_000), window, suite, loaders, ...(listSessions === undefined ? {} : { listSessions }) });
  produced.features = featuresMarkdown(runs.features);
}
if (selected('transports')) {
  runs.transports = await measureTransports({
    stdio: { rounds: argInt('stdio-rounds', 7), count: argInt('stdio-count', 20_000), warmup: argInt('stdio-warmup', 5_000) },
    http: { rounds: argInt('http-rounds', 5), count: argInt('http-count', 5_000), warmup: argInt('http-warmup', 1_000), sessions: argInt('http-sessions', 200), sessionCount: argInt('http-session-count', 10_000) },
    window,
    idleSessions: argInt('idle-sessions', 2_000),
    loaders,
  });
  produced.transports = transportsMarkdown(runs.transports);
}
if (selected('modern')) {
  runs.modern = await measureModern({
    rounds: argInt('modern-rounds', 7),
    sampleMs: argInt('modern-sample-ms', 400),
    warmupMs: argInt('modern-warmup-ms', 1_500),
    levels: argValue('modern-levels') ?? '1,8,64',
  });
  produced.modern = modernMarkdown(runs.modern);
}
if (selected('nats')) {
  runs.nats = await measureNats({
    rounds: argInt('nats-rounds', 5),
    sampleMs: argInt('nats-sample-ms', 1_000),
    warmupMs: argInt('nats-warmup-ms', 1_500),
    levels: argValue('nats-levels') ?? '1,64',
    scale: argValue('nats-scale') ?? '1,2,3',
    clients: argInt('nats-clients', 4),
  });
  produced.nats = natsMarkdown(runs.nats);
}
if (selected('scale')) {
  runs.scale = await measureScale(scaleOptionsFromArgs());
  produced.scale = scaleMarkdown(runs.scale);
}
if (selected('micro')) {
  const microSuites = argValue('micro-suites');
  produced.micro = microMarkdown(await measureMicro({ maxTimeMs: argInt('micro-max-time-ms', 1_000), ...(microSuites === undefined ? {} : { suites: microSuites }) }));
}
const loadAfter = os.loadavg();
const elapsedMin = (Date.now() - startedAt.getTime()) / 60_000;

const ran = parts.filter((part) => produced[part] !== undefined);
const kept = parts.filter((part) => produced[part] === undefined && previous.sections[part] !== '');
const sections = parts.map((part) => {
  const fresh = produced[part];
  return fresh === undefined ? stamp(part, previous.sections[part], previous.dates[part]) : stamp(part, fresh.sections, startedAt.toISOString());
}).filter((s) => s !== '');
const commands = parts.flatMap((part) => produced[part]?.commands ?? previous.commands[part]);
const cpu = os.cpus();
const charts = writeReportCharts(join(repoRoot, 'bench/charts'), chartDataOf(runs, startedAt.toISOString()));

const markdown = `# Benchmark results

Produced by \`npm run bench\` (that is \`npx tsx bench/run.ts\`: foundation, features, transports, modern, NATS, scale and micro, about 23 min on 2 cores);
this report's last run was \`${invocation}\` (${ran.join(', ') || 'nothing'}, ${fmt(elapsedMin, 1)} min)${kept.length > 0 ? `; kept from the previous report: ${kept.map((part) => `${part}${previous.dates[part] === undefined ? '' : ` (measured ${previous.dates[part]})`}`).join(', ')}` : ''}.
Foundation: \`ping\` round trips and heap per idle session. Features: \`tools/call\` and \`tools/list\` scaling.
Transports: \`tools/call\` over stdio and Streamable HTTP, memory per idle HTTP session.
Modern: \`tools/call\` in the 2026-07-28 era over stdio and Streamable HTTP, rxmcp against the official SDK 2.x.
NATS: \`tools/call\` over the NATS binding (both eras, JSON and msgpack) against raw nats.js request/reply floors, and a scale-out over server processes.
Scale (at its defaults): 100,000 idle sessions in one process, creating 10,000 session pairs, a churn of 1,000,000 sessions, 10,000 idle HTTP sessions.
Micro: codecs, validation and routing measured alone (benchmark.js) against floors and rivals.
Parts run alone: \`npx tsx bench/run.ts --only=transports\` (or \`foundation\`, \`features\`, \`modern\`, \`nats\`, \`scale\`, \`micro\`, comma-separated); \`--no-strip\`
halves the time of the first three (tsx figures only); \`--no-<part>\` skips one.

- Date: ${startedAt.toISOString()}
- Node: ${process.version} (${process.platform} ${process.arch}, V8 ${process.versions.v8})
- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${fmt(os.totalmem() / 1024 ** 3, 1)} GiB RAM
- Load average (1/5/15 min) before: ${loadBefore.map((l) => fmt(l)).join(' / ')}, after: ${loadAfter.map((l) => fmt(l)).join(' / ')}
  (a shared machine: wall-clock figures are noisier than CPU figures)

${charts.trimEnd()}

${[...sections, previous.byHand].filter((s) => s !== '').map((s) => s.trimEnd()).join('\n\n')}

## Commands run

${commands.map((c) => `- \`${c}\``).join('\n')}
${reliability === '' ? '' : `\n${reliability}`}`;

writeFileSync(file, markdown);
console.log(`\nwrote ${file} (${fmt(elapsedMin, 1)} min)`);
