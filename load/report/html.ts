/**
 * The HTML report of a run: one self-contained file (styles and SVG charts inline, no script, nothing fetched)
 * that opens in any browser with no network. It shows the verdict (wrong answers, losses, whether the tester was
 * the bottleneck), the counts, throughput and latency percentiles over time, the latency distribution, errors
 * over time, the server's CPU and memory, every fault from its start to its recovery, and the result itself as
 * JSON for whoever wants the numbers.
 */
import type { LatencySummary } from '../latency.ts';
import type { LoadResult } from '../result.ts';
import { lostAny, lostLine, planLine } from '../summary.ts';
import type { Counts } from '../tally.ts';
import { formatBytes, formatCount, formatMs, formatPercent } from '../units.ts';
import { type ChartBand, chart, escapeXml } from './svg.ts';

const COLORS = { sent: '#7c8da6', ok: '#1f77b4', p50: '#2ca02c', p90: '#1f77b4', p99: '#d62728', max: '#9467bd', errors: '#ff7f0e', wrong: '#d62728', hung: '#8c564b', server: '#1f77b4', tester: '#7f7f7f' };

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))}s`;

function bandsOf(result: LoadResult): ChartBand[] {
  const end = result.plan.warmupMs + result.plan.durationMs;
  const bands: ChartBand[] = [];
  if (result.plan.warmupMs > 0) bands.push({ from: 0, to: result.plan.warmupMs / 1000, label: 'warm-up', color: '#9aa3af' });
  for (const fault of result.faults) bands.push({ from: fault.atMs / 1000, to: (fault.recoveredAtMs ?? end) / 1000, label: fault.label, color: '#e4572e' });
  return bands;
}

function countsRow(label: string, counts: Counts, latency: LatencySummary): string {
  const cells = [formatCount(counts.sent), formatCount(counts.ok), formatCount(counts.errors), formatCount(counts.wrong), formatCount(counts.hung), formatMs(latency.p50Ms), formatMs(latency.p90Ms), formatMs(latency.p99Ms), formatMs(latency.p999Ms), formatMs(latency.maxMs)];
  return `<tr><th>${escapeXml(label)}</th>${cells.map((cell) => `<td>${escapeXml(cell)}</td>`).join('')}</tr>`;
}

const COUNT_HEAD = '<tr><th></th><th>sent</th><th>ok</th><th>errors</th><th>wrong</th><th>hung</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>';
const NO_LATENCY: LatencySummary = { count: 0, minMs: undefined, meanMs: undefined, p50Ms: undefined, p90Ms: undefined, p99Ms: undefined, p999Ms: undefined, maxMs: undefined };

function charts(result: LoadResult): string {
  const points = result.series.points;
  const interval = result.series.intervalMs / 1000;
  const bands = bandsOf(result);
  const at = (ms: number): number => ms / 1000;
  const time = { xLabel: 'seconds from the start', formatX: (x: number) => seconds(x * 1000), bands };
  const nines: [number, string][] = [[0, '0%'], [1, '90%'], [2, '99%'], [3, '99.9%'], [4, '99.99%'], [5, '99.999%']];
  const ninesOf = (percentile: number): number => (percentile >= 100 ? 5.3 : Math.min(5.3, -Math.log10(1 - percentile / 100)));
  return [
    chart({
      id: 'throughput',
      title: 'Throughput: calls sent and ended per second',
      yLabel: 'calls/s',
      ...time,
      series: [
        { name: 'sent', color: COLORS.sent, points: points.map((point) => [at(point.atMs), point.sent / interval] as const), dashed: true },
        { name: 'answered', color: COLORS.ok, points: points.map((point) => [at(point.atMs), point.rate] as const) },
      ],
    }),
    chart({
      id: 'latency',
      title: `Latency percentiles over time (${result.mode === 'open' ? 'from when each call was due' : 'from sending'})`,
      yLabel: 'ms (log)',
      logY: true,
      formatY: (y) => formatMs(y),
      ...time,
      series: [
        { name: 'p50', color: COLORS.p50, points: points.map((point) => [at(point.atMs), point.p50Ms] as const) },
        { name: 'p90', color: COLORS.p90, points: points.map((point) => [at(point.atMs), point.p90Ms] as const) },
        { name: 'p99', color: COLORS.p99, points: points.map((point) => [at(point.atMs), point.p99Ms] as const) },
        { name: 'max', color: COLORS.max, points: points.map((point) => [at(point.atMs), point.maxMs] as const), dashed: true },
      ],
    }),
    chart({
      id: 'distribution',
      title: 'Latency distribution (by percentile, measured part)',
      yLabel: 'ms (log)',
      xLabel: 'percentile',
      logY: true,
      formatY: (y) => formatMs(y),
      xTicks: nines,
      series: [{ name: 'latency', color: COLORS.p99, points: result.distribution.map((point) => [ninesOf(point.percentile), point.ms] as const) }],
    }),
    chart({
      id: 'errors',
      title: 'Errors, wrong answers and hung calls per interval',
      yLabel: 'calls',
      bars: true,
      ...time,
      series: [
        { name: 'errors', color: COLORS.errors, points: points.map((point) => [at(point.atMs), point.errors] as const) },
        { name: 'wrong', color: COLORS.wrong, points: points.map((point) => [at(point.atMs), point.wrong] as const) },
        { name: 'hung', color: COLORS.hung, points: points.map((point) => [at(point.atMs), point.hung] as const) },
      ],
    }),
    chart({
      id: 'cpu',
      title: 'CPU: the server and the tester (100% = one core)',
      yLabel: '% of a core',
      ...time,
      series: [
        { name: 'server', color: COLORS.server, points: points.map((point) => [at(point.atMs), point.serverCpu === undefined ? undefined : point.serverCpu * 100] as const) },
        { name: 'tester', color: COLORS.tester, points: points.map((point) => [at(point.atMs), point.testerCpu * 100] as const), dashed: true },
      ],
    }),
    chart({
      id: 'memory',
      title: "The server's resident memory",
      yLabel: 'MB',
      ...time,
      series: [{ name: 'server RSS', color: COLORS.server, points: points.map((point) => [at(point.atMs), point.serverRss === undefined ? undefined : point.serverRss / 1024 / 1024] as const) }],
    }),
  ].join('\n');
}

function verdicts(result: LoadResult): string {
  const badge = (good: boolean, text: string): string => `<div class="badge ${good ? 'good' : 'bad'}">${escapeXml(text)}</div>`;
  const mismatched = result.answers.duplicate + result.answers.unknownId;
  return [
    badge(result.wrong === 0 && mismatched === 0, result.wrong === 0 && mismatched === 0 ? 'every answer matched its request' : `${formatCount(result.wrong)} wrong answers, ${formatCount(mismatched)} answers matching no request`),
    badge(!lostAny(result), lostLine(result)),
    badge(!result.tester.bottleneck, `tester: ${result.tester.verdict}`),
  ].join('');
}

function facts(result: LoadResult): string {
  const rows: [string, string][] = [
    ['rates', `${result.rates.planned === undefined ? '' : `planned ${result.rates.planned.toFixed(1)}/s, `}sent ${result.rates.sent.toFixed(1)}/s, ok ${result.rates.ok.toFixed(1)}/s`],
    ['service time (from sending)', `p50 ${formatMs(result.serviceTime.p50Ms)}, p99 ${formatMs(result.serviceTime.p99Ms)}, max ${formatMs(result.serviceTime.maxMs)}`],
    ['errors by code', Object.entries(result.errorsByCode).map(([code, count]) => `${code} ${formatCount(count)}`).join(', ') || 'none'],
    ['late answers', formatCount(result.answers.late)],
  ];
  if (result.server !== undefined) {
    rows.push(['server', `pid ${result.server.pids.join(', ') || '-'}; CPU ${formatPercent(result.server.cpu, 0)} of a core; RSS peak ${formatBytes(result.server.rssPeak)}${result.server.rssPerSession === undefined ? '' : `; ${formatBytes(result.server.rssPerSession)} per session`}`]);
  }
  for (const era of result.byEra) rows.push([`sessions (${era.era})`, `${era.sessions.opened} opened, ${era.sessions.lost} lost, ${era.sessions.churned} churned, ${era.sessions.failedOpens} failed to open`]);
  return `<table class="facts">${rows.map(([name, value]) => `<tr><th>${escapeXml(name)}</th><td>${escapeXml(value)}</td></tr>`).join('')}</table>`;
}

function wrongSamples(result: LoadResult): string {
  const samples = result.byEra.flatMap((era) => era.wrongSamples);
  if (samples.length === 0) return '';
  return `<h2>Wrong answers</h2><table><tr><th>operation</th><th>what</th><th>expected</th><th>got</th></tr>${samples
    .map((sample) => `<tr><td>${escapeXml(sample.operation)}</td><td>${escapeXml(sample.reason)}</td><td><code>${escapeXml(sample.expected)}</code></td><td><code>${escapeXml(sample.got)}</code></td></tr>`)
    .join('')}</table>`;
}

function faultsTable(result: LoadResult): string {
  if (result.faults.length === 0) return '';
  const rows = result.faults.map((fault) => {
    const recovered = fault.recoveredAtMs === undefined ? 'not within the run' : `after ${formatMs(fault.recoveredAtMs - fault.atMs)}`;
    const struck = fault.inFlight;
    const inFlight = `${struck.calls}: ${struck.ok} ok, ${struck.errors} errors, ${struck.wrong} wrong, ${struck.hung} hung`;
    return `<tr><td>${escapeXml(fault.label)}</td><td>${escapeXml(fault.skipped ?? String(fault.targets))}</td><td>${escapeXml(inFlight)}</td><td>${escapeXml(recovered)}</td></tr>`;
  });
  return `<h2>Faults</h2><table><tr><th>fault</th><th>processes / connections</th><th>calls in flight when it struck</th><th>answered again</th></tr>${rows.join('')}</table>`;
}

export function renderReport(result: LoadResult): string {
  const eraRows = result.byEra.length > 1 ? result.byEra.map((era) => countsRow(era.era, era, era.latency)).join('') : '';
  const warmRow = result.warmup.sent > 0 ? countsRow('warm-up', result.warmup, NO_LATENCY) : '';
  const windows = result.windows.map((window) => countsRow(`${window.label} (${seconds(window.fromMs)}-${seconds(window.toMs)})`, window, window.latency)).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rxmcp load: ${escapeXml(result.target)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:920px;color:#1d2330;padding:0 12px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}p.plan{color:#4a5568;margin:0 0 14px}
.badges{display:flex;flex-direction:column;gap:6px;margin:12px 0}.badge{padding:8px 12px;border-radius:6px}
.good{background:#e8f5e9;border:1px solid #a5d6a7}.bad{background:#fdecea;border:1px solid #f5a3a3;font-weight:600}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{padding:4px 8px;border-bottom:1px solid #e2e6ee;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}table.facts td{text-align:left;white-space:normal}
figure.chart{margin:18px 0}figcaption{font-weight:600;margin-bottom:4px}p.empty{color:#777;border:1px dashed #ccc;padding:16px}
code{font-size:12px;white-space:pre-wrap;word-break:break-all}footer{color:#888;margin-top:30px;font-size:12px}
</style></head><body>
<h1>rxmcp load: ${escapeXml(result.target)}</h1>
<p class="plan">${escapeXml(planLine(result))}. Started ${escapeXml(result.startedAt)}${result.interrupted ? ', <strong>interrupted</strong>' : ''}.</p>
<div class="badges">${verdicts(result)}</div>
<h2>Counts</h2>
<table>${COUNT_HEAD}${countsRow('total', result, result.latency)}${eraRows}${warmRow}</table>
${facts(result)}
${charts(result)}
<h2>Windows (calls by the time they were due)</h2>
<table>${COUNT_HEAD}${windows}</table>
${faultsTable(result)}
${wrongSamples(result)}
<h2>The result</h2>
<details><summary>JSON (as --json writes it)</summary><pre id="result-json"><code>${escapeXml(JSON.stringify(result, null, 1))}</code></pre></details>
<footer>Written by rxmcp load. Latency from HDR histograms (hdr-histogram-js); sent = ok + errors + wrong + hung.</footer>
</body></html>
`;
}
