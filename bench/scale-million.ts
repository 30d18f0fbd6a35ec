/**
 * Scale, one million idle legacy sessions (issue 20): N idle initialized sessions in one server process, in memory
 * and over Streamable HTTP (sessions, not sockets: a keep-alive agent of a few sockets carries all of them), with
 * the creation rate, the heap per session, a burst of `tools/call` across a random sample of them (calls/s,
 * failures), and the time until every session has expired and the memory is back. A benchmark, not a test.
 *
 *   npx tsx bench/scale-million.ts [--media=memory,http] [--counts=1000,10000,100000,1000000] [--calls=10000]
 *                                  [--sample=1000] [--clients=16] [--in-flight=32] [--out=.scratch/million.md]
 *   (one measurement: node --expose-gc --max-old-space-size=20000 --import tsx bench/scale-million.ts --one --medium=memory|http --n=1000000)
 *
 * Every measurement is a fresh child (`node --expose-gc --max-old-space-size=20000 --import tsx`). Per count:
 * 200 warm-up sessions (kept); settle, gc twice, baseline heapUsed/RSS; N sessions opened (`initialize`
 * 2025-11-25, its answer awaited, `notifications/initialized`), timed: sessions/s; settle, gc twice: heap per
 * session = (after − baseline) / N; then the burst: `--calls` `tools/call` of the echo tool, each on a session
 * drawn at random from a random sample of `--sample` of the N, `--in-flight` at a time, answers checked (failures
 * counted, not thrown); then the expiry: the server's clock (bench/warp-clock.ts) jumps past the idle timeout,
 * and the time until the server holds no session is measured, then gc and the heap against the baseline.
 *
 * In memory: `createSessionHost(createServer())` (the host's idle sweep, every 1 s) takes each session over its own
 * in-memory pair, driven by a minimal raw client in the same process (its ends are in the heap figure, as in
 * bench/scale-idle.ts). Over HTTP: the server is a child (bench/million-http-server.ts: `createStreamableHttpServer`,
 * responseMode 'sse', maxSessions N + 1,000, its per-session idle timer on the warp clock), this process the raw
 * node:http client (`--clients` keep-alive sockets, as many handshakes at a time); the heap is the server's.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type ChartFile, type LineSeries, lineChartSvg, writeCharts } from './charts.ts';
import { Agent } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../core/jsonrpc.ts';
import { callArgs, echo, type EchoArgs, echoJsonSchema, expectedText, serverInfo } from './echo-tool.ts';
import { argInt, argValue, emitResult, fmt, hasFlag, isMain, repoRoot, runChild } from './lib.ts';
import { revision } from './modern.ts';
import { clocked, pool, readMemory } from './scale-lib.ts';
import { Program, postJson, processCpuUs } from './transport-lib.ts';
import { WarpClock } from './warp-clock.ts';

export type Medium = 'memory' | 'http';

export interface MillionFigures {
  readonly medium: Medium;
  readonly n: number;
  readonly warmup: number;
  readonly openMs: number;
  /** CPU of this process while opening (memory: client and server; HTTP: the client). */
  readonly openCpuMs: number;
  /** HTTP: CPU of the server child while opening. */
  readonly serverOpenCpuMs?: number;
  readonly sessionsPerSecond: number;
  readonly heapBytesPerSession: number;
  readonly rssBytesPerSession: number;
  readonly baselineHeapBytes: number;
  readonly afterHeapBytes: number;
  readonly afterRssBytes: number;
  readonly burst: BurstFigures;
  readonly expire: ExpireFigures;
  readonly command: string;
}

export interface BurstFigures {
  readonly calls: number;
  readonly sample: number;
  readonly inFlight: number;
  readonly ok: number;
  readonly failed: number;
  readonly firstFailure: string | undefined;
  readonly wallMs: number;
  readonly callsPerSecond: number;
  /** HTTP: CPU of the server child during the burst, per call. */
  readonly serverCpuUsPerCall?: number;
}

export interface ExpireFigures {
  /** Timers fired by the clock jump (HTTP: one idle timer per session; memory: none, the sweep does it). */
  readonly fired: number;
  /** From the jump until the server holds no session. */
  readonly expireMs: number;
  readonly heapAfterBytes: number;
  readonly rssAfterBytes: number;
  /** Heap after expiry and gc minus the baseline (warm-up sessions included in the baseline, expired too). */
  readonly heapReturnedDeltaBytes: number;
  readonly sessionsLeft: number;
}

const protocolVersion = '2025-11-25';
/**
 * Longer than any run takes to open its sessions (over HTTP on a loaded machine, 100,000 took over 10 minutes and
 * the first ones expired by themselves): expiry is measured by the clock's jump, never by waiting.
 */
const idleMs = 4 * 3_600_000;
const nodeArgs = ['--expose-gc', '--max-old-space-size=20000', '--import', 'tsx'];
const initializeParams = { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-client', version: '0.0.0' } };

/** `count` distinct indices out of [0, n), drawn uniformly (partial Fisher–Yates over a sparse map). */
export function randomSample(n: number, count: number): number[] {
  const k = Math.min(n, count);
  const swapped = new Map<number, number>();
  const out: number[] = [];
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(Math.random() * (n - i));
    const atJ = swapped.get(j) ?? j;
    swapped.set(j, swapped.get(i) ?? i);
    out.push(atJ);
  }
  return out;
}

/** Runs `count` calls, each on a random member of `sample`, `inFlight` at a time; failures counted. */
async function burst(count: number, sample: readonly number[], inFlight: number, call: (session: number) => Promise<void>): Promise<BurstFigures> {
  let ok = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const run = await clocked(() => pool(count, inFlight, async () => {
    const session = sample[Math.floor(Math.random() * sample.length)] ?? 0;
    try {
      await call(session);
      ok++;
    } catch (error) {
      failed++;
      firstFailure ??= error instanceof Error ? error.message : String(error);
    }
  }));
  return { calls: count, sample: sample.length, inFlight, ok, failed, firstFailure, wallMs: run.wallMs, callsPerSecond: (count * 1000) / run.wallMs };
}

// ---------------------------------------------------------------------------------------------------------
// In memory

async function measureMemory(n: number, warmup: number, calls: number, sampleSize: number, inFlight: number): Promise<Omit<MillionFigures, 'command'>> {
  const { createServer, createSessionHost } = await import('../index.ts');
  const { createMemoryPair } = await import('../transports/memory/index.ts');
  const clock = new WarpClock();
  const server = createServer(serverInfo);
  server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
  const host = createSessionHost(server, { maxSessions: n + warmup + 1_000, idleTimeoutMs: idleMs, sweepIntervalMs: 1_000, clock });
  // One answer table for every raw client end: request ids are unique across the process.
  const waiting = new Map<number, (answer: JsonObject) => void>();
  let nextId = 1;
  const onFrame = (frame: { type: string; payload?: unknown }): void => {
    if (frame.type !== 'message') return;
    const answer = frame.payload as JsonObject;
    const id = answer['id'];
    if (typeof id !== 'number') return;
    const resolve = waiting.get(id);
    waiting.delete(id);
    resolve?.(answer);
  };
  type End = ReturnType<typeof createMemoryPair>[0];
  const request = (end: End, method: string, params: JsonObject): Promise<JsonObject> => {
    const id = nextId++;
    const answered = new Promise<JsonObject>((resolve) => waiting.set(id, resolve));
    void end.send({ payload: { jsonrpc: '2.0', id, method, params } });
    return answered;
  };
  const open = async (): Promise<End> => {
    const [clientEnd, serverEnd] = createMemoryPair();
    clientEnd.incoming$.subscribe(onFrame);
    host.accept(serverEnd);
    const answer = await request(clientEnd, 'initialize', initializeParams);
    if (answer['result'] === undefined) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
    await clientEnd.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    return clientEnd;
  };
  const warm: End[] = [];
  for (let i = 0; i < warmup; i++) warm.push(await open());
  const ends = new Array<End | undefined>(n).fill(undefined);
  const baseline = await readMemory();
  const opened = await clocked(async () => {
    for (let i = 0; i < n; i++) ends[i] = await open();
  });
  const after = await readMemory();
  if (server.sessions.size !== n + warmup) throw new Error(`the server holds ${server.sessions.size} sessions, expected ${n + warmup}`);
  const sample = randomSample(n, sampleSize);
  const burstFigures = await burst(calls, sample, inFlight, async (index) => {
    const end = ends[index];
    if (end === undefined) throw new Error(`no session ${index}`);
    const answer = await request(end, 'tools/call', { name: 'echo', arguments: callArgs });
    const text = ((answer['result'] as { content?: { text?: string }[] } | undefined)?.content ?? [])[0]?.text;
    if (text !== expectedText) throw new Error(`tools/call answered ${JSON.stringify(answer).slice(0, 200)}`);
  });
  const expireStart = process.hrtime.bigint();
  await clock.advance(idleMs + 1_000);
  const deadline = Date.now() + 600_000;
  while (server.sessions.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  const expireMs = Number(process.hrtime.bigint() - expireStart) / 1e6;
  // The raw client ends are this process's, not the server's: drop them before reading what the server gave back.
  ends.fill(undefined);
  warm.length = 0;
  const returned = await readMemory();
  return {
    medium: 'memory', n, warmup, openMs: opened.wallMs, openCpuMs: opened.cpuMs, sessionsPerSecond: (n * 1000) / opened.wallMs,
    heapBytesPerSession: (after.heapUsed - baseline.heapUsed) / n, rssBytesPerSession: (after.rss - baseline.rss) / n,
    baselineHeapBytes: baseline.heapUsed, afterHeapBytes: after.heapUsed, afterRssBytes: after.rss,
    burst: burstFigures,
    expire: { fired: 0, expireMs, heapAfterBytes: returned.heapUsed, rssAfterBytes: returned.rss, heapReturnedDeltaBytes: returned.heapUsed - baseline.heapUsed, sessionsLeft: server.sessions.size },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Streamable HTTP

const sseResult = (body: string): boolean => body.includes('"result"');

async function measureHttp(n: number, warmup: number, calls: number, sampleSize: number, inFlight: number, clients: number): Promise<Omit<MillionFigures, 'command'>> {
  const args = [join(repoRoot, 'bench/million-http-server.ts'), `--max-sessions=${n + warmup + 1_000}`, `--idle-ms=${idleMs}`];
  const program = new Program(spawn(process.execPath, [...nodeArgs, ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
  try {
    const url = new URL(String((await program.ready)['url']));
    const agent = new Agent({ keepAlive: true, maxSockets: clients });
    let nextId = 1;
    const openOne = async (): Promise<string> => {
      const answer = await postJson(agent, url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams });
      const id = answer.headers['mcp-session-id'];
      if (answer.status !== 200 || typeof id !== 'string' || !sseResult(answer.body)) throw new Error(`initialize answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      const note = await postJson(agent, url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion });
      if (note.status !== 202) throw new Error(`notifications/initialized answered ${note.status}: ${note.body.slice(0, 200)}`);
      return id;
    };
    await pool(warmup, clients, async () => void (await openOne()));
    const baseline = (await program.command('measure')) as unknown as { heapUsed: number; rss: number; sessions: number };
    const ids = new Array<string>(n).fill('');
    const serverCpuBefore = processCpuUs(program.pid);
    const opened = await clocked(() => pool(n, clients, async (i) => void (ids[i] = await openOne())));
    const serverOpenCpuMs = (processCpuUs(program.pid) - serverCpuBefore) / 1000;
    const after = (await program.command('measure')) as unknown as { heapUsed: number; rss: number; sessions: number };
    if (after.sessions !== n + warmup) throw new Error(`the server holds ${after.sessions} sessions, expected ${n + warmup}`);
    const sample = randomSample(n, sampleSize);
    const serverCpuBeforeBurst = processCpuUs(program.pid);
    const burstRun = await burst(calls, sample, inFlight, async (index) => {
      const answer = await postJson(agent, url, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'echo', arguments: callArgs } },
        { 'mcp-session-id': ids[index] ?? '', 'mcp-protocol-version': protocolVersion });
      if (answer.status !== 200 || !answer.body.includes(expectedText)) throw new Error(`tools/call answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    });
    const burstFigures: BurstFigures = { ...burstRun, serverCpuUsPerCall: (processCpuUs(program.pid) - serverCpuBeforeBurst) / calls };
    agent.destroy();
    const expired = (await program.command('expire')) as unknown as { fired: number; expireMs: number; heapUsed: number; rss: number; sessions: number; serverSessions: number };
    return {
      medium: 'http', n, warmup, openMs: opened.wallMs, openCpuMs: opened.cpuMs, serverOpenCpuMs, sessionsPerSecond: (n * 1000) / opened.wallMs,
      heapBytesPerSession: (after.heapUsed - baseline.heapUsed) / n, rssBytesPerSession: (after.rss - baseline.rss) / n,
      baselineHeapBytes: baseline.heapUsed, afterHeapBytes: after.heapUsed, afterRssBytes: after.rss,
      burst: burstFigures,
      expire: { fired: expired.fired, expireMs: expired.expireMs, heapAfterBytes: expired.heapUsed, rssAfterBytes: expired.rss,
        heapReturnedDeltaBytes: expired.heapUsed - baseline.heapUsed, sessionsLeft: expired.sessions + expired.serverSessions },
    };
  } finally {
    await program.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The run and its report

export interface MillionRun {
  readonly figures: readonly MillionFigures[];
  readonly skipped: readonly string[];
  readonly revision: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly minutes: number;
  readonly measuredAt: string;
  /** Every run whose figures are kept (a run re-measures some media and counts, the others stay). */
  readonly runs?: readonly RunNote[];
}

export interface RunNote {
  readonly measured: string;
  readonly minutes: number;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly revision: string;
  readonly measuredAt: string;
}

const noteOf = (run: MillionRun): RunNote => ({
  measured: [...new Set(run.figures.map((f) => `${f.medium} ${fmt(f.n, 0)}`))].join(', '),
  minutes: run.minutes, loadBefore: run.loadBefore, loadAfter: run.loadAfter, revision: run.revision, measuredAt: run.measuredAt,
});

const kib = (b: number): string => `${fmt(b / 1024)} KiB`;
const mib = (b: number): string => `${fmt(b / 1048576, 1)} MiB`;
const secs = (ms: number): string => (ms >= 10_000 ? `${fmt(ms / 1000, 1)} s` : `${fmt(ms, 0)} ms`);

export function millionMarkdown(run: MillionRun): string {
  const rows = run.figures.map((f) => [f.medium === 'memory' ? 'in memory' : 'Streamable HTTP', fmt(f.n, 0), `${fmt(f.sessionsPerSecond, 0)}/s (${secs(f.openMs)})`,
    `${fmt(cpuUsPerSession(f), 1)} µs${f.medium === 'http' ? ` (server ${fmt(((f.serverOpenCpuMs ?? 0) * 1000) / f.n, 1)})` : ''}`,
    `${kib(f.heapBytesPerSession)} (${fmt(f.heapBytesPerSession, 0)} B)`, kib(f.rssBytesPerSession), mib(f.afterHeapBytes),
    `${fmt(f.burst.callsPerSecond, 0)}/s; ${fmt(f.burst.ok, 0)} ok, ${fmt(f.burst.failed, 0)} failed`,
    `${secs(f.expire.expireMs)}`, `${mib(f.expire.heapAfterBytes)} (${f.expire.heapReturnedDeltaBytes >= 0 ? '+' : '−'}${mib(Math.abs(f.expire.heapReturnedDeltaBytes))} vs baseline; ${f.expire.sessionsLeft} sessions left)`]);
  const head = ['medium', 'idle sessions', 'creation rate (time)', 'CPU per session opened (client + server)', 'heap/session', 'RSS/session', 'heap with all open', 'burst: 10,000 tools/call over 1,000 sampled sessions', 'time to expire all', 'heap after expiry'];
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const load = (v: readonly number[]): string => v.map((x) => fmt(x)).join(' / ');
  const notes = (run.runs ?? [noteOf(run)]).filter((r) => r.measured !== '')
    .map((r) => `- ${r.measured}: ${fmt(r.minutes, 1)} min, load average before ${load(r.loadBefore)}, after ${load(r.loadAfter)} (2 cores); rxmcp at ${r.revision}; measured ${r.measuredAt}`);
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n') +
    `\n\nRuns:\n${notes.join('\n')}` +
    run.figures.filter((f) => f.burst.failed > 0).map((f) => `\n\nFailed calls (${f.medium}, ${fmt(f.n, 0)}): ${f.burst.failed}, the first with "${f.burst.firstFailure ?? ''}"` +
      (f.burst.firstFailure === 'socket hang up' ? ': the HTTP connection closed under the request (no MCP error came back)' : '')).join('') +
    (run.skipped.length === 0 ? '' : `\n\nDid not complete: ${run.skipped.join('; ')}`) + '\n';
}

/** CPU to open one session: this process (memory: both sides; HTTP: the client) plus, over HTTP, the server child. */
const cpuUsPerSession = (f: MillionFigures): number => ((f.openCpuMs + (f.serverOpenCpuMs ?? 0)) * 1000) / f.n;

/**
 * What opening sessions over Streamable HTTP cost at the largest count measured, and what that means for a
 * million: measured when the run reached it, else projected from the per-session CPU and heap (both flat in n).
 */
function httpOpening(top: MillionFigures): string {
  const clientUs = (top.openCpuMs * 1000) / top.n;
  const serverUs = ((top.serverOpenCpuMs ?? 0) * 1000) / top.n;
  const share = (cpuUsPerSession(top) * top.n) / (top.openMs * 10);
  const cost = `opening a session there is two HTTP requests
(\`initialize\` answered as an SSE stream, \`notifications/initialized\`) and cost ${fmt(cpuUsPerSession(top), 0)} µs of CPU
(client ${fmt(clientUs, 0)} µs + server ${fmt(serverUs, 0)} µs); the two processes had ${fmt(share, 0)} % of one core between them
(${fmt(top.sessionsPerSecond, 0)} sessions/s). On a core of its own the server's ${fmt(serverUs, 0)} µs per session would open
~${fmt(1e6 / Math.max(1, serverUs), 0)} sessions/s.`;
  if (top.n >= 1_000_000) {
    return `

Over Streamable HTTP ${fmt(top.n, 0)} sessions were opened and held in one server process: ${cost} Heap per session
${fmt(top.heapBytesPerSession, 0)} B (${fmt((top.heapBytesPerSession * top.n) / 2 ** 30, 2)} GiB for all of them); rows of one medium
measured at different commits (see "Runs") differ by the code between them, not by n.`;
  }
  return `

Over Streamable HTTP the largest count measured is ${fmt(top.n, 0)}: ${cost} A million at the measured rate would take
${fmt(1_000_000 / top.sessionsPerSecond / 3600, 1)} h, at the server's CPU alone ~${fmt(serverUs / 60, 1)} min, and
${fmt(top.heapBytesPerSession, 0)} B per session put it at ~${fmt((top.heapBytesPerSession * 1e6) / 2 ** 30, 1)} GiB of heap (within the 20,000 MB given).`;
}

/** The `### One million idle sessions` subsection of bench/RESULTS.md's Scale section, from the stored figures. */
export function millionSection(): string {
  const run = readRuns();
  if (run === undefined) return '';
  const httpTop = run.figures.filter((f) => f.medium === 'http').sort((a, b) => b.n - a.n)[0];
  const projection = httpTop === undefined ? '' : httpOpening(httpTop);
  return `### One million idle sessions

${millionMarkdown(run)}
Charts: [heap per session](charts/million-heap-per-session.svg), [creation rate](charts/million-creation-rate.svg),
[CPU per session opened](charts/million-cpu-per-session.svg), against the number of sessions (log scale).

Command: \`npx tsx bench/scale-million.ts --media=memory,http --counts=1000,10000,100000,1000000\` (each count of each
medium a fresh child: \`node --expose-gc --max-old-space-size=20000 --import tsx bench/scale-million.ts --one --medium=<m> --n=<n>\`;
\`--media=http --counts=...\` re-measures one medium and keeps the other's figures, in bench/charts/million.json;
\`--chart\` redraws the charts from that file).

Method (bench/scale-million.ts): 200 warm-up sessions (kept), settle, gc twice, baseline; then n sessions opened
(\`initialize\` 2025-11-25, answer awaited, \`notifications/initialized\`), timed (wall clock; CPU of the processes);
settle, gc twice: heap per session = (after − baseline) / n. In memory: one \`createSessionHost(createServer())\`
(echo tool; \`maxSessions\` n + 1,200, \`idleTimeoutMs\` 4 h, sweep every 1 s) takes each session over its own
in-memory pair, opened one after another by a minimal raw client in the same process (its ends are in the figure,
as in "Idle initialized server sessions" above). Over HTTP: the server is a child
(bench/million-http-server.ts: \`createStreamableHttpServer\`, responseMode 'sse', \`maxSessions\` n + 1,200,
\`idleTimeoutMs\` 4 h), this process the raw node:http client on one keep-alive agent of 16 sockets (16
handshakes at a time): sessions, not sockets. Burst: 10,000 \`tools/call\` of the echo tool, each on a session drawn
at random from a random sample of 1,000 of the n, 32 in flight, every answer checked; failures counted. Expiry: the
server's clock (bench/warp-clock.ts: the system clock plus a jump, injected through the \`clock\` options) jumps past
the idle timeout, and the time until the server holds no session (HTTP: neither the session registry nor the
server) is measured; then gc and the heap against the baseline. Every timer remains a real system timer (the
warp clock also keeps each pending one in a set, a few dozen bytes more per HTTP session than a deployment pays).
In memory, the host's sweep closes every idle session in one pass; closing a million took the time shown.
The idle timeout is 4 h so that nothing expires by itself while the sessions open: a first attempt at 100,000 over HTTP
with 10 minutes found 55,488 of 100,200 sessions left when the last was open (at ~90 sessions/s the first had expired).${projection}
`;
}

const dataFile = join(repoRoot, 'bench/charts/million.json');

/** The runs kept in bench/charts/million.json (a run replaces the figures of the medium and counts it measured, keeps the others). */
function readRuns(): MillionRun | undefined {
  return existsSync(dataFile) ? (JSON.parse(readFileSync(dataFile, 'utf8')) as MillionRun) : undefined;
}

function mergeRuns(old: MillionRun | undefined, fresh: MillionRun): MillionRun {
  if (old === undefined) return fresh;
  const measured = new Set(fresh.figures.map((f) => `${f.medium} ${f.n}`));
  const kept = old.figures.filter((f) => !measured.has(`${f.medium} ${f.n}`));
  const skipped = [...old.skipped.filter((s) => !fresh.skipped.includes(s) && !measured.has(s.split(':')[0]?.replace(' n=', ' ') ?? '')), ...fresh.skipped];
  const runs = [...(old.runs ?? [noteOf(old)]), noteOf(fresh)];
  return { ...fresh, skipped, runs, figures: [...kept, ...fresh.figures].sort((a, b) => a.medium.localeCompare(b.medium) || a.n - b.n) };
}

const mediumLabel: Record<Medium, string> = { memory: 'rxmcp, in-memory transport', http: 'rxmcp, Streamable HTTP (server process)' };

/** Heap per session and creation rate against the number of idle sessions, one line per medium. */
export function millionCharts(run: MillionRun | undefined): ChartFile[] {
  if (run === undefined) return [];
  const media = (['memory', 'http'] as const).filter((m) => run.figures.some((f) => f.medium === m));
  const series = (y: (f: MillionFigures) => number): LineSeries[] =>
    media.map((m) => ({ name: mediumLabel[m], points: run.figures.filter((f) => f.medium === m).map((f) => ({ x: f.n, y: y(f) })) }));
  const xTicks = [...new Set(run.figures.map((f) => f.n))].sort((a, b) => a - b);
  const subtitle = `idle legacy sessions in one process; ${run.measuredAt.slice(0, 10)}, rxmcp at ${run.revision}, 2 shared cores`;
  return [
    { file: 'million-heap-per-session.svg', svg: lineChartSvg({ title: 'Heap per idle session by number of sessions', xLabel: 'idle sessions (log)', yLabel: 'bytes of heap per session', xScale: 'log', xTicks, subtitle, series: series((f) => f.heapBytesPerSession) }) },
    { file: 'million-creation-rate.svg', svg: lineChartSvg({ title: 'Session creation rate by number of sessions', xLabel: 'idle sessions (log)', yLabel: 'sessions opened per second (wall clock)', xScale: 'log', xTicks, subtitle, series: series((f) => f.sessionsPerSecond) }) },
    { file: 'million-cpu-per-session.svg', svg: lineChartSvg({ title: 'CPU per session opened by number of sessions', xLabel: 'idle sessions (log)', yLabel: 'µs of CPU per session (server + client)', xScale: 'log', xTicks, subtitle, series: series((f) => ((f.openCpuMs + (f.serverOpenCpuMs ?? 0)) * 1000) / f.n) }) },
  ];
}

async function runAll(): Promise<MillionRun> {
  const media = (argValue('media') ?? 'memory,http').split(',') as Medium[];
  const counts = (argValue('counts') ?? '1000,10000,100000,1000000').split(',').map(Number);
  const passOn = ['calls', 'sample', 'clients', 'in-flight'].flatMap((name) => (argValue(name) === undefined ? [] : [`--${name}=${argValue(name) ?? ''}`]));
  const started = Date.now();
  const loadBefore = os.loadavg();
  const figures: MillionFigures[] = [];
  const skipped: string[] = [];
  for (const medium of media) {
    for (const n of counts) {
      try {
        const run = await runChild(nodeArgs, join(repoRoot, 'bench/scale-million.ts'), ['--one', `--medium=${medium}`, `--n=${n}`, ...passOn]);
        figures.push({ ...(run.result as Omit<MillionFigures, 'command'>), command: run.command.replace(repoRoot + '/', '') });
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        console.log(`  ${medium} n=${n}: did not complete (${why})`);
        skipped.push(`${medium} n=${n}: ${why.replaceAll(repoRoot + '/', '')}`);
      }
    }
  }
  return { figures, skipped, revision: revision(), loadBefore, loadAfter: os.loadavg(), minutes: (Date.now() - started) / 60_000, measuredAt: new Date().toISOString() };
}

if (isMain(import.meta.url)) {
  if (hasFlag('one')) {
    const medium = argValue('medium');
    if (medium !== 'memory' && medium !== 'http') throw new RangeError(`--medium must be memory or http, got ${String(medium)}`);
    const n = argInt('n', 1_000_000);
    const calls = argInt('calls', 10_000);
    const sample = argInt('sample', 1_000);
    const inFlight = argInt('in-flight', 32);
    const f = medium === 'memory' ? await measureMemory(n, 200, calls, sample, inFlight) : await measureHttp(n, 200, calls, sample, inFlight, argInt('clients', 16));
    console.log(`  [${medium}] ${fmt(n, 0)} sessions: ${fmt(f.sessionsPerSecond, 0)}/s, ${fmt(f.heapBytesPerSession, 0)} B heap/session; burst ${fmt(f.burst.callsPerSecond, 0)} calls/s ` +
      `(${f.burst.failed} failed); expired in ${fmt(f.expire.expireMs, 0)} ms, heap ${fmt(f.expire.heapReturnedDeltaBytes / 1048576, 1)} MiB vs baseline`);
    emitResult(f);
  } else {
    const run = hasFlag('chart') ? readRuns() : mergeRuns(readRuns(), await runAll());
    if (run === undefined) throw new Error(`no figures in ${dataFile}`);
    writeFileSync(dataFile, `${JSON.stringify(run, null, 1)}\n`);
    writeCharts(join(repoRoot, 'bench/charts'), millionCharts(run));
    const md = millionSection();
    console.log(`\n${md}`);
    const out = argValue('out');
    if (out !== undefined) writeFileSync(out, md);
  }
}
