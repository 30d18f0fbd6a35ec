/**
 * The accounting of a set of calls: every call sent ends as exactly one of ok, error (by code), wrong (by
 * reason) or hung, so sent = ok + errors + wrong + hung once the calls in flight are settled. A Tally counts one
 * scope (the run, an era, a window of time) and keeps its latency histogram.
 */
import { type LatencyHistogram, type LatencySummary, newHistogram, recordMs, summarize } from './latency.ts';

export type Outcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'error'; readonly code: string; readonly message: string }
  | { readonly kind: 'wrong'; readonly reason: string; readonly expected: string; readonly got: string }
  | { readonly kind: 'hung' };

export const OK: Outcome = Object.freeze({ kind: 'ok' });
export const HUNG: Outcome = Object.freeze({ kind: 'hung' });

/** The counts of a scope, as a result carries them. */
export interface Counts {
  readonly sent: number;
  readonly ok: number;
  readonly errors: number;
  readonly wrong: number;
  readonly hung: number;
  /** Errors by code: a JSON-RPC code (`-32603`), a local one (`ConnectionClosed`), or `tool-error` (isError). */
  readonly errorsByCode: Readonly<Record<string, number>>;
  /** Wrong answers by what was wrong with them. */
  readonly wrongByReason: Readonly<Record<string, number>>;
}

export class Tally {
  sent = 0;
  ok = 0;
  errors = 0;
  wrong = 0;
  hung = 0;
  readonly errorsByCode = new Map<string, number>();
  readonly wrongByReason = new Map<string, number>();
  readonly latency: LatencyHistogram;

  constructor(histogram: LatencyHistogram = newHistogram()) {
    this.latency = histogram;
  }

  /** An ended call; `latencyMs` is recorded for every outcome but hung (whose wait is the limit, not an answer). */
  settle(outcome: Outcome, latencyMs: number): void {
    switch (outcome.kind) {
      case 'ok':
        this.ok++;
        break;
      case 'error':
        this.errors++;
        this.errorsByCode.set(outcome.code, (this.errorsByCode.get(outcome.code) ?? 0) + 1);
        break;
      case 'wrong':
        this.wrong++;
        this.wrongByReason.set(outcome.reason, (this.wrongByReason.get(outcome.reason) ?? 0) + 1);
        break;
      case 'hung':
        this.hung++;
        return;
    }
    recordMs(this.latency, latencyMs);
  }

  get settled(): number {
    return this.ok + this.errors + this.wrong + this.hung;
  }

  counts(): Counts {
    return {
      sent: this.sent,
      ok: this.ok,
      errors: this.errors,
      wrong: this.wrong,
      hung: this.hung,
      errorsByCode: Object.fromEntries(this.errorsByCode),
      wrongByReason: Object.fromEntries(this.wrongByReason),
    };
  }

  summary(): LatencySummary {
    return summarize(this.latency);
  }
}

/** Local error codes that mean the request never got an answer: the connection went away under it. */
export const LOST_CODES: ReadonlySet<string> = new Set(['ConnectionClosed', 'TransportFailed', 'RequestAborted']);

/** Calls that got no answer at all: hung, or failed because their connection was lost. */
export function lostOf(counts: Counts): number {
  let lost = counts.hung;
  for (const [code, count] of Object.entries(counts.errorsByCode)) if (LOST_CODES.has(code)) lost += count;
  return lost;
}
