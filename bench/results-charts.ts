/**
 * The charts of bench/RESULTS.md: tools/call throughput against concurrency per transport (in-process, stdio,
 * Streamable HTTP, modern-era stdio and HTTP, NATS) and memory per idle session against the number of sessions
 * (in-memory and Streamable HTTP), as SVG files under bench/charts/, linked from a `## Charts` section.
 *
 * Each part's chart data (the figures the charts plot, taken from its run) is kept in bench/charts/data.json under
 * the part's name: a run replaces the keys of the parts it ran and keeps the others, and every chart is drawn from
 * that file, so a partial run (`bench/run.ts --only=scale`) still redraws all of them. Called by bench/run.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LineSeries, lineChartSvg, writeCharts } from './charts.ts';
import type { FeaturesRun } from './features.ts';
import type { ModernRun } from './modern.ts';
import { type ModernGroup, modernGroups } from './modern-calls.ts';
import type { NatsRun } from './nats.ts';
import { isFloor, natsContenders } from './nats-calls.ts';
import { type Part, parts } from './results-file.ts';
import type { ScaleResult } from './scale.ts';
import type { TransportsRun } from './transports.ts';

/** The charts drawn, in the order of the report. */
type ChartId = 'inProcess' | 'stdio' | 'http' | 'modernStdio' | 'modernHttp' | 'nats' | 'memoryInMemory' | 'memoryHttp';

interface ChartSpec {
  readonly id: ChartId;
  readonly part: Part;
  readonly file: string;
  readonly title: string;
  readonly kind: 'throughput' | 'memory';
  /** What was measured, for the subtitle (after the part, its date and loader). */
  readonly note: string;
}

const catalog: readonly ChartSpec[] = [
  { id: 'inProcess', part: 'features', file: 'throughput-in-process.svg', title: 'tools/call throughput, in-process (in-memory transport)', kind: 'throughput', note: 'client and server in one process' },
  { id: 'stdio', part: 'transports', file: 'throughput-stdio.svg', title: 'tools/call throughput over stdio', kind: 'throughput', note: 'the server a child process' },
  { id: 'http', part: 'transports', file: 'throughput-http.svg', title: 'tools/call throughput over Streamable HTTP (one session)', kind: 'throughput', note: 'the server a child process, 127.0.0.1' },
  { id: 'modernStdio', part: 'modern', file: 'throughput-modern-stdio.svg', title: 'tools/call throughput over stdio, modern era (2026-07-28)', kind: 'throughput', note: 'the server a child process' },
  { id: 'modernHttp', part: 'modern', file: 'throughput-modern-http.svg', title: 'tools/call throughput over Streamable HTTP, modern era (2026-07-28)', kind: 'throughput', note: 'the server a child process' },
  { id: 'nats', part: 'nats', file: 'throughput-nats.svg', title: 'tools/call throughput over NATS (one server process)', kind: 'throughput', note: 'a local nats-server' },
  { id: 'memoryInMemory', part: 'scale', file: 'memory-idle-in-memory.svg', title: 'Heap per idle session, in-memory transport', kind: 'memory', note: 'sessions in one process, heap after gc' },
  { id: 'memoryHttp', part: 'scale', file: 'memory-idle-http.svg', title: 'Heap per idle session, Streamable HTTP (server process)', kind: 'memory', note: 'the server child\'s heap after gc' },
];

/** Concurrency ticks of the throughput charts (more are added when a part measured other levels). */
const levelTicks = [1, 8, 64];

/** One part's chart data, as stored in data.json. */
export interface PartChartData {
  /** When the part was measured (ISO time). */
  readonly measuredAt: string;
  /** How the measuring processes loaded the sources (tsx, or strip when only that ran). */
  readonly loader: string;
  /** The series of each chart the part feeds, by chart id. */
  readonly series: Partial<Record<ChartId, readonly LineSeries[]>>;
}

interface ChartDataFile {
  readonly version: 1;
  readonly parts: Partial<Record<Part, PartChartData>>;
}

/** The runs of the parts measured this time (only those that ran). */
export interface FreshRuns {
  readonly features?: FeaturesRun;
  readonly transports?: TransportsRun;
  readonly modern?: ModernRun;
  readonly nats?: NatsRun;
  readonly scale?: ScaleResult;
}

interface Level {
  readonly x: number;
  readonly y: number | undefined;
}

/** A series from per-level calls/s, leaving out levels not measured (or not finite). */
const throughputSeries = (name: string, levels: readonly Level[], dashed = false): LineSeries => ({
  name,
  ...(dashed ? { dashed } : {}),
  points: levels.flatMap(({ x, y }) => (y === undefined || !Number.isFinite(y) || y <= 0 ? [] : [{ x, y }])),
});

const nonEmpty = (series: readonly LineSeries[]): LineSeries[] => series.filter((s) => s.points.length > 0);

function featuresData(run: FeaturesRun): Pick<PartChartData, 'loader' | 'series'> {
  const call = run.calls.find((c) => c.loader === 'tsx') ?? run.calls[0];
  if (call === undefined) return { loader: 'tsx', series: {} };
  const { result } = call;
  const at = (name: keyof typeof result.sequential): Level[] => [
    { x: 1, y: result.sequential[name].medianOpsPerSec },
    { x: result.window, y: result.windowed[name].medianOpsPerSec },
  ];
  const names = [['rxmcp', 'rxmcp (JSON Schema)'], ['rxmcpZod', 'rxmcp (zod 4)'], ['sdk', 'SDK 1.x'], ['sdk2', 'SDK 2.x'], ['tmcp', 'tmcp'], ['floor', 'floor (queueMicrotask echo)']] as const;
  return {
    loader: call.loader,
    series: { inProcess: nonEmpty(names.filter(([name]) => name in result.sequential).map(([name, label]) => throughputSeries(label, at(name), name === 'floor'))) },
  };
}

function transportsData(run: TransportsRun): Pick<PartChartData, 'loader' | 'series'> {
  const series: PartChartData['series'] = {};
  const stdio = (run.stdio.find((s) => s.result.loader === 'tsx') ?? run.stdio[0])?.result;
  if (stdio !== undefined) {
    const names = [['rxmcp', 'rxmcp'], ['sdk', 'SDK 1.x'], ['sdk2', 'SDK 2.x'], ['tmcp', 'tmcp'], ['floor', 'floor (echo child)']] as const;
    series.stdio = nonEmpty(names.flatMap(([name, label]) => {
      const s = stdio.series[name] as (typeof stdio.series)[typeof name] | undefined;
      return s === undefined ? [] : [throughputSeries(label, stdio.levels.map((x, i) => ({ x, y: s.callsPerSecond[i] })), name === 'floor')];
    }));
  }
  const http = (run.http.find((h) => h.result.loader === 'tsx') ?? run.http[0])?.result;
  if (http !== undefined) {
    const names = [
      ['rxmcpJson', "rxmcp (responseMode 'json')"], ['rxmcpSse', "rxmcp (responseMode 'sse')"], ['sdkJson', 'SDK 1.x (JSON answers)'],
      ['sdkSse', 'SDK 1.x (SSE answers)'], ['sdk2Sse', 'SDK 2.x (SSE answers)'], ['tmcp', 'tmcp (SSE answers)'], ['floor', 'floor (node:http echo)'],
    ] as const;
    series.http = nonEmpty(names.flatMap(([name, label]) => {
      const s = http.series[name] as (typeof http.series)[typeof name] | undefined;
      return s === undefined ? [] : [throughputSeries(label, http.levels.map((x, i) => ({ x, y: s.callsPerSecond[i] })), name === 'floor')];
    }));
  }
  return { loader: stdio?.loader ?? http?.loader ?? 'tsx', series };
}

function modernData(run: ModernRun): Pick<PartChartData, 'loader' | 'series'> {
  const { result } = run;
  const labels: Record<string, string> = {
    rxmcpStdio: 'rxmcp (modern era)', sdk2Stdio: 'SDK 2.x', floorStdio: 'floor (echo child)', legacyStdio: 'rxmcp (legacy era; ref.)',
    rxmcpHttp: 'rxmcp (modern era)', sdk2Http: 'SDK 2.x', floorHttp: 'floor (node:http echo)', legacyHttp: 'rxmcp (legacy, json; ref.)',
  };
  const group = (g: ModernGroup): LineSeries[] => {
    const loads = result.loads[g] ?? [];
    return nonEmpty(modernGroups[g].map((name) =>
      throughputSeries(labels[name] ?? name, loads.map((l) => ({ x: l.width, y: l.figures[name]?.medianOpsPerSec })), name.startsWith('floor') || name.startsWith('legacy'))));
  };
  return { loader: result.loader, series: { modernStdio: group('stdio'), modernHttp: group('http') } };
}

function natsData(run: NatsRun): Pick<PartChartData, 'loader' | 'series'> {
  const { result } = run;
  const labels: Record<string, string> = {
    legacyJson: 'rxmcp legacy, JSON', legacyMsgpack: 'rxmcp legacy, msgpack', modernJson: 'rxmcp modern, JSON',
    modernMsgpack: 'rxmcp modern, msgpack', floor: 'floor (nc.request)', floorLean: 'lean floor (pub + inbox)',
  };
  const names = [...natsContenders, ...Object.keys(result.loads[0]?.figures ?? {}).filter((n) => !(natsContenders as readonly string[]).includes(n))];
  return {
    loader: 'tsx',
    series: { nats: nonEmpty(names.map((name) => throughputSeries(labels[name] ?? name, result.loads.map((l) => ({ x: l.width, y: l.figures[name]?.medianOpsPerSec })), isFloor(name)))) },
  };
}

function scaleData(result: ScaleResult): Pick<PartChartData, 'loader' | 'series'> {
  const of = (transport: 'memory' | 'http'): LineSeries[] => nonEmpty(result.memorySeries.filter((s) => s.transport === transport).map((s) => ({
    name: s.contender.replace(/ \((in-memory|Streamable HTTP)\)$/, ''),
    points: s.points.filter((p) => Number.isFinite(p.heapBytesPerSession)).map((p) => ({ x: p.sessions, y: p.heapBytesPerSession / 1024 })),
  })));
  return {
    loader: 'tsx',
    series: { memoryInMemory: of('memory'), memoryHttp: of('http') },
  };
}

/** The chart data of each part run this time. */
export function chartDataOf(runs: FreshRuns, measuredAt: string): Partial<Record<Part, PartChartData>> {
  const out: Partial<Record<Part, PartChartData>> = {};
  if (runs.features !== undefined) out.features = { measuredAt, ...featuresData(runs.features) };
  if (runs.transports !== undefined) out.transports = { measuredAt, ...transportsData(runs.transports) };
  if (runs.modern !== undefined) out.modern = { measuredAt, ...modernData(runs.modern) };
  if (runs.nats !== undefined) out.nats = { measuredAt, ...natsData(runs.nats) };
  if (runs.scale !== undefined) out.scale = { measuredAt, ...scaleData(runs.scale) };
  return out;
}

function readDataFile(file: string): ChartDataFile {
  if (!existsSync(file)) return { version: 1, parts: {} };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ChartDataFile> | null;
    if (parsed === null || typeof parsed !== 'object' || parsed.version !== 1 || typeof parsed.parts !== 'object') throw new TypeError('not a version 1 chart data file');
    const kept: Partial<Record<Part, PartChartData>> = {};
    for (const part of parts) {
      const data = parsed.parts[part];
      if (data !== undefined && typeof data.measuredAt === 'string' && typeof data.series === 'object') kept[part] = { measuredAt: data.measuredAt, loader: typeof data.loader === 'string' ? data.loader : 'tsx', series: data.series };
    }
    return { version: 1, parts: kept };
  } catch (error) {
    console.log(`  ${file}: unreadable (${error instanceof Error ? error.message : String(error)}); starting it afresh`);
    return { version: 1, parts: {} };
  }
}

/** Throughput spanning more than this factor gets a log y axis (the in-process floor is ~30× the SDK). */
const logSpread = 20;

/** A chart with no series still gets a legend entry ("not measured (no data)") rather than an empty legend box. */
const placeholder = (series: readonly LineSeries[]): readonly LineSeries[] => (series.length === 0 ? [{ name: 'not measured', points: [] }] : series);

function chartSvg(spec: ChartSpec, data: PartChartData | undefined): string {
  const series = data?.series[spec.id] ?? [];
  const subtitle = data === undefined
    ? `not measured yet: run \`npx tsx bench/run.ts --only=${spec.part}\``
    : `${spec.part} part, measured ${data.measuredAt.slice(0, 16).replace('T', ' ')} UTC; sources under ${data.loader}; ${spec.note}`;
  if (spec.kind === 'memory') {
    const counts = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
    return lineChartSvg({
      title: spec.title,
      subtitle,
      xLabel: 'idle sessions (log scale)',
      yLabel: 'KiB of heap per session',
      xScale: 'log',
      ...(counts.length === 0 ? {} : { xTicks: counts }),
      series: placeholder(series),
    });
  }
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const spread = ys.length === 0 ? 1 : Math.max(...ys) / Math.min(...ys);
  const xs = [...new Set([...levelTicks, ...series.flatMap((s) => s.points.map((p) => p.x))])].sort((a, b) => a - b);
  return lineChartSvg({
    title: spec.title,
    subtitle,
    xLabel: 'calls in flight (log scale; 1 = sequential)',
    yLabel: `median calls/s, wall clock${spread > logSpread ? ' (log scale)' : ''}`,
    xScale: 'log',
    yScale: spread > logSpread ? 'log' : 'linear',
    xTicks: xs,
    series: placeholder(series),
  });
}

/**
 * Merges the fresh parts' chart data into `<dir>/data.json` (their keys replaced, the others kept), draws every
 * chart from it into `dir` and returns the `## Charts` section for RESULTS.md (links relative to bench/).
 */
export function writeReportCharts(dir: string, fresh: Partial<Record<Part, PartChartData>>): string {
  const dataFile = join(dir, 'data.json');
  const previous = readDataFile(dataFile);
  const merged: ChartDataFile = { version: 1, parts: { ...previous.parts, ...fresh } };
  const files = catalog.map((spec) => ({ file: spec.file, svg: chartSvg(spec, merged.parts[spec.part]) }));
  mkdirSync(dir, { recursive: true });
  writeFileSync(dataFile, `${JSON.stringify(merged, null, 1)}\n`);
  writeCharts(dir, files);
  console.log(`wrote ${files.length} charts and their data to ${dir}`);

  const drawn = catalog.filter((spec) => (merged.parts[spec.part]?.series[spec.id]?.length ?? 0) > 0);
  const missing = [...new Set(catalog.filter((spec) => !drawn.includes(spec)).map((spec) => spec.part))];
  const throughput = drawn.filter((spec) => spec.kind === 'throughput');
  const memory = drawn.filter((spec) => spec.kind === 'memory');
  const link = (spec: ChartSpec): string => `![${spec.title}](charts/${spec.file})`;
  return `## Charts

Drawn by bench/results-charts.ts (bench/charts.ts) from bench/charts/data.json, which keeps each part's figures as last
measured (a part run replaces its own; the date of each is under the chart's title).${missing.length === 0 ? '' : ` No data yet for: ${missing.join(', ')} (charts drawn empty).`}
${throughput.length === 0 ? '' : `
Throughput: median \`tools/call\` calls/s (wall clock) against calls in flight on one connection (1 = await each call), one line
per contender; floors (and references) dashed. A y axis spanning more than ${logSpread}× is logarithmic.

${throughput.map(link).join('\n')}
`}${memory.length === 0 ? '' : `
Memory: heap per idle session (after gc, over the baseline) against the number of sessions held (the scale part).

${memory.map(link).join('\n')}
`}`;
}
