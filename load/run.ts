/**
 * `runLoad`: a load, soak or chaos run against any MCP server. It opens the sessions (per era), picks the
 * operations (the server's echo tool by default), then drives the schedule: a 1 ms tick sends what is due, an
 * interval timer samples the run (answers, latency, this process, the server's process) into the time series and
 * the live status, and the faults strike on time. At the end it stops sending, waits for the calls in flight (at
 * most the hang limit, after which the client has given up on them), closes everything and returns the result.
 */
import { performance } from 'node:perf_hooks';
import { Accounts } from './accounts.ts';
import { connectorFor } from './connector.ts';
import { type FaultRecord, FaultPlan } from './faults.ts';
import { Lane } from './lane.ts';
import { encodeHistogram, spectrum, summarize } from './latency.ts';
import { type LiveStatus, type LoadOptions, type ResolvedOptions, resolveOptions, targetLabel } from './options.ts';
import { defaultOperation, prepareOperations } from './operations.ts';
import { ProcessWatch } from './proc.ts';
import type { LoadResult, SeriesPoint } from './result.ts';
import { type ServerFigures, assembleResult } from './result-assembly.ts';
import { Schedule } from './schedule.ts';
import { SelfWatch } from './self-watch.ts';
import { SessionPool } from './sessions.ts';
import { HUNG, type Outcome } from './tally.ts';

const TICK_MS = 1;
const INTERRUPTED: Outcome = Object.freeze({ kind: 'error', code: 'Interrupted', message: 'the run was stopped before this call was answered' });

/**
 * Runs a load against a target and resolves with the result once the run is over (or stopped through
 * `signal`). Rejects when no session can be opened, or when the workload does not fit the server.
 *
 * @example
 * ```ts
 * import { runLoad } from 'rxmcp/load';
 * const result = await runLoad({ target: { url: 'http://127.0.0.1:3000/mcp' }, rate: 200, durationMs: 10_000 });
 * console.log(result.sent, result.ok, result.latency.p99Ms);
 * ```
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const resolved = resolveOptions(options);
  const say = options.onEvent ?? (() => undefined);
  let t0 = performance.now();
  const now = (): number => performance.now() - t0;
  const run = String(10_000 + Math.floor(Math.random() * 90_000));
  const accounts = new Accounts(resolved.warmupMs);
  const self = new SelfWatch(now);
  const serverWatch = new ProcessWatch();
  const pools = resolved.eras.map(
    (era) =>
      new SessionPool(connectorFor(resolved.target), {
        era,
        sessions: resolved.sessions,
        connectTimeoutMs: resolved.connectTimeoutMs,
        maxInFlight: resolved.maxInFlight,
        churnCalls: resolved.churnCalls,
        churnMs: resolved.churnMs,
        now,
        say: (line) => say(`${era === 'auto' ? '' : `${era}: `}${line}`),
      }),
  );
  const pids = (): number[] => [...pools.flatMap((pool) => pool.livePids), ...(resolved.pid === undefined ? [] : [resolved.pid])];
  const rssBaseline = resolved.pid === undefined ? undefined : serverWatch.sample([resolved.pid])?.rssBytes;
  const lanes: Lane[] = [];
  const markInFlight = (record: FaultRecord): number => lanes.reduce((total, lane) => total + lane.markInFlight(record), 0);
  const faults = new FaultPlan(resolved.faults, { now, pids, pools, accounts, say, markInFlight });
  try {
    await Promise.all(pools.map((pool) => (resolved.sessionRate === undefined ? pool.start() : pool.startAtRate(resolved.sessionRate))));
    for (const [index, pool] of pools.entries()) {
      if (pool.up === 0) {
        const cause = pool.firstFailure;
        const era = resolved.eras[index];
        const hint = era === 'modern' ? ' (the modern era, 2026-07-28, was asked for: a server that speaks only the legacy one refuses it; try --era legacy or auto)' : '';
        throw new Error(`could not open a session to ${targetLabel(resolved.target)}${cause === undefined ? '' : `: ${causeOf(cause)}`}${hint}`, { cause });
      }
      const schedule = new Schedule({ warmupMs: resolved.warmupMs, rampMs: resolved.rampMs, steps: resolved.steps });
      const lane = new Lane(
        { era: pool.era ?? 'legacy', index, run, mode: resolved.mode, hangMs: resolved.hangMs, maxInFlight: resolved.maxInFlight, now },
        pool,
        schedule,
        accounts,
        self,
      );
      await prepareLane(lane, pool, resolved, run);
      lanes.push(lane);
    }
    return await drive(resolved, options, { lanes, pools, accounts, self, serverWatch, faults, pids, rssBaseline, now, resetClock: () => (t0 = performance.now()) });
  } finally {
    faults.stop();
    self.stop();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}

async function prepareLane(lane: Lane, pool: SessionPool, resolved: ResolvedOptions, run: string): Promise<void> {
  const operations = resolved.operations;
  const needsTools = operations === undefined || operations.some((operation) => operation.method === 'tools/call');
  const session = pool.pick()?.session;
  if (session === undefined) throw new Error('no session is up');
  const tools = needsTools ? await session.listTools() : [];
  const chosen = operations ?? [defaultOperation(tools)];
  lane.setOperations(prepareOperations(chosen, tools, run), chosen.map((operation) => operation.weight ?? 1));
}

interface Parts {
  readonly lanes: readonly Lane[];
  readonly pools: readonly SessionPool[];
  readonly accounts: Accounts;
  readonly self: SelfWatch;
  readonly serverWatch: ProcessWatch;
  readonly faults: FaultPlan;
  readonly pids: () => number[];
  readonly rssBaseline: number | undefined;
  readonly now: () => number;
  readonly resetClock: () => void;
}

async function drive(resolved: ResolvedOptions, options: LoadOptions, parts: Parts): Promise<LoadResult> {
  const { lanes, pools, accounts, self, serverWatch, faults, pids, now } = parts;
  const startedAt = new Date();
  parts.resetClock();
  // The baseline of the server's CPU: what its processes used before the run (starting up) is not the run's.
  serverWatch.sample(pids());
  const schedule = new Schedule({ warmupMs: resolved.warmupMs, rampMs: resolved.rampMs, steps: resolved.steps });
  const endMs = schedule.endMs;
  const points: SeriesPoint[] = [];
  const server: ServerFigures = { cpuMs: 0, wallMs: 0, rssPeak: undefined, processes: 0 };
  let interrupted = options.signal?.aborted === true;
  let phase: LiveStatus['phase'] = resolved.warmupMs > 0 ? 'warm-up' : 'measuring';
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const at = (ms: number, action: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, Math.max(0, ms - now()));
    timers.add(timer);
  };
  if (resolved.warmupMs > 0) accounts.openWindow('warm-up', 'warm-up', 0);
  resolved.steps.forEach((step, index) => {
    const label = resolved.mode === 'open' ? `${step.level}/s` : `${step.level} in flight`;
    const start = schedule.stepStarts[index] ?? 0;
    if (start === 0) accounts.openWindow(label, 'step', 0);
    else at(start, () => accounts.openWindow(label, 'step', now()));
  });
  if (resolved.warmupMs > 0) at(resolved.warmupMs, () => (phase = 'measuring'));
  if (resolved.faults.length > 0) accounts.okWatcher = () => (faults.watching ? faults.answeredOk(now()) : undefined);
  faults.arm(0);
  let lastInterval = 0;
  /** When the server was last sampled: its CPU over a span is read against that span. */
  let lastServerAt = 0;
  const countServer = (sample: { readonly cpuMs: number; readonly rssBytes: number; readonly processes: number }, wall: number): void => {
    server.cpuMs += sample.cpuMs;
    server.wallMs += wall;
    server.rssPeak = Math.max(server.rssPeak ?? 0, sample.rssBytes);
    server.processes = Math.max(server.processes, sample.processes);
  };
  const sampleInterval = (): void => {
    const atMs = now();
    // An interval belongs to the measured part when most of it does (timers fire a little early or late).
    const measured = (lastInterval + atMs) / 2 >= resolved.warmupMs && phase !== 'draining';
    const wall = Math.max(1, atMs - lastInterval);
    lastInterval = atMs;
    const mine = self.sample(resolved.mode === 'open', measured);
    const serverNow = serverWatch.sample(pids());
    const serverWall = Math.max(1, atMs - lastServerAt);
    lastServerAt = atMs;
    if (serverNow !== undefined && measured) countServer(serverNow, serverWall);
    const interval = accounts.interval;
    const latency = summarize(interval.latency);
    const inFlight = lanes.reduce((total, lane) => total + lane.calls, 0);
    const sessionsUp = pools.reduce((total, pool) => total + pool.up, 0);
    const activity = interval.sent + interval.ok + interval.errors + interval.wrong + interval.hung;
    // The last, partial interval of a run whose calls were all answered in time adds nothing but a drop to zero.
    if (phase === 'draining' && activity === 0) return;
    const point: SeriesPoint = {
      atMs,
      sent: interval.sent,
      ok: interval.ok,
      errors: interval.errors,
      wrong: interval.wrong,
      hung: interval.hung,
      rate: ((interval.ok + interval.errors + interval.wrong) * 1000) / wall,
      p50Ms: latency.p50Ms,
      p90Ms: latency.p90Ms,
      p99Ms: latency.p99Ms,
      maxMs: latency.maxMs,
      inFlight,
      sessionsUp,
      serverCpu: serverNow === undefined ? undefined : serverNow.cpuMs / serverWall,
      serverRss: serverNow?.rssBytes,
      testerCpu: mine.cpu,
      loopDelayP99Ms: mine.loopDelayP99Ms,
      slipP99Ms: mine.slipP99Ms,
      testerBound: mine.bound,
    };
    const previous = points[points.length - 1];
    if (phase === 'draining' && previous !== undefined && wall < resolved.intervalMs / 2) {
      // A short last interval is folded into the one before, so its rate is not read off a sliver of time.
      const ended = previous.rate * ((previous.atMs - (points[points.length - 2]?.atMs ?? 0)) / 1000) + (point.ok + point.errors + point.wrong);
      points[points.length - 1] = {
        ...previous,
        atMs,
        sent: previous.sent + point.sent,
        ok: previous.ok + point.ok,
        errors: previous.errors + point.errors,
        wrong: previous.wrong + point.wrong,
        hung: previous.hung + point.hung,
        rate: (ended * 1000) / Math.max(1, atMs - (points[points.length - 2]?.atMs ?? 0)),
        maxMs: Math.max(previous.maxMs ?? 0, point.maxMs ?? 0) || undefined,
      };
    } else {
      points.push(point);
    }
    interval.reset();
    if (mine.bound && measured) self.reasons.add(mine.reason ?? 'cpu');
    const total = accounts.total;
    const warm = accounts.warmup;
    if (phase !== 'draining') options.onStatus?.({
      atMs,
      phase,
      rate: point.rate,
      p50Ms: point.p50Ms,
      p99Ms: point.p99Ms,
      sent: total.sent + warm.sent,
      ok: total.ok + warm.ok,
      errors: total.errors + warm.errors,
      wrong: total.wrong + warm.wrong,
      hung: total.hung + warm.hung,
      inFlight,
      sessionsUp,
      serverCpu: point.serverCpu,
      serverRss: point.serverRss,
      testerCpu: mine.cpu,
      testerBound: mine.bound,
    });
  };
  const intervalTimer = setInterval(sampleInterval, resolved.intervalMs);
  await new Promise<void>((resolve) => {
    const onAbort = (): void => {
      interrupted = true;
      finish();
    };
    let ticker: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      if (ticker !== undefined) clearTimeout(ticker);
      options.signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    if (interrupted) return finish();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const tick = (): void => {
      const t = now();
      // The last tick still sends what fell due since the one before (a timer fires late, a tester lags): the plan's
      // calls up to its end are sent, or counted as not sent, never forgotten.
      for (const lane of lanes) lane.tick(t, endMs);
      if (t >= endMs) return finish();
      ticker = setTimeout(tick, TICK_MS);
    };
    tick();
  });
  for (const timer of timers) clearTimeout(timer);
  const measuredUntil = Math.min(now(), endMs);
  // The server's last sample of the measured part: a run shorter than one interval has no other (its memory per
  // session would not be known), and the rest of the measured part would go uncounted.
  if (!interrupted && measuredUntil > resolved.warmupMs) {
    const atEnd = now();
    const closing = serverWatch.sample(pids());
    if (closing !== undefined) countServer(closing, Math.max(1, atEnd - lastServerAt));
    lastServerAt = atEnd;
  }
  phase = 'draining';
  await Promise.all(lanes.map((lane) => (interrupted ? lane.stop(Math.min(2000, resolved.hangMs), INTERRUPTED) : lane.stop(resolved.hangMs + 2000, HUNG))));
  clearInterval(intervalTimer);
  sampleInterval();
  accounts.closeWindows(measuredUntil);
  faults.stop();
  const plannedCalls = resolved.mode === 'open' ? (schedule.callsBefore(endMs) - schedule.callsBefore(resolved.warmupMs)) * lanes.length : undefined;
  return assembleResult({
    resolved,
    startedAt,
    accounts,
    lanes,
    pools,
    faults: faults.records,
    points,
    self,
    server,
    pids: pids(),
    rssBaseline: parts.rssBaseline,
    measuredMs: Math.max(1, measuredUntil - resolved.warmupMs),
    plannedCalls,
    interrupted,
    histogram: encodeHistogram(accounts.total.latency),
    distribution: spectrum(accounts.total.latency),
  });
}

function causeOf(error: Error): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current.message !== '' && !messages.some((seen) => seen.includes((current as Error).message))) messages.push(current.message);
    current = current.cause;
  }
  return messages.join(': ');
}
