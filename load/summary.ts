/**
 * A run in words: the summary table printed at the end, and the one-line status shown while it runs (rewritten
 * in place on a terminal, one line per interval when piped).
 */
import type { LatencySummary } from './latency.ts';
import type { LiveStatus } from './options.ts';
import type { LoadResult } from './result.ts';
import { type Counts, LOST_CODES, lostOf } from './tally.ts';
import { formatAt, formatBytes, formatCount, formatMs, formatPercent } from './units.ts';

const COLUMNS = ['', 'sent', 'ok', 'errors', 'wrong', 'hung', 'p50', 'p90', 'p99', 'p99.9', 'max'] as const;

function row(label: string, counts: Counts, latency: LatencySummary): string[] {
  return [
    label,
    formatCount(counts.sent),
    formatCount(counts.ok),
    formatCount(counts.errors),
    formatCount(counts.wrong),
    formatCount(counts.hung),
    formatMs(latency.p50Ms),
    formatMs(latency.p90Ms),
    formatMs(latency.p99Ms),
    formatMs(latency.p999Ms),
    formatMs(latency.maxMs),
  ];
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = COLUMNS.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length)));
  return rows.map((cells) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ').trimEnd());
}

function byCode(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${code} ${formatCount(count)}`)
    .join(', ');
}

/** What was planned, in one line. */
export function planLine(result: LoadResult): string {
  const { plan } = result;
  const levels = plan.steps.map((step) => (result.mode === 'open' ? `${step.level}/s` : `${step.level} in flight`)).join(' then ');
  const loop = result.mode === 'open' ? 'open loop' : 'closed loop';
  return `${result.target}, ${result.eras.join(' + ')}, ${loop} ${levels} for ${formatAt(plan.durationMs)}${plan.warmupMs > 0 ? ` after a ${formatAt(plan.warmupMs)} warm-up` : ''}${plan.rampMs > 0 ? `, ramp ${formatAt(plan.rampMs)}` : ''}, ${plan.sessions} session${plan.sessions === 1 ? '' : 's'}${result.eras.length > 1 ? ' per era' : ''}; ${plan.operations.join(', ')}`;
}

/** What the loss lines read of a run. */
type LossFacts = Counts & { readonly lost: number; readonly plan: { readonly hangMs: number }; readonly warmup: Counts };

/**
 * Whether anything was lost, in one line. The warm-up is not measured, but a call it lost is lost all the same: a
 * server that hangs on its first calls must not read as one that lost nothing.
 */
export function lostLine(result: LossFacts): string {
  const warmLost = lostOf(result.warmup);
  const warm = warmLost === 0 ? '' : `; the warm-up lost ${formatCount(warmLost)} of its ${formatCount(result.warmup.sent)} calls: ${lostParts(result.warmup, result.plan.hangMs)}`;
  if (result.lost === 0) {
    return warmLost === 0 ? `nothing lost: every one of the ${formatCount(result.sent)} calls sent was answered` : `nothing lost of the ${formatCount(result.sent)} measured calls${warm}`;
  }
  return `lost ${formatCount(result.lost)} of ${formatCount(result.sent)} calls: ${lostParts(result, result.plan.hangMs)}${warm}`;
}

/** Whether the run lost any call, warm-up included. */
export function lostAny(result: LossFacts): boolean {
  return result.lost > 0 || lostOf(result.warmup) > 0;
}

function lostParts(counts: Counts, hangMs: number): string {
  const closed = Object.entries(counts.errorsByCode).filter(([code]) => LOST_CODES.has(code)).reduce((total, [, count]) => total + count, 0);
  return [closed > 0 ? `${formatCount(closed)} failed when their connection went away` : '', counts.hung > 0 ? `${formatCount(counts.hung)} hung (no answer within ${formatMs(hangMs)})` : ''].filter((part) => part !== '').join(', ');
}

export function renderSummary(result: LoadResult): string {
  const lines: string[] = [`rxmcp load: ${planLine(result)}${result.interrupted ? ' (interrupted)' : ''}`, ''];
  const rows: string[][] = [[...COLUMNS], row('total', result, result.latency)];
  if (result.byEra.length > 1) for (const era of result.byEra) rows.push(row(era.era, era, era.latency));
  if (result.warmup.sent > 0) rows.push([...row('warm-up', result.warmup, { count: 0, minMs: undefined, meanMs: undefined, p50Ms: undefined, p90Ms: undefined, p99Ms: undefined, p999Ms: undefined, maxMs: undefined })]);
  lines.push(...table(rows));
  const windows = result.windows.filter((window) => window.kind !== 'warm-up');
  if (windows.length > 1) {
    lines.push('', 'windows (calls by the time they were due):');
    lines.push(...table([[...COLUMNS], ...windows.map((window) => row(`${window.label} (${formatAt(window.fromMs)}-${formatAt(window.toMs)})`, window, window.latency))]).map((line) => `  ${line}`));
  }
  for (const fault of result.faults) {
    const recovered = fault.recoveredAtMs === undefined ? 'not answered again within the run' : `answered again ${formatMs(fault.recoveredAtMs - fault.atMs)} after it began`;
    const struck = fault.inFlight;
    const inFlight = `${struck.calls} in flight when it struck (${struck.ok} ok, ${struck.errors} errors, ${struck.wrong} wrong, ${struck.hung} hung)`;
    lines.push(`fault ${fault.label}: ${fault.skipped ?? `${fault.targets} ${fault.kind === 'drop' ? 'connection(s)' : 'process(es)'}`}; ${inFlight}; ${recovered}`);
  }
  lines.push('');
  if (result.errors > 0) lines.push(`errors by code: ${byCode(result.errorsByCode)}`);
  if (result.wrong > 0) {
    lines.push(`WRONG ANSWERS: ${formatCount(result.wrong)} (${byCode(result.wrongByReason)})`);
    for (const sample of result.byEra.flatMap((era) => era.wrongSamples).slice(0, 3)) lines.push(`  ${sample.operation}: ${sample.reason}: expected ${JSON.stringify(sample.expected)}, got ${JSON.stringify(sample.got)}`);
  }
  const { answers } = result;
  if (answers.duplicate + answers.unknownId > 0) lines.push(`ANSWERS NOT MATCHING A REQUEST: ${answers.duplicate} duplicate, ${answers.unknownId} with an unknown id`);
  if (answers.late > 0) lines.push(`late answers (after the call was given up on): ${formatCount(answers.late)}`);
  if (result.unsent !== undefined && result.unsent > 0) {
    lines.push(`NOT SENT: ${formatCount(result.unsent)} calls the plan had due were held back (the in-flight cap, or a session not taking more): the schedule was not kept`);
  }
  lines.push(`rates: ${result.rates.planned === undefined ? '' : `planned ${result.rates.planned.toFixed(1)}/s, `}sent ${result.rates.sent.toFixed(1)}/s, ok ${result.rates.ok.toFixed(1)}/s`);
  lines.push(`latency ${result.mode === 'open' ? 'from the time each call was due' : 'from sending'}; service time (from sending) p50 ${formatMs(result.serviceTime.p50Ms)}, p99 ${formatMs(result.serviceTime.p99Ms)}`);
  if (result.server !== undefined) {
    const server = result.server;
    lines.push(`server (pid ${server.pids.join(', ') || '-'}): CPU ${formatPercent(server.cpu, 0)} of a core, RSS peak ${formatBytes(server.rssPeak)}${server.rssPerSession === undefined ? '' : `, ${formatBytes(server.rssPerSession)} per session`}`);
  }
  lines.push(`tester: ${result.tester.verdict}`);
  lines.push(lostLine(result));
  return lines.join('\n');
}

/** One line of live status. */
export function statusLine(status: LiveStatus): string {
  const parts = [
    `${formatAt(status.atMs).padStart(6)}${status.phase === 'measuring' ? '' : ` ${status.phase}`}`,
    `${status.rate.toFixed(0)}/s`,
    `p50 ${formatMs(status.p50Ms)}`,
    `p99 ${formatMs(status.p99Ms)}`,
    `ok ${formatCount(status.ok)}`,
    `err ${formatCount(status.errors)}`,
    `wrong ${formatCount(status.wrong)}`,
    `hung ${formatCount(status.hung)}`,
    `in flight ${formatCount(status.inFlight)}`,
    `sessions ${status.sessionsUp}`,
  ];
  if (status.serverCpu !== undefined) parts.push(`server CPU ${formatPercent(status.serverCpu, 0)} RSS ${formatBytes(status.serverRss)}`);
  parts.push(`tester CPU ${formatPercent(status.testerCpu, 0)}${status.testerBound ? ' (TESTER-BOUND)' : ''}`);
  return parts.join('  ');
}
