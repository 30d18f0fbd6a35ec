/**
 * Self-check of bench/charts.ts: writes example charts of the kinds the report will carry, with illustrative
 * figures (not measurements), to .scratch/charts/, and converts them to PNG when `rsvg-convert` is on the PATH.
 *
 *   npx tsx bench/charts-demo.ts [--out=.scratch/charts] [--no-png]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type ChartFile, type LineSeries, barChartSvg, formatTick, lineChartSvg, writeCharts } from './charts.ts';
import { argValue, hasFlag, repoRoot } from './lib.ts';

const contenders = ['rxmcp', 'SDK 1.x', 'SDK 2.x', 'tmcp', 'floor'] as const;
const transports = ['in-process', 'stdio', 'HTTP', 'NATS'] as const;
const levels = [1, 8, 64];

/** Illustrative calls/s per contender and transport at 1, 8 and 64 in flight (shaped like RESULTS.md, not measured). */
const throughput: Record<(typeof transports)[number], Record<(typeof contenders)[number], readonly (number | undefined)[]>> = {
  'in-process': { rxmcp: [304_000, 318_000, 322_000], 'SDK 1.x': [51_000, 48_000, 46_000], 'SDK 2.x': [44_000, 45_500, 43_000], tmcp: [120_000, 131_000, 128_000], floor: [1_100_000, 1_450_000, 1_600_000] },
  stdio: { rxmcp: [38_000, 96_000, 121_000], 'SDK 1.x': [17_000, 26_000, 27_500], 'SDK 2.x': [15_500, 24_000, 25_000], tmcp: [31_000, 70_000, 84_000], floor: [52_000, 180_000, 260_000] },
  HTTP: { rxmcp: [3_900, 9_800, 12_400], 'SDK 1.x': [1_700, 3_100, 3_300], 'SDK 2.x': [1_600, 2_900, 3_200], tmcp: [3_100, 7_700, 9_000], floor: [5_200, 14_000, 18_500] },
  NATS: { rxmcp: [9_500, 41_000, 63_000], 'SDK 1.x': [undefined, undefined, undefined], 'SDK 2.x': [undefined, undefined, undefined], tmcp: [undefined, undefined, undefined], floor: [12_000, 58_000, 95_000] },
};

/** Illustrative KiB per idle session at 1k..100k sessions. */
const memory: Record<(typeof contenders)[number], readonly number[]> = {
  rxmcp: [3.1, 2.8, 2.75, 2.7, 2.7],
  'SDK 1.x': [24.5, 23.1, 22.6, 22.5, 22.4],
  'SDK 2.x': [27.0, 25.9, 25.2, 25.0, 25.1],
  tmcp: [9.8, 8.9, 8.6, 8.5, 8.5],
  floor: [0.9, 0.6, 0.55, 0.52, 0.52],
};
const sessionCounts = [1_000, 3_000, 10_000, 30_000, 100_000];

function throughputSeries(transport: (typeof transports)[number]): LineSeries[] {
  return contenders.map((name) => ({
    name,
    dashed: name === 'floor',
    points: levels.flatMap((x, i) => {
      const y = throughput[transport][name][i];
      return y === undefined ? [] : [{ x, y }];
    }),
  }));
}

export function demoCharts(): ChartFile[] {
  const charts: ChartFile[] = transports.map((transport) => ({
    file: `throughput-${transport.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.svg`,
    svg: lineChartSvg({
      title: `tools/call throughput, ${transport}`,
      subtitle: 'illustrative figures (charts self-check), not measurements',
      xLabel: 'requests in flight',
      yLabel: 'calls/s',
      xScale: 'log',
      xTicks: levels,
      series: throughputSeries(transport),
    }),
  }));
  charts.push({
    file: 'throughput-in-process-log-y.svg',
    svg: lineChartSvg({ title: 'tools/call throughput, in-process (log y)', xLabel: 'requests in flight', yLabel: 'calls/s', xScale: 'log', yScale: 'log', xTicks: levels, series: throughputSeries('in-process') }),
  });
  charts.push({
    file: 'throughput-bars-64.svg',
    svg: barChartSvg({
      title: 'tools/call calls/s at 64 in flight',
      subtitle: 'illustrative figures (charts self-check), not measurements',
      groups: transports,
      series: contenders.map((name) => ({ name, values: transports.map((t) => throughput[t][name][2]) })),
      yLabel: 'calls/s',
      xLabel: 'transport',
    }),
  });
  charts.push({
    file: 'throughput-bars-64-log.svg',
    svg: barChartSvg({
      title: 'tools/call calls/s at 64 in flight (log y)',
      groups: transports,
      series: contenders.map((name) => ({ name, values: transports.map((t) => throughput[t][name][2]) })),
      yLabel: 'calls/s',
      yScale: 'log',
    }),
  });
  const memorySeries = contenders.map((name) => ({ name, dashed: name === 'floor', points: sessionCounts.map((x, i) => ({ x, y: memory[name][i] ?? Number.NaN })) }));
  charts.push({
    file: 'memory-per-session.svg',
    svg: lineChartSvg({ title: 'Memory per idle session', subtitle: 'illustrative figures (charts self-check), not measurements', xLabel: 'sessions', yLabel: 'KiB per session', xScale: 'log', series: memorySeries }),
  });
  charts.push({
    file: 'memory-per-session-log-y.svg',
    svg: lineChartSvg({ title: 'Memory per idle session (log y)', xLabel: 'sessions', yLabel: 'KiB per session', xScale: 'log', yScale: 'log', series: memorySeries }),
  });
  // Edge cases: no data, one point, negative values on a linear axis.
  charts.push({ file: 'edge-empty.svg', svg: lineChartSvg({ title: 'No data <&>', xLabel: 'x', yLabel: 'y', xScale: 'linear', series: [{ name: 'none', points: [] }] }) });
  charts.push({
    file: 'edge-linear.svg',
    svg: lineChartSvg({ title: 'Linear, one point and negatives', xLabel: 'x', yLabel: 'y', xScale: 'linear', width: 560, height: 340, series: [{ name: 'one', points: [{ x: 5, y: 2.5 }] }, { name: 'signed', points: [{ x: 0, y: -1_500 }, { x: 10, y: 2_000 }, { x: 20, y: 750 }] }] }),
  });
  return charts;
}

function toPng(paths: readonly string[]): void {
  const probe = spawnSync('rsvg-convert', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    console.log('rsvg-convert not found: SVGs only');
    return;
  }
  for (const path of paths) {
    const png = path.replace(/\.svg$/, '.png');
    const run = spawnSync('rsvg-convert', ['-o', png, path], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`rsvg-convert failed on ${path}: ${run.stderr}`);
    console.log(`  ${png}`);
  }
}

const out = argValue('out') ?? join(repoRoot, '.scratch/charts');
const written = writeCharts(out, demoCharts());
for (const path of written) console.log(`  ${path}`);
// A quick look at the tick labels the axes will use.
console.log(`  tick labels: ${[0.05, 0.5, 1, 8, 64, 1_000, 2_500, 10_000, 100_000, 1_250_000, 3e9].map(formatTick).join(', ')}`);
if (!hasFlag('no-png')) toPng(written);
