/**
 * Budgets a run must keep, for CI: the p99 latency, the error rate ((errors + hung) / sent) and the server's
 * memory per session, each as a bound or (p99, memory) relative to a previous run's result. A wrong answer or an
 * answer that matches no request always breaks the run: a server that answers wrongly under load is broken
 * whatever its speed. Each broken budget is one line saying what, by how much, and against what.
 */
import type { LoadResult } from './result.ts';
import { formatBytes, formatCount, formatMs, formatPercent } from './units.ts';

/** A bound, or at most this fraction above the previous run's figure (0.1: +10 %). */
export type Bound = number | { readonly relative: number };

export interface Budgets {
  readonly maxP99Ms?: Bound;
  /** (errors + hung) / sent, as a fraction. */
  readonly maxErrorRate?: number;
  readonly maxRssPerSession?: Bound;
}

export interface BudgetVerdict {
  /** True when nothing was broken. */
  readonly ok: boolean;
  /** One line per broken budget. */
  readonly broken: readonly string[];
  /** The comparison with the previous run, line by line (empty without one). */
  readonly comparison: readonly string[];
}

export function errorRate(result: Pick<LoadResult, 'errors' | 'hung' | 'sent'>): number {
  return result.sent === 0 ? 0 : (result.errors + result.hung) / result.sent;
}

/** Reads a previous result (the JSON `--json` wrote), refusing anything else. */
export function readPreviousResult(text: string, source: string): LoadResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RangeError(`${source} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if ((parsed as { format?: unknown } | null)?.format !== 'rxmcp-load/1') throw new RangeError(`${source} is not a result of rxmcp load (written with --json)`);
  return parsed as LoadResult;
}

function change(now: number | undefined, before: number | undefined): string {
  if (now === undefined || before === undefined || before === 0) return '';
  const delta = (now - before) / before;
  return ` (${delta >= 0 ? '+' : ''}${(delta * 100).toFixed(1)}%)`;
}

export function checkBudgets(result: LoadResult, budgets: Budgets, previous?: LoadResult): BudgetVerdict {
  const broken: string[] = [];
  if (result.wrong > 0) broken.push(`wrong answers: ${formatCount(result.wrong)} of ${formatCount(result.sent)} calls were answered with another call's answer or the wrong text`);
  if (result.answers.duplicate + result.answers.unknownId > 0) {
    broken.push(`answers not matching a request: ${result.answers.duplicate} duplicate, ${result.answers.unknownId} with an unknown id`);
  }
  const bound = (name: string, value: Bound, before: number | undefined): number | undefined => {
    if (typeof value === 'number') return value;
    if (before === undefined) throw new RangeError(`${name} is relative (+${(value.relative * 100).toFixed(0)}%): it needs a previous result with that figure (--compare)`);
    return before * (1 + value.relative);
  };
  const p99 = result.latency.p99Ms;
  if (budgets.maxP99Ms !== undefined) {
    const limit = bound('--max-p99', budgets.maxP99Ms, previous?.latency.p99Ms);
    if (limit !== undefined && (p99 === undefined || p99 > limit)) {
      broken.push(`p99 latency ${formatMs(p99)} is over the budget of ${formatMs(limit)}${typeof budgets.maxP99Ms === 'number' ? '' : ` (the previous run's ${formatMs(previous?.latency.p99Ms)} + ${(budgets.maxP99Ms.relative * 100).toFixed(0)}%)`}`);
    }
  }
  if (budgets.maxErrorRate !== undefined) {
    const rate = errorRate(result);
    if (rate > budgets.maxErrorRate) {
      broken.push(`error rate ${formatPercent(rate, 2)} ((${formatCount(result.errors)} errors + ${formatCount(result.hung)} hung) / ${formatCount(result.sent)} sent) is over the budget of ${formatPercent(budgets.maxErrorRate, 2)}`);
    }
  }
  if (budgets.maxRssPerSession !== undefined) {
    const perSession = result.server?.rssPerSession;
    const limit = bound('--max-rss-per-session', budgets.maxRssPerSession, previous?.server?.rssPerSession);
    if (perSession === undefined) broken.push("the server's memory per session is not known: give its --pid (or a stdio target) to check --max-rss-per-session");
    else if (limit !== undefined && perSession > limit) broken.push(`server memory per session ${formatBytes(perSession)} is over the budget of ${formatBytes(limit)}`);
  }
  const comparison: string[] = [];
  if (previous !== undefined) {
    comparison.push(`against ${previous.startedAt} (${previous.target}):`);
    comparison.push(`  p50 ${formatMs(result.latency.p50Ms)} (was ${formatMs(previous.latency.p50Ms)})${change(result.latency.p50Ms, previous.latency.p50Ms)}`);
    comparison.push(`  p99 ${formatMs(p99)} (was ${formatMs(previous.latency.p99Ms)})${change(p99, previous.latency.p99Ms)}`);
    comparison.push(`  ok/s ${result.rates.ok.toFixed(1)} (was ${previous.rates.ok.toFixed(1)})${change(result.rates.ok, previous.rates.ok)}`);
    comparison.push(`  error rate ${formatPercent(errorRate(result), 2)} (was ${formatPercent(errorRate(previous), 2)})`);
    if (result.server?.rssPerSession !== undefined || previous.server?.rssPerSession !== undefined) {
      comparison.push(`  memory per session ${formatBytes(result.server?.rssPerSession)} (was ${formatBytes(previous.server?.rssPerSession)})${change(result.server?.rssPerSession, previous.server?.rssPerSession)}`);
    }
  }
  return { ok: broken.length === 0, broken, comparison };
}
