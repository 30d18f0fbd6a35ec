/**
 * The scale benchmark part (`## Scale` of bench/RESULTS.md): rxmcp against the official SDK 1.x at large session
 * counts, each measurement in its own fresh child process (`node --expose-gc --max-old-space-size=8192 --import tsx`):
 *
 * 1. idle sessions in memory (bench/scale-idle.ts): 100,000 idle initialized legacy server sessions over the in-memory
 *    transport in one process, heap and RSS per session, time to open them; also at 1,000 and 10,000 (SDK: up to
 *    `--sdk-idle-max`), for the memory-vs-sessions chart;
 * 2. pairs (bench/scale-pairs.ts): 10,000 connected client+server session pairs created, rxmcp against the SDK in the
 *    same process, interleaved repetitions, medians;
 * 3. churn (bench/scale-churn.ts): 1,000,000 sessions opened, used (one `tools/call`) and closed, 256 at a time, heap
 *    after gc at the baseline and every 100,000; the SDK with 50,000;
 * 4. Streamable HTTP (bench/scale-http.ts): 10,000 concurrent idle sessions on one server (the server a child, the raw
 *    client here), memory per session; also at 1,000 and 5,000 (SDK: up to `--sdk-http-max`).
 *
 *   npx tsx bench/scale.ts [--scale-only=idle,pairs,churn,http] [--idle-n=100000] [--sdk-idle-max=100000]
 *                          [--pairs=10000] [--pair-reps=5] [--pair-window=1] [--churn=1000000] [--churn-every=100000]
 *                          [--sdk-churn=50000] [--churn-concurrency=256] [--http-n=10000] [--sdk-http-max=10000]
 *                          [--out=.scratch/scale.md]
 *
 * Standalone it prints the Markdown sections (and writes them to `--out`). A benchmark, not a test: it reports the
 * figures against their targets and never fails on them.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { argInt, argValue, emitResult, fmt, isMain } from './lib.ts';
import { rel, table, verdict } from './markdown.ts';
import { revision } from './modern.ts';
import { type ChurnFigures, type ChurnImpl, churnTolerance } from './scale-churn.ts';
import { type HttpScaleFigures, type HttpScaleImpl, measureHttpScale } from './scale-http.ts';
import type { IdleScaleFigures, IdleScaleImpl } from './scale-idle.ts';
import { runScaleChild, totalResources } from './scale-lib.ts';
import { millionSection } from './scale-million.ts';
import { type PairsResult, pairsContenders } from './scale-pairs.ts';

export type ScaleFigure = 'idle' | 'pairs' | 'churn' | 'http';
export const scaleFigures: readonly ScaleFigure[] = ['idle', 'pairs', 'churn', 'http'];

/** The issue's targets. */
const idleTarget = 4 * 1024;
const pairsTarget = 1 / 5;
const httpTarget = 8 * 1024;

export interface ScaleOptions {
  readonly figures: readonly ScaleFigure[];
  /** Idle in-memory sessions of the headline figure; the chart adds 1,000 and 10,000 below it. */
  readonly idleN: number;
  /** The SDK's largest idle count (~23 KiB each: 100,000 take about 2.3 GB of heap). */
  readonly sdkIdleMax: number;
  readonly pairs: number;
  readonly pairReps: number;
  readonly pairWindow: number;
  readonly churn: number;
  readonly churnEvery: number;
  readonly sdkChurn: number;
  readonly churnConcurrency: number;
  /** Idle HTTP sessions of the headline figure; the chart adds 1,000 and 5,000 below it. */
  readonly httpN: number;
  readonly sdkHttpMax: number;
}

export const defaultScaleOptions: ScaleOptions = {
  figures: scaleFigures,
  idleN: 100_000,
  sdkIdleMax: 100_000,
  pairs: 10_000,
  pairReps: 5,
  pairWindow: 1,
  churn: 1_000_000,
  churnEvery: 100_000,
  sdkChurn: 50_000,
  churnConcurrency: 256,
  httpN: 10_000,
  sdkHttpMax: 10_000,
};

/** The options from this process's arguments (the flags listed above; `--scale-only`, not `--only`, which bench/run.ts takes for parts). */
export function scaleOptionsFromArgs(): ScaleOptions {
  const only = argValue('scale-only')?.split(',').map((f) => f.trim()).filter((f) => f !== '');
  const unknown = only?.filter((f) => !(scaleFigures as readonly string[]).includes(f)) ?? [];
  if (unknown.length > 0) throw new RangeError(`scale figures are ${scaleFigures.join(', ')}; got ${unknown.join(', ')}`);
  const d = defaultScaleOptions;
  const churn = argInt('churn', d.churn);
  return {
    figures: only === undefined ? d.figures : (only as ScaleFigure[]),
    idleN: argInt('idle-n', d.idleN),
    sdkIdleMax: argInt('sdk-idle-max', d.sdkIdleMax),
    pairs: argInt('pairs', d.pairs),
    pairReps: argInt('pair-reps', d.pairReps),
    pairWindow: argInt('pair-window', d.pairWindow),
    churn,
    churnEvery: argInt('churn-every', Math.min(d.churnEvery, Math.max(1, Math.ceil(churn / 5)))),
    sdkChurn: argInt('sdk-churn', d.sdkChurn),
    churnConcurrency: argInt('churn-concurrency', d.churnConcurrency),
    httpN: argInt('http-n', d.httpN),
    sdkHttpMax: argInt('sdk-http-max', d.sdkHttpMax),
  };
}

export interface MemoryPoint {
  readonly sessions: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
}

export interface MemorySeries {
  readonly contender: string;
  readonly transport: 'memory' | 'http';
  readonly points: readonly MemoryPoint[];
}

export interface ScaleResult {
  readonly options: ScaleOptions;
  readonly idle: Record<IdleScaleImpl, IdleScaleFigures[]> | undefined;
  readonly pairs: PairsResult | undefined;
  readonly churn: Partial<Record<ChurnImpl, ChurnFigures>> | undefined;
  readonly http: Record<HttpScaleImpl, HttpScaleFigures[]> | undefined;
  /** Memory per idle session by session count, per contender and transport: the chart's data. */
  readonly memorySeries: readonly MemorySeries[];
  /** Measurements that did not complete (for example the SDK out of memory), with why. */
  readonly skipped: readonly string[];
  readonly commands: readonly string[];
  readonly seconds: number;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly revision: string;
}

/** The chart's counts below `n`, then `n`. */
const countsUpTo = (chart: readonly number[], n: number): number[] => [...chart.filter((c) => c < n), n];

const seriesLabels = {
  memory: { rxmcp: 'rxmcp (in-memory)', sdk: 'official SDK 1.x (in-memory)' },
  http: { rxmcp: 'rxmcp (Streamable HTTP)', sdk: 'official SDK 1.x (Streamable HTTP)' },
} as const;

export async function measureScale(options: ScaleOptions = defaultScaleOptions): Promise<ScaleResult> {
  console.log('\n=== scale: idle sessions, session pairs, churn, idle HTTP sessions; rxmcp against the official SDK 1.x, each in a fresh child ===');
  const started = Date.now();
  const loadBefore = os.loadavg();
  const measured = revision();
  const commands: string[] = [];
  const skipped: string[] = [];
  const wanted = (figure: ScaleFigure): boolean => options.figures.includes(figure);
  const attempt = async <T>(what: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await run();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      console.log(`  ${what}: did not complete (${why})`);
      skipped.push(`${what}: ${rel(why)}`);
      return undefined;
    }
  };

  let idle: ScaleResult['idle'];
  if (wanted('idle')) {
    idle = { rxmcp: [], sdk: [] };
    for (const n of countsUpTo([1_000, 10_000], options.idleN)) {
      for (const impl of ['rxmcp', 'sdk'] as const) {
        if (impl === 'sdk' && n > options.sdkIdleMax) continue;
        const run = await attempt(`idle ${impl} n=${n}`, () => runScaleChild('scale-idle.ts', [`--impl=${impl}`, `--n=${n}`, '--warmup=200']));
        if (run === undefined) continue;
        idle[impl].push(run.result as IdleScaleFigures);
        commands.push(rel(run.command));
      }
    }
  }

  let pairs: PairsResult | undefined;
  if (wanted('pairs')) {
    const run = await attempt(`pairs n=${options.pairs}`, () => runScaleChild('scale-pairs.ts',
      [`--pairs=${options.pairs}`, `--reps=${options.pairReps}`, `--window=${options.pairWindow}`, `--warmup=${Math.min(1_000, options.pairs)}`]));
    if (run !== undefined) {
      pairs = run.result as PairsResult;
      commands.push(rel(run.command));
    }
  }

  let churn: ScaleResult['churn'];
  if (wanted('churn')) {
    churn = {};
    const sdkEvery = Math.max(1, Math.ceil(options.sdkChurn / 5));
    for (const [impl, n, every] of [['rxmcp', options.churn, options.churnEvery], ['sdk', options.sdkChurn, sdkEvery]] as const) {
      const warmup = Math.min(10_000, Math.max(1_000, Math.ceil(n / 10)));
      const run = await attempt(`churn ${impl} n=${n}`, () => runScaleChild('scale-churn.ts',
        [`--impl=${impl}`, `--n=${n}`, `--every=${every}`, `--concurrency=${options.churnConcurrency}`, `--warmup=${warmup}`]));
      if (run === undefined) continue;
      churn[impl] = run.result as ChurnFigures;
      commands.push(rel(run.command));
    }
  }

  let http: ScaleResult['http'];
  if (wanted('http')) {
    http = { rxmcp: [], sdk: [] };
    for (const n of countsUpTo([1_000, 5_000], options.httpN)) {
      for (const impl of ['rxmcp', 'sdk'] as const) {
        if (impl === 'sdk' && n > options.sdkHttpMax) continue;
        const figures = await attempt(`http ${impl} n=${n}`, () => measureHttpScale(impl, n, 200));
        if (figures === undefined) continue;
        http[impl].push(figures);
        // The reproducing command (its server child's command line is in the figures): a command naming
        // bench/transport-programs.ts would be filed under the transports part by bench/results-file.ts.
        commands.push(`npx tsx bench/scale-http.ts --impl=${impl} --n=${n} --warmup=200`);
      }
    }
  }

  const memorySeries: MemorySeries[] = [];
  const point = (f: { n: number; heapBytesPerSession: number; rssBytesPerSession: number }): MemoryPoint => ({ sessions: f.n, heapBytesPerSession: f.heapBytesPerSession, rssBytesPerSession: f.rssBytesPerSession });
  for (const impl of ['rxmcp', 'sdk'] as const) {
    if (idle !== undefined && idle[impl].length > 0) memorySeries.push({ contender: seriesLabels.memory[impl], transport: 'memory', points: idle[impl].map(point) });
  }
  for (const impl of ['rxmcp', 'sdk'] as const) {
    if (http !== undefined && http[impl].length > 0) memorySeries.push({ contender: seriesLabels.http[impl], transport: 'http', points: http[impl].map(point) });
  }
  return { options, idle, pairs, churn, http, memorySeries, skipped, commands, seconds: (Date.now() - started) / 1000, loadBefore, loadAfter: os.loadavg(), revision: measured };
}

const kib = (bytes: number): string => `${fmt(bytes / 1024)} KiB`;
const mib = (bytes: number): string => `${fmt(bytes / 1048576)} MiB`;
const signedKib = (bytes: number): string => `${bytes >= 0 ? '+' : '−'}${fmt(Math.abs(bytes) / 1024, 1)} KiB`;
const ms = (value: number): string => (value >= 10_000 ? `${fmt(value / 1000, 1)} s` : `${fmt(value, 0)} ms`);
const resources = (counts: Readonly<Record<string, number>>): string => {
  const entries = Object.entries(counts);
  return entries.length === 0 ? '0' : `${totalResources(counts)} (${entries.map(([type, count]) => `${type} ×${count}`).join(', ')})`;
};

/** The figures a memory table shows, whichever medium measured them. */
interface MemoryFigures {
  readonly n: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
  readonly openMs: number;
}

/** rxmcp and the SDK side by side, one row per session count either measured. */
function memoryTable<F extends MemoryFigures>(figures: { readonly rxmcp: readonly F[]; readonly sdk: readonly F[] }, what: string, opened: (f: F) => string): string {
  const counts = [...new Set([...figures.rxmcp, ...figures.sdk].map((f) => f.n))].sort((a, b) => a - b);
  const cells = (f: F | undefined): string[] =>
    f === undefined ? ['—', '—', '—'] : [`${kib(f.heapBytesPerSession)} (${fmt(f.heapBytesPerSession, 0)} B)`, kib(f.rssBytesPerSession), opened(f)];
  const rows = counts.map((n) => {
    const rx = figures.rxmcp.find((f) => f.n === n);
    const sdk = figures.sdk.find((f) => f.n === n);
    return [fmt(n, 0), ...cells(rx), ...cells(sdk), rx !== undefined && sdk !== undefined ? fmt(rx.heapBytesPerSession / sdk.heapBytesPerSession, 3) : '—'];
  });
  return table([what, 'rxmcp heap/session', 'rxmcp RSS/session', 'rxmcp time to open', 'SDK heap/session', 'SDK RSS/session', 'SDK time to open', 'heap ratio rxmcp/SDK'], rows);
}

function idleSection(idle: Record<IdleScaleImpl, IdleScaleFigures[]>): string {
  return memoryTable(idle, 'idle sessions', (f) => `${ms(f.openMs)} (${fmt((f.openMs * 1000) / f.n, 1)} µs each)`);
}

function pairsSection(p: PairsResult): string {
  const rows = pairsContenders.map((c) => {
    const f = p.figures[c];
    return [f.label, ms(f.medianWallMs), `${fmt(f.medianUsPerPair, 1)} µs`, ms(f.medianCpuMs), kib(f.medianHeapBytesPerPair),
      f.reps.map((r) => fmt(r.wallMs, 0)).join(', ')];
  });
  return table(['contender', `median time for ${fmt(p.pairs, 0)} pairs (wall)`, 'per pair', 'median CPU', 'heap held per open pair', 'all repetitions (ms)'], rows);
}

function churnSection(churn: Partial<Record<ChurnImpl, ChurnFigures>>): string {
  const label = { rxmcp: 'rxmcp', sdk: 'official SDK 1.x' } as const;
  const rows = (['rxmcp', 'sdk'] as const).flatMap((impl) => {
    const f = churn[impl];
    if (f === undefined) return [];
    return [[label[impl], fmt(f.n, 0), `${fmt(f.churnSeconds, 1)} s (${fmt(f.sessionsPerSecond, 0)}/s, ${fmt(f.cpuUsPerSession, 1)} µs CPU each)`,
      mib(f.baseline.heapUsed), mib(f.points[f.points.length - 1]?.heapUsed ?? Number.NaN), signedKib(f.endMinusBaselineBytes),
      `${fmt(f.slopeBytesPerSession, 2)} B`, `${f.returnedToBaseline ? 'yes' : '**no**'} (within ${kib(f.toleranceBytes)})`,
      `${resources(f.resourcesBefore)} → ${resources(f.resourcesAfter)}`, `${f.serverSessionsAtEnd} / ${f.clientSessionsAtEnd}`]];
  });
  return table(['contender', 'sessions churned', 'time', 'heap at baseline', 'heap at end', 'end − baseline', 'heap kept per session after the first checkpoint', 'returned to baseline',
    'live resources before → after', 'open server / client sessions at end'], rows);
}

function churnPoints(f: ChurnFigures): string {
  return f.points.map((p) => `${p.sessions % 1000 === 0 ? `${fmt(p.sessions / 1000, 0)}k` : fmt(p.sessions, 0)}: ${signedKib(p.heapUsed - f.baseline.heapUsed)}`).join(', ');
}

function httpSection(http: Record<HttpScaleImpl, HttpScaleFigures[]>): string {
  return memoryTable(http, 'idle HTTP sessions', (f) => ms(f.openMs));
}

function seriesSection(series: readonly MemorySeries[]): string {
  return series.map((s) => `- ${s.contender}: ${s.points.map((p) => `${fmt(p.sessions, 0)} → ${fmt(p.heapBytesPerSession, 0)} B heap / ${fmt(p.rssBytesPerSession, 0)} B RSS`).join('; ')}`).join('\n');
}

export function scaleMarkdown(result: ScaleResult): { sections: string; commands: string[] } {
  const { options, idle, pairs, churn, http } = result;
  const load = (values: readonly number[]): string => values.map((v) => fmt(v)).join(' / ');
  const cores = os.cpus().length;
  const targets: string[][] = [];
  const idleTop = idle?.rxmcp.find((f) => f.n === options.idleN);
  if (idleTop !== undefined) {
    targets.push([`heap per idle initialized server session, ${fmt(idleTop.n, 0)} sessions in memory, ≤ 4 KiB`, `${kib(idleTop.heapBytesPerSession)} (${fmt(idleTop.heapBytesPerSession, 0)} B)`, verdict(idleTop.heapBytesPerSession <= idleTarget)]);
  }
  if (pairs !== undefined) {
    targets.push([`creating ${fmt(pairs.pairs, 0)} client+server pairs, rxmcp under 1/5 of the SDK's time (ratio < 0.2)`,
      `${fmt(pairs.ratioRxmcpToSdk, 3)} (median ${ms(pairs.figures.rxmcp.medianWallMs)} vs ${ms(pairs.figures.sdk.medianWallMs)}; CPU ratio ${fmt(pairs.cpuRatioRxmcpToSdk, 3)})`,
      verdict(pairs.ratioRxmcpToSdk < pairsTarget)]);
  }
  const rxChurn = churn?.rxmcp;
  if (rxChurn !== undefined) {
    targets.push([`churn of ${fmt(rxChurn.n, 0)} sessions: heap back to baseline, no live handles left, \`server.sessions.size\` 0`,
      `${signedKib(rxChurn.endMinusBaselineBytes)}; resources ${totalResources(rxChurn.resourcesBefore)} → ${totalResources(rxChurn.resourcesAfter)}; sessions.size ${rxChurn.serverSessionsAtEnd}`,
      verdict(rxChurn.returnedToBaseline && totalResources(rxChurn.resourcesAfter) <= totalResources(rxChurn.resourcesBefore) && rxChurn.serverSessionsAtEnd === 0)]);
  }
  const httpTop = http?.rxmcp.find((f) => f.n === options.httpN);
  if (httpTop !== undefined) {
    targets.push([`heap per idle Streamable HTTP session, ${fmt(httpTop.n, 0)} concurrent sessions on one server, ≤ 8 KiB`, `${kib(httpTop.heapBytesPerSession)} (${fmt(httpTop.heapBytesPerSession, 0)} B)`, verdict(httpTop.heapBytesPerSession <= httpTarget)]);
  }

  const parts: string[] = [];
  parts.push(`## Scale

Measured by bench/scale.ts (\`npx tsx bench/scale.ts\`; ${fmt(result.seconds / 60, 1)} min; load average 1/5/15 min before ${load(result.loadBefore)}, after ${load(result.loadAfter)} on ${cores} cores;
rxmcp at ${result.revision}). Every measurement runs in its own fresh child process,
\`node --expose-gc --max-old-space-size=8192 --import tsx …\` (sources under tsx, as the project runs them), one at a time.

${table(['target', 'measured', 'verdict'], targets)}
${result.skipped.length === 0 ? '' : `\nNot measured (did not complete): ${result.skipped.join('; ')}.\n`}`);

  if (idle !== undefined) {
    parts.push(`### Idle initialized server sessions in one process (in-memory transport)

${idleSection(idle)}

Method (bench/scale-idle.ts, that of bench/idle-session-heap.ts at larger counts): 200 warm-up sessions (kept), \`gc()\` twice,
baseline \`heapUsed\`/\`rss\`; then n server sessions opened one after another, each on its own in-memory transport end and
driven through the handshake by the same minimal raw client (\`initialize\` 2025-11-25, await the answer,
\`notifications/initialized\`); \`gc()\` twice; (after − baseline) / n. All sessions stay referenced and were checked
initialized. rxmcp: one \`createServer()\` (the echo tool registered) whose \`accept\` takes every session; SDK 1.x: one
low-level \`Server\` per transport (it takes one each). The figure includes the server session, its transport end, the raw
client's end and its closure. "Time to open" is the wall clock of the n sequential handshakes. RSS grows by whole pages
and the allocator keeps freed ones, so RSS per session is noise at small counts (it can come out negative); heap is the figure.
`);
  }
  if (pairs !== undefined) {
    parts.push(`### Creating ${fmt(pairs.pairs, 0)} connected client+server session pairs

${pairsSection(pairs)}

rxmcp/SDK (McpServer): ${fmt(pairs.ratioRxmcpToSdk, 3)} of the wall-clock time, ${fmt(pairs.cpuRatioRxmcpToSdk, 3)} of the CPU time; rxmcp/SDK (low-level Server): ${fmt(pairs.ratioRxmcpToSdkServer, 3)}.

Method (bench/scale-pairs.ts, one process for all contenders): per repetition (${pairs.reps}, the contenders' order rotating; a
warm-up of ${fmt(pairs.warmup, 0)} pairs each first), each contender creates ${fmt(pairs.pairs, 0)} pairs ${pairs.window <= 1 ? 'one after another (await each)' : `${pairs.window} at a time`},
timed (wall clock; CPU of the process), all kept open; then gc twice and the heap they hold; then all clients close (untimed) and
the servers are checked to have no session left. rxmcp: one \`createServer()\` with the echo tool and one
\`createClient({ era: 'legacy' })\` per repetition; a pair is \`createMemoryPair()\`, \`server.accept(serverEnd)\`,
\`await client.connect(clientEnd)\` (initialize, answer, initialized). SDK 1.x: its server takes one transport, so each
pair is \`InMemoryTransport.createLinkedPair()\`, \`new McpServer()\` + \`registerTool('echo', …)\` (the same zod 4 shape,
built once) + \`connect\`, \`new Client()\` + \`await client.connect()\`; the reference row uses a low-level \`Server\` with no
handlers instead, the least the SDK needs per pair. Wall clock on a shared machine is noisier than CPU.
`);
  }
  if (churn !== undefined && (churn.rxmcp !== undefined || churn.sdk !== undefined)) {
    const lines = (['rxmcp', 'sdk'] as const).flatMap((impl) => {
      const f = churn[impl];
      return f === undefined ? [] : [`- ${impl === 'rxmcp' ? 'rxmcp' : 'official SDK 1.x'} (${fmt(f.concurrency, 0)} at a time; heap after gc minus baseline): ${churnPoints(f)}`];
    });
    parts.push(`### Session churn: opened, used, closed

${churnSection(churn)}

Heap at each checkpoint:
${lines.join('\n')}

Method (bench/scale-churn.ts, one process per contender): each session is opened over a fresh in-memory pair (initialize
handshake), makes one \`tools/call\` of the echo tool (answer checked) and is closed by the client, ${fmt(options.churnConcurrency, 0)} sessions at a
time. rxmcp: one \`createServer()\` and one \`createClient({ era: 'legacy' })\` for the whole run; SDK 1.x: an \`McpServer\`
(+ \`registerTool\`) and a \`Client\` per session, \`client.close()\` (which closes the linked server transport). Live
resources (\`process.getActiveResourcesInfo()\`, by type) are read once the server is up, before any session, and at
the end. Then warm-up sessions are churned (JIT, lazily built state, bounded caches), then settle, gc twice: the
baseline; then the sessions in chunks, after each: settle, gc twice, \`heapUsed\`. Criterion for "returned to baseline":
the end at most the larger of 1 MiB and 2 % of the baseline heap above the baseline (below it counts as returned) (${kib(churnTolerance(rxChurn?.baseline.heapUsed ?? 0))} for rxmcp here). "Heap kept per session"
is (end − first checkpoint) / the sessions between them: a leak shows there, apart from the first chunk's JIT code.
`);
  }
  if (http !== undefined) {
    parts.push(`### Idle Streamable HTTP sessions on one server

${httpSection(http)}

Method (bench/scale-http.ts, that of bench/http-idle-sessions.ts at larger counts): the server is a fresh child process
(\`bench/transport-programs.ts --transport=http --mode=sse --max-sessions=<n + 300>\`: rxmcp \`createStreamableHttpServer\`
with its default responseMode 'sse' and \`maxSessions\` raised; SDK 1.x one \`McpServer\` + \`StreamableHTTPServerTransport\`
per session, as its docs do), this process the client: raw node:http POSTs on a keep-alive agent (16 sockets, 16 handshakes
at a time): \`initialize\` (the answer read whole), \`notifications/initialized\` with the session id (202). 200 warm-up
sessions (kept), then the server settles, runs gc twice and reads heapUsed/RSS; then n sessions, and again; per session =
(after − baseline) / n; the server counted every session open at the end.
`);
  }
  if (result.memorySeries.length > 0) {
    parts.push(`### Memory per idle session by number of sessions (chart data)

${seriesSection(result.memorySeries)}
`);
  }
  // The one-million-sessions subsection is measured by its own (long) run, bench/scale-million.ts; its stored
  // figures are carried into every report of this section.
  const million = millionSection();
  if (million !== '') parts.push(million);
  return { sections: parts.join('\n'), commands: [...result.commands] };
}

if (isMain(import.meta.url)) {
  const result = await measureScale(scaleOptionsFromArgs());
  const { sections } = scaleMarkdown(result);
  console.log(`\n${sections}`);
  const out = argValue('out');
  if (out !== undefined) writeFileSync(out, sections);
  emitResult(result);
}
