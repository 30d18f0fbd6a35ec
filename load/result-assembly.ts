/** Puts a finished run's books together into its {@link LoadResult}. */
import type { Accounts } from './accounts.ts';
import type { FaultRecord } from './faults.ts';
import type { Lane } from './lane.ts';
import { summarize } from './latency.ts';
import { type ResolvedOptions, targetLabel } from './options.ts';
import type { EraResult, LoadResult, SeriesPoint, WindowResult } from './result.ts';
import type { SelfWatch } from './self-watch.ts';
import type { SessionPool } from './sessions.ts';
import { lostOf } from './tally.ts';
import { formatMs, formatPercent } from './units.ts';

export interface ServerFigures {
  cpuMs: number;
  wallMs: number;
  rssPeak: number | undefined;
  processes: number;
}

export interface Assembly {
  readonly resolved: ResolvedOptions;
  readonly startedAt: Date;
  readonly accounts: Accounts;
  readonly lanes: readonly Lane[];
  readonly pools: readonly SessionPool[];
  readonly faults: readonly FaultRecord[];
  readonly points: readonly SeriesPoint[];
  readonly self: SelfWatch;
  readonly server: ServerFigures;
  readonly pids: readonly number[];
  readonly rssBaseline: number | undefined;
  readonly measuredMs: number;
  readonly plannedCalls: number | undefined;
  readonly interrupted: boolean;
  readonly histogram: string;
  readonly distribution: LoadResult['distribution'];
}

export function assembleResult(parts: Assembly): LoadResult {
  const { resolved, accounts, self, server, measuredMs } = parts;
  const counts = accounts.total.counts();
  const seconds = measuredMs / 1000;
  const answers = { duplicate: 0, unknownId: 0, late: 0 };
  for (const pool of parts.pools) {
    answers.duplicate += pool.anomalies.duplicate;
    answers.unknownId += pool.anomalies.unknownId;
    answers.late += pool.anomalies.late;
  }
  const byEra: EraResult[] = parts.lanes.map((lane, index) => {
    const pool = parts.pools[index] as SessionPool;
    const tally = accounts.eraTally(lane.settings.era);
    return { era: lane.settings.era, ...tally.counts(), latency: tally.summary(), sessions: { ...pool.figures }, answers: { ...pool.anomalies }, wrongSamples: [...lane.wrongSamples] };
  });
  const windows: WindowResult[] = accounts.windows.map((window) => ({
    label: window.label,
    kind: window.kind,
    fromMs: window.from,
    toMs: window.to ?? window.from,
    ...window.tally.counts(),
    latency: window.tally.summary(),
  }));
  const testerCpu = self.wallMs > 0 ? self.cpuMs / self.wallMs : 0;
  const slipP99Ms = resolved.mode === 'open' && self.slipTotal.totalCount > 0 ? self.slipTotal.getValueAtPercentile(99) / 1000 : undefined;
  const bottleneck = self.boundIntervals > 0;
 const onlyMachine = [...self.reasons].every((reason) => reason === 'machine busy');
  const verdict = bottleneck
    ? onlyMachine
      ? `the machine held the tester back in ${self.boundIntervals} of ${self.intervals} intervals (its event loop ran late while it used ${formatPercent(testerCpu, 0)} of a core: other processes had the cores): the figures are distorted; run on a quieter machine`
      : `the tester held the run back in ${self.boundIntervals} of ${self.intervals} intervals (${[...self.reasons].join(', ')}; ${formatPercent(testerCpu, 0)} of a core): the figures understate the server; spread the load over more tester processes`
    : `the tester used ${formatPercent(testerCpu, 0)} of a core (event-loop delay p99 ${formatMs(self.loopDelayMaxP99Ms)}${slipP99Ms === undefined ? '' : `, sends late by p99 ${formatMs(slipP99Ms)}`}): not the bottleneck`;
  const serverKnown = server.wallMs > 0;
  const sessions = resolved.sessions * parts.lanes.length;
  const stdio = 'command' in resolved.target;
  const rssPerSession =
    server.rssPeak === undefined
      ? undefined
      : stdio
        ? server.rssPeak / Math.max(1, server.processes)
        : parts.rssBaseline === undefined
          ? undefined
          : Math.max(0, server.rssPeak - parts.rssBaseline) / sessions;
  return {
    format: 'rxmcp-load/1',
    target: targetLabel(resolved.target),
    startedAt: parts.startedAt.toISOString(),
    eras: byEra.map((era) => era.era),
    mode: resolved.mode,
    plan: {
      warmupMs: resolved.warmupMs,
      durationMs: resolved.durationMs,
      rampMs: resolved.rampMs,
      steps: resolved.steps,
      sessions: resolved.sessions,
      hangMs: resolved.hangMs,
      operations: parts.lanes[0]?.operationLabels ?? [],
    },
    ...counts,
    lost: lostOf(counts),
    unsent: parts.plannedCalls === undefined || parts.interrupted ? undefined : Math.max(0, parts.plannedCalls - counts.sent),
    answers,
    latency: accounts.total.summary(),
    serviceTime: summarize(accounts.serviceTime),
    histogram: parts.histogram,
    distribution: parts.distribution,
    rates: { planned: parts.plannedCalls === undefined ? undefined : parts.plannedCalls / seconds, sent: counts.sent / seconds, ok: counts.ok / seconds },
    warmup: accounts.warmup.counts(),
    windows,
    faults: parts.faults,
    series: { intervalMs: resolved.intervalMs, points: parts.points },
    server: serverKnown || parts.pids.length > 0
      ? {
          pids: parts.pids,
          cpu: serverKnown ? server.cpuMs / server.wallMs : undefined,
          rssPeak: server.rssPeak,
          rssBaseline: parts.rssBaseline,
          rssPerSession,
        }
      : undefined,
    tester: { cpu: testerCpu, loopDelayP99Ms: self.loopDelayMaxP99Ms, slipP99Ms, intervals: self.intervals, boundIntervals: self.boundIntervals, bottleneck, verdict },
    byEra,
    interrupted: parts.interrupted,
  };
}
