/**
 * The result of a run, as `runLoad` resolves it and `--json` writes it. Counts are of the measured part (the
 * warm-up is counted apart); sent = ok + errors + wrong + hung in every scope. Latencies are milliseconds.
 */
import type { FaultRecord } from './faults.ts';
import type { LatencySummary } from './latency.ts';
import type { WrongSample } from './lane.ts';
import type { Counts } from './tally.ts';
import type { AnswerAnomalies } from './wire-check.ts';

/** One point of the time series: what the interval ending at `atMs` saw. */
export interface SeriesPoint {
  readonly atMs: number;
  readonly sent: number;
  readonly ok: number;
  readonly errors: number;
  readonly wrong: number;
  readonly hung: number;
  /** Calls ended (answered or failed) per second over the interval. */
  readonly rate: number;
  readonly p50Ms: number | undefined;
  readonly p90Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly maxMs: number | undefined;
  readonly inFlight: number;
  readonly sessionsUp: number;
  readonly serverCpu: number | undefined;
  readonly serverRss: number | undefined;
  readonly testerCpu: number;
  readonly loopDelayP99Ms: number;
  readonly slipP99Ms: number | undefined;
  readonly testerBound: boolean;
}

export interface WindowResult extends Counts {
  readonly label: string;
  readonly kind: 'warm-up' | 'step' | 'fault' | 'after-fault';
  readonly fromMs: number;
  readonly toMs: number;
  readonly latency: LatencySummary;
}

export interface EraResult extends Counts {
  readonly era: string;
  readonly latency: LatencySummary;
  readonly sessions: { readonly opened: number; readonly lost: number; readonly churned: number; readonly failedOpens: number };
  readonly answers: Readonly<AnswerAnomalies>;
  readonly wrongSamples: readonly WrongSample[];
}

export interface LoadResult extends Counts {
  /** The shape of this object; a reader checks it. */
  readonly format: 'rxmcp-load/1';
  readonly target: string;
  readonly startedAt: string;
  /** The eras that ran: one, or legacy and modern side by side. */
  readonly eras: readonly string[];
  readonly mode: 'open' | 'closed';
  /** What was asked: calls/s (open) or in flight (closed) per step, durations, sessions. */
  readonly plan: {
    readonly warmupMs: number;
    readonly durationMs: number;
    readonly rampMs: number;
    readonly steps: readonly { readonly level: number; readonly durationMs: number }[];
    readonly sessions: number;
    readonly hangMs: number;
    readonly operations: readonly string[];
  };
  /** Calls that got no answer: hung, or failed because their connection went away. */
  readonly lost: number;
  /**
   * Open loop: calls the plan had due in the measured part that were never sent, because the tester held them back
   * (the in-flight cap reached, or a session's transport not taking more); `undefined` for a closed loop.
   */
  readonly unsent: number | undefined;
  /** Answers that did not belong: duplicates, unknown ids (late ones are allowed and counted apart). */
  readonly answers: Readonly<AnswerAnomalies>;
  /** Latency from the time each call was due (open loop) or sent (closed loop). */
  readonly latency: LatencySummary;
  /** From the time each call left. */
  readonly serviceTime: LatencySummary;
  /** The latency histogram (hdr-histogram-js, compressed base64), to merge or compare. */
  readonly histogram: string;
  /** The latency at each percentile of the HDR spectrum. */
  readonly distribution: readonly { readonly percentile: number; readonly ms: number }[];
  readonly rates: {
    /** Calls per second the plan asked for (open loop), over the measured part. */
    readonly planned: number | undefined;
    readonly sent: number;
    readonly ok: number;
  };
  readonly warmup: Counts;
  readonly windows: readonly WindowResult[];
  readonly faults: readonly Readonly<FaultRecord>[];
  readonly series: { readonly intervalMs: number; readonly points: readonly SeriesPoint[] };
  /** The server's process, when known (a stdio child, or --pid). */
  readonly server:
    | {
        readonly pids: readonly number[];
        /** Mean CPU over the measured part (1 = one core). */
        readonly cpu: number | undefined;
        readonly rssPeak: number | undefined;
        /** Before any session opened (a --pid server only). */
        readonly rssBaseline: number | undefined;
        /** (peak - baseline) / sessions; for stdio children, each one's resident memory on average. */
        readonly rssPerSession: number | undefined;
      }
    | undefined;
  readonly tester: {
    /** Mean CPU over the measured part (1 = one core). */
    readonly cpu: number;
    readonly loopDelayP99Ms: number;
    readonly slipP99Ms: number | undefined;
    readonly intervals: number;
    readonly boundIntervals: number;
    /** True when the tester, not the server, held the run back in some interval: the figures understate the server. */
    readonly bottleneck: boolean;
    readonly verdict: string;
  };
  readonly byEra: readonly EraResult[];
  readonly interrupted: boolean;
}
