/**
 * `tools/call` over HTTP on 127.0.0.1: the clients in this process, each server a child process
 * (bench/transport-programs.ts), rxmcp against the official SDK 1.x, the official SDK 2.x and tmcp, with a raw
 * node:http JSON echo as the floor. A benchmark, not a test.
 *
 *   node --import tsx bench/http-calls.ts [--rounds=5] [--count=5000] [--warmup=1000] [--levels=1,8,64]
 *        [--sessions=200] [--session-count=10000] [--loader=tsx|strip]   (without --levels: 1, 8 and --window, default 64)
        [--contenders=rxmcpJson,rxmcpSse,floor]   (a subset; rxmcpJson, rxmcpModern, floor and floorLean always run)
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/http-calls.ts --profile=rxmcpJson [--count=50000] [--window=64]
 *        [--server-prof] [--source-maps=.tmp/maps.json]
 *
 * Servers: rxmcp `createStreamableHttpServer({ server, responseMode: 'json' | 'sse' }).listen(0)`; SDK one `McpServer`
 * + `StreamableHTTPServerTransport` per session (`enableJsonResponse` true / false) on node:http; SDK 2.x one `McpServer`
 * + `WebStandardStreamableHTTPServerTransport` per session (SSE answers, its default) and tmcp's `HttpTransport` (SSE
 * answers, all it does), both on node:http through bench/contenders-programs.ts's fetch adapter; floor: node:http
 * that parses the POSTed JSON-RPC request and answers the echo as JSON. Clients: rxmcp `createClient()` over
 * `createStreamableHttpClientTransport(url)`; SDK `Client` over `StreamableHTTPClientTransport`; SDK 2.x the same with
 * '@modelcontextprotocol/client' (its default legacy era); tmcp has no client: rxmcp's; floor: node:http
 * POSTs on a keep-alive agent (64 sockets, as rxmcp's default), JSON answer parsed. The lean floor: the same server,
 * driven by a node:http client that does nothing else (one body encoded once, the answer's bytes dropped unparsed;
 * transport-lib.ts `leanHttpClient`): the cost of HTTP itself, which the floor client's own work (about 100 µs of
 * CPU per call in this process) hides. rxmcp runs in both eras against it (`rxmcpModern`: `era: 'modern'`, each call
 * a POST of its own, JSON answers). MCP clients keep their defaults
 * (both open the standalone GET stream after the handshake).
 * Loads: one session at each level of `--levels` (calls in flight; 1 = sequential), and `--sessions` sessions (clients) each
 * calling sequentially, all at once (`--session-count` calls per sample in all). Same loop as bench/tools-call.ts.
 */
import { Client as Sdk2Client, StreamableHTTPClientTransport as Sdk2StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient, type JsonObject } from '../index.ts';
import { createStreamableHttpClientTransport } from '../transports/http/index.ts';
import { type LevelLoad, type LevelSeries, argLevels, atLevel, levelTitle, seriesOf } from './contenders-levels.ts';
import { type Figures, type Op, interleave, sequential, timed, windowed } from './harness.ts';
import { type Loader, argInt, argLoader, argValue, emitResult, fmt, hasFlag, isMain } from './lib.ts';
import { dumpSourceMaps } from './source-maps.ts';
import { Program, floorHttpClient, leanHttpClient, peerCpu, postJson, quietListenerWarnings, timedWithPeer } from './transport-lib.ts';
import { callArgs, checkEcho, clientInfo, expectedText } from './echo-tool.ts';

export type HttpContender = 'rxmcpJson' | 'rxmcpModern' | 'rxmcpSse' | 'sdkJson' | 'sdkSse' | 'sdk2Sse' | 'tmcp' | 'floor' | 'floorLean';
export const httpContenders: readonly HttpContender[] = ['rxmcpJson', 'rxmcpModern', 'rxmcpSse', 'sdkJson', 'sdkSse', 'sdk2Sse', 'tmcp', 'floor', 'floorLean'];
/** Always run: the ratios are taken against them, and the lean floor's report compares both rxmcp eras with it. */
const alwaysRun: readonly HttpContender[] = ['rxmcpJson', 'rxmcpModern', 'floor', 'floorLean'];
const labels: Record<HttpContender, string> = {
  rxmcpJson: "rxmcp (responseMode 'json')",
  rxmcpModern: "rxmcp, era 'modern' (JSON answers)",
  rxmcpSse: "rxmcp (responseMode 'sse')",
  sdkJson: 'official SDK 1.x (enableJsonResponse)',
  sdkSse: 'official SDK 1.x (SSE answers)',
  sdk2Sse: 'official SDK 2.x (SSE answers)',
  tmcp: 'tmcp (SSE answers; rxmcp client)',
  floor: 'raw floor (node:http JSON echo)',
  floorLean: 'lean floor (node:http JSON echo, bare client)',
};

/** One client session of a contender. */
interface Caller {
  run(): Promise<unknown>;
  close(): Promise<void>;
}

/** Calls that failed (rejected), per contender, with the first error: counted, so that one failure does not end the run. */
export type Failures = Partial<Record<HttpContender, { count: number; first: string }>>;
const failures: Failures = {};

async function connect(name: HttpContender, url: string, check: boolean): Promise<Caller> {
  const caller = await connectRaw(name, url, check);
  const failed = (error: unknown): void => {
    const entry = (failures[name] ??= { count: 0, first: error instanceof Error ? error.message : String(error) });
    if (entry.count++ === 0) console.error(`  ${name}: a call failed (counted; later failures not shown): ${entry.first}`);
  };
  return { run: () => caller.run().catch(failed), close: () => caller.close() };
}

async function connectRaw(name: HttpContender, url: string, check: boolean): Promise<Caller> {
  if (name === 'rxmcpModern') {
    const client = await createClient({ ...clientInfo, era: 'modern' }).connect(createStreamableHttpClientTransport(url));
    if (check) await checkEcho(name, (a) => client.callTool('echo', a as JsonObject));
    return { run: () => client.callTool('echo', callArgs), close: () => client.close() };
  }
  if (name === 'floorLean') {
    const lean = leanHttpClient(url);
    if (check) {
      const answer = JSON.parse((await postJson(lean.agent, new URL(url), { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: callArgs } })).body) as { result: { content: { text: string }[] } };
      if (answer.result.content[0]?.text !== expectedText) throw new Error(`floorLean: echo answered ${JSON.stringify(answer)}`);
      await lean.call();
    }
    return { run: () => lean.call(), close: async () => lean.agent.destroy() };
  }
  if (name === 'rxmcpJson' || name === 'rxmcpSse' || name === 'tmcp') {
    const client = await createClient({ ...clientInfo, era: 'legacy' }).connect(createStreamableHttpClientTransport(url));
    if (check) await checkEcho(name, (a) => client.callTool('echo', a as JsonObject));
    return { run: () => client.callTool('echo', callArgs), close: () => client.close() };
  }
  if (name === 'sdkJson' || name === 'sdkSse') {
    const client = new Client(clientInfo);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const request = { name: 'echo', arguments: callArgs };
    if (check) await checkEcho(name, (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<{ content?: unknown }>);
    return { run: () => client.callTool(request), close: () => client.close() };
  }
  if (name === 'sdk2Sse') {
    const client = new Sdk2Client(clientInfo);
    await client.connect(new Sdk2StreamableHTTPClientTransport(new URL(url)));
    if (client.getProtocolEra() !== 'legacy') throw new Error(`${name}: the client speaks the ${String(client.getProtocolEra())} era, not the legacy one`);
    const request = { name: 'echo', arguments: callArgs };
    if (check) await checkEcho(name, (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<{ content?: unknown }>);
    return { run: () => client.callTool(request), close: () => client.close() };
  }
  const floor = floorHttpClient(url);
  if (check) {
    const answer = (await floor.call()) as { content: { text: string }[] };
    if (answer.content[0]?.text !== expectedText) throw new Error(`floor: echo answered ${JSON.stringify(answer)}`);
  }
  return { run: () => floor.call(), close: async () => floor.agent.destroy() };
}

function startServer(name: HttpContender, loader: Loader, profiled: boolean): Program {
  const impl = name.startsWith('rxmcp') ? 'rxmcp' : name.startsWith('sdk2') ? 'sdk2' : name.startsWith('sdk') ? 'sdk' : name.startsWith('floor') ? 'floor' : name;
  const mode = name.endsWith('Json') || name === 'rxmcpModern' ? 'json' : 'sse';
  return Program.start(loader, ['--transport=http', `--impl=${impl}`, `--mode=${mode}`], profiled ? ['--cpu-prof', '--cpu-prof-dir=.tmp'] : []);
}

export interface HttpLoad {
  readonly figures: Record<HttpContender, Figures>;
  readonly serverCpuUsPerCall: Record<HttpContender, number>;
}

export interface HttpCallsResult {
  readonly loader: Loader;
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  /** The highest level (kept for readers of the older shape). */
  readonly window: number;
  /** Calls in flight on one session per load, ascending (1 = sequential); index i of every series is levels[i]. */
  readonly levels: readonly number[];
  readonly contenders: readonly HttpContender[];
  /** Per contender, per level (one session): median calls/s (`callsPerSecond`), client and server CPU µs per call, share of the floor and of rxmcp (json). */
  readonly series: Record<HttpContender, LevelSeries>;
  /** Every one-session level's figures with the samples of each round, in the order of `levels`. */
  readonly loads: readonly LevelLoad<HttpContender>[];
  readonly sessions: number;
  readonly sessionCount: number;
  /** The level-1 load (as before). */
  readonly sequential: HttpLoad;
  /** The highest level's load (as before, when that was `--window`). */
  readonly windowed: HttpLoad;
  readonly concurrentSessions: HttpLoad;
  /** Calls that were answered by an error (the transport's or the server's) instead of the echo. */
  readonly failures: Failures;
  /** `MaxListenersExceededWarning`s counted (not printed) during the run; see quietListenerWarnings. */
  readonly listenerWarnings: number;
}

const allHttpContenders = httpContenders;

function load(figures: Record<string, Figures>, httpContenders: readonly HttpContender[] = allHttpContenders): HttpLoad {
  const serverCpuUsPerCall = Object.fromEntries(httpContenders.map((name) => [name, peerCpu(figures[name] as Figures)])) as Record<HttpContender, number>;
  const floor = (figures['floor'] as Figures).medianOpsPerSec;
  console.log(`  server child CPU us/call: ${httpContenders.map((n) => `${n} ${fmt(serverCpuUsPerCall[n])}`).join(', ')}`);
  console.log(`  calls/s vs floor: ${httpContenders.map((n) => `${n} ${fmt((100 * (figures[n] as Figures).medianOpsPerSec) / floor, 1)} %`).join(', ')}`);
  const lean = figures['floorLean'] as Figures;
  const both = (n: HttpContender): string => `${fmt((figures[n] as Figures).medianCpuUsPerOp)} + ${fmt(serverCpuUsPerCall[n])} = ${fmt((figures[n] as Figures).medianCpuUsPerOp + serverCpuUsPerCall[n])}`;
  console.log(`  vs the lean floor (${fmt(lean.medianOpsPerSec, 0)} calls/s, CPU us/call client + server ${both('floorLean')}): ${(['rxmcpJson', 'rxmcpModern'] as const)
    .map((n) => `${n} ${fmt((100 * (figures[n] as Figures).medianOpsPerSec) / lean.medianOpsPerSec, 1)} %, CPU us/call ${both(n)}`).join('; ')}`);
  return { figures: figures as Record<HttpContender, Figures>, serverCpuUsPerCall };
}

interface Options {
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  readonly levels: readonly number[];
  readonly sessions: number;
  readonly sessionCount: number;
  readonly loader: Loader;
  /** A subset of the contenders (default: all). */
  readonly contenders?: readonly HttpContender[];
}

/** `--contenders=a,b`: the contenders to run (those of `alwaysRun` always). */
function argContenders(): readonly HttpContender[] {
  const raw = argValue('contenders');
  if (raw === undefined) return httpContenders;
  const named = new Set(raw.split(',').map((name) => name.trim()));
  for (const name of named) if (!(httpContenders as readonly string[]).includes(name)) throw new RangeError(`--contenders: unknown ${name}`);
  return httpContenders.filter((name) => named.has(name) || alwaysRun.includes(name));
}

export async function runHttpCallsBench(options: Options): Promise<HttpCallsResult> {
  const { rounds, count, warmup, levels, sessions, loader } = options;
  const httpContenders = options.contenders ?? allHttpContenders;
  const top = Math.max(...levels);
  const listenerWarnings = quietListenerWarnings();
  const servers = new Map<HttpContender, { program: Program; url: string }>();
  for (const name of httpContenders) {
    const program = startServer(name, loader, false);
    servers.set(name, { program, url: String((await program.ready)['url']) });
  }
  const serverOf = (name: HttpContender): { program: Program; url: string } => servers.get(name) as { program: Program; url: string };

  type Single = Op<HttpContender> & Caller & { pid: number };
  const singles: Single[] = [];
  for (const name of httpContenders) {
    const { program, url } = serverOf(name);
    singles.push({ name, label: labels[name], pid: program.pid, ...(await connect(name, url, true)) });
  }
  for (const single of singles) {
    await sequential(single, warmup);
    await windowed(single, warmup, Math.max(top, 2));
  }
  const loads: LevelLoad<HttpContender>[] = [];
  for (const width of levels) {
    console.log(`http tools/call, one session, ${levelTitle(width)}: ${width === levels[0] ? `warm-up ${warmup} each, then ` : ''}${rounds} rounds x ${count} calls, interleaved (order rotates)`);
    loads.push({ width, ...load(await interleave(singles, rounds, (c) => timedWithPeer(count, c.pid, () => atLevel(c, count, width)), 'call'), httpContenders) });
  }
  for (const single of singles) await single.close();

  // Many sessions: each a client of its own, calling one after another; all of them at once.
  const perSession = Math.max(1, Math.round(options.sessionCount / sessions));
  const total = perSession * sessions;
  type Crowd = { name: HttpContender; label: string; pid: number; callers: Caller[] };
  const crowds: Crowd[] = [];
  for (const name of httpContenders) {
    const { program, url } = serverOf(name);
    const callers: Caller[] = [];
    for (let i = 0; i < sessions; i += 20) {
      callers.push(...(await Promise.all(Array.from({ length: Math.min(20, sessions - i) }, () => connect(name, url, false)))));
    }
    crowds.push({ name, label: labels[name], pid: program.pid, callers });
  }
  const oneAfterAnother = async (caller: Caller, calls: number): Promise<void> => {
    for (let i = 0; i < calls; i++) await caller.run();
  };
  const crowdRun = (crowd: Crowd, calls: number): Promise<void> => Promise.all(crowd.callers.map((caller) => oneAfterAnother(caller, calls))).then(() => undefined);
  for (const crowd of crowds) await crowdRun(crowd, Math.max(2, Math.round(warmup / sessions)));
  console.log(`http tools/call, ${sessions} sessions at once, each sequential: ${rounds} rounds x ${total} calls (${perSession} per session)`);
  const crowd = load(await interleave(crowds, rounds, (c) => timedWithPeer(total, c.pid, () => crowdRun(c, perSession)), 'call'), httpContenders);
  for (const c of crowds) await Promise.all(c.callers.map((caller) => caller.close()));
  for (const { program } of servers.values()) await program.stop();
  const first = (loads.find((l) => l.width === 1) ?? loads[0]) as LevelLoad<HttpContender>;
  const last = loads.at(-1) as LevelLoad<HttpContender>;
  return {
    loader,
    rounds,
    count,
    warmup,
    window: top,
    levels: [...levels],
    contenders: httpContenders,
    series: seriesOf(httpContenders, loads, 'floor', 'rxmcpJson'),
    loads,
    sessions,
    sessionCount: total,
    sequential: { figures: first.figures, serverCpuUsPerCall: first.serverCpuUsPerCall },
    windowed: { figures: last.figures, serverCpuUsPerCall: last.serverCpuUsPerCall },
    concurrentSessions: crowd,
    failures,
    listenerWarnings: listenerWarnings(),
  };
}

/** One contender's calls only, for a CPU profile of this process (the client) and, with --server-prof, of its server. */
async function profileOne(name: HttpContender, count: number, window: number, loader: Loader): Promise<void> {
  const program = startServer(name, loader, hasFlag('server-prof'));
  const caller = await connect(name, String((await program.ready)['url']), true);
  const op = { name, label: labels[name], run: () => caller.run() };
  await sequential(op, 2_000);
  const sample = await timed(count, () => (window > 1 ? windowed(op, count, window) : sequential(op, count)));
  console.log(`${labels[name]}, ${window > 1 ? `${window} in flight` : 'sequential'}: ${fmt(sample.opsPerSec, 0)} calls/s, ${fmt(sample.cpuUsPerOp)} CPU us/call (client)`);
  await caller.close();
  await program.stop();
  const maps = argValue('source-maps');
  if (maps !== undefined) console.log(`source maps of ${dumpSourceMaps(maps)} modules written to ${maps}`);
}

const profile = argValue('profile');
if (isMain(import.meta.url) && profile !== undefined) {
  if (!(httpContenders as readonly string[]).includes(profile)) throw new RangeError(`--profile must be one of ${httpContenders.join(', ')}`);
  await profileOne(profile as HttpContender, argInt('count', 50_000), argInt('window', 1), argLoader());
} else if (isMain(import.meta.url)) {
  emitResult(await runHttpCallsBench({
    rounds: argInt('rounds', 5),
    count: argInt('count', 5_000),
    warmup: argInt('warmup', 1_000),
    levels: argLevels(),
    sessions: argInt('sessions', 200),
    sessionCount: argInt('session-count', 10_000),
    loader: argLoader(),
    contenders: argContenders(),
  }));
}
