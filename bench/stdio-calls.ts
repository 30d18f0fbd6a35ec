/**
 * `tools/call` over stdio: each contender's client in a process of its own (a host, bench/contender-host.ts), its
 * server a child process of that host (bench/transport-programs.ts), rxmcp against the official SDK 1.x, the
 * official SDK 2.x and tmcp, with a raw newline JSON-RPC echo child as the floor. A benchmark, not a test.
 *
 *   node --import tsx bench/stdio-calls.ts [--rounds=7] [--count=20000] [--warmup=5000] [--levels=1,8,64] [--loader=tsx|strip]
 *        [--shared-client-process]   (without --levels: 1, 8 and --window, default 64)
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/stdio-calls.ts --profile=rxmcp [--count=200000] [--window=64]
 *        [--source-maps=.tmp/maps.json]   (profiles this process, the client; the server child: --server-prof)
 *
 * Contenders, all children alive for the whole run: rxmcp `createClient().connect(await spawnStdioServer(...))`
 * to a `createServer()` + `serveStdio` child; SDK 1.x `Client` + `StdioClientTransport` to an `McpServer` +
 * `StdioServerTransport` child; SDK 2.x `Client` (`@modelcontextprotocol/client`, its default legacy era) +
 * `StdioClientTransport` to a `serveStdio(factory)` child; tmcp (no client of its own) the rxmcp client to a
 * `StdioTransport(server).listen()` child; the floor: a plain line client (JSON.stringify + one write per request,
 * answers matched by id) to a child that parses each line and writes one answer line. Same loop as
 * bench/tools-call.ts: warm-up, then per level (calls in flight; 1 = sequential) interleaved rounds in rotating
 * order, medians of calls/s and of CPU µs per call in the client's process (process.cpuUsage) and in the server
 * child (/proc/<pid>/stat, 10 ms ticks). This process only orders the rounds: each host times its own calls
 * (bench/contender-hosts.ts), so no client's garbage is collected in another's rounds. `--shared-client-process`
 * runs every client in this process instead (the former harness), to compare; `--profile` always does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client as Sdk2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as Sdk2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createClient, type JsonObject } from '../index.ts';
import { spawnStdioServer } from '../transports/stdio/index.ts';
import { type ClientProcess, type Contestant, type HostSuite, type SuiteContender, argClientProcess, contestant } from './contender-hosts.ts';
import { type LevelLoad, type LevelSeries, argLevels, levelTitle, seriesOf } from './contenders-levels.ts';
import { type Figures, interleave, sequential, timed, windowed } from './harness.ts';
import { type Loader, argInt, argLoader, argValue, emitResult, fmt, hasFlag, isMain, repoRoot } from './lib.ts';
import { dumpSourceMaps } from './source-maps.ts';
import { LineClient, busyCores, peerCpu, programArgv } from './transport-lib.ts';
import { callArgs, checkEcho, clientInfo, expectedText } from './echo-tool.ts';

export type StdioContender = 'rxmcp' | 'sdk' | 'sdk2' | 'tmcp' | 'floor';
export const stdioContenders: readonly StdioContender[] = ['rxmcp', 'sdk', 'sdk2', 'tmcp', 'floor'];

type Contender = SuiteContender<StdioContender>;

/** Medians of one load: this process's and the server child's CPU per call, and calls/s. */
export interface LoadFigures {
  readonly figures: Record<StdioContender, Figures>;
  readonly serverCpuUsPerCall: Record<StdioContender, number>;
}

export interface StdioCallsResult {
  readonly loader: Loader;
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  /** Where the clients ran: `own`, a process per contender (the default); `shared`, all in the benchmark process. */
  readonly clientProcess: ClientProcess;
  /** The highest level (kept for readers of the older two-load shape). */
  readonly window: number;
  /** Calls in flight per load, ascending (1 = sequential); index i of every series is levels[i]. */
  readonly levels: readonly number[];
  readonly contenders: readonly StdioContender[];
  /** Per contender, per level: median calls/s (`callsPerSecond`), client and server CPU µs per call, share of the floor and of rxmcp. */
  readonly series: Record<StdioContender, LevelSeries>;
  /** Every level's figures with the samples of each round, in the order of `levels`. */
  readonly loads: readonly LevelLoad<StdioContender>[];
  /** The level-1 load (as before). */
  readonly sequential: LoadFigures;
  /** The highest level's load (as before, when that was `--window`). */
  readonly windowed: LoadFigures;
}

const serverArgs = (impl: StdioContender, loader: Loader): string[] =>
  programArgv(loader, ['--transport=stdio', `--impl=${impl}`], hasFlag('server-prof') ? ['--cpu-prof', '--cpu-prof-dir=.tmp'] : []);

async function rxmcpContender(loader: Loader): Promise<Contender> {
  const transport = await spawnStdioServer({ command: process.execPath, args: serverArgs('rxmcp', loader), cwd: repoRoot });
  const client = await createClient({ ...clientInfo, era: 'legacy' }).connect(transport);
  await checkEcho('rxmcp', (a) => client.callTool('echo', a as JsonObject));
  return { name: 'rxmcp', label: 'rxmcp', pid: transport.pid, run: () => client.callTool('echo', callArgs), close: () => client.close() };
}

async function sdkContender(loader: Loader): Promise<Contender> {
  const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs('sdk', loader), cwd: repoRoot });
  const client = new Client(clientInfo);
  await client.connect(transport);
  const request = { name: 'echo', arguments: callArgs };
  await checkEcho('sdk', (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<{ content?: unknown }>);
  return { name: 'sdk', label: 'official SDK 1.x', pid: transport.pid ?? -1, run: () => client.callTool(request), close: () => client.close() };
}

async function sdk2Contender(loader: Loader): Promise<Contender> {
  const transport = new Sdk2StdioClientTransport({ command: process.execPath, args: serverArgs('sdk2', loader), cwd: repoRoot });
  const client = new Sdk2Client(clientInfo);
  await client.connect(transport);
  if (client.getProtocolEra() !== 'legacy') throw new Error(`sdk2: the client speaks the ${String(client.getProtocolEra())} era, not the legacy one`);
  const request = { name: 'echo', arguments: callArgs };
  await checkEcho('sdk2', (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<{ content?: unknown }>);
  return { name: 'sdk2', label: 'official SDK 2.x', pid: transport.pid ?? -1, run: () => client.callTool(request), close: () => client.close() };
}

/** tmcp has no client: rxmcp's, in the legacy era, to tmcp's stdio server. */
async function tmcpContender(loader: Loader): Promise<Contender> {
  const transport = await spawnStdioServer({ command: process.execPath, args: serverArgs('tmcp', loader), cwd: repoRoot });
  const client = await createClient({ ...clientInfo, era: 'legacy' }).connect(transport);
  await checkEcho('tmcp', (a) => client.callTool('echo', a as JsonObject));
  return { name: 'tmcp', label: 'tmcp (rxmcp client)', pid: transport.pid, run: () => client.callTool('echo', callArgs), close: () => client.close() };
}

async function floorContender(loader: Loader): Promise<Contender> {
  const child = spawn(process.execPath, serverArgs('floor', loader), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
  const client = new LineClient((line) => void child.stdin.write(line));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => client.receive(chunk));
  const params = { name: 'echo', arguments: callArgs };
  const answer = (await client.request('tools/call', params)) as { content: { text: string }[] };
  if (answer.content[0]?.text !== expectedText) throw new Error(`floor: echo answered ${JSON.stringify(answer)}`);
  return {
    name: 'floor',
    label: 'raw floor (newline JSON-RPC echo child)',
    pid: child.pid ?? -1,
    run: () => client.request('tools/call', params),
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

const makers: Record<StdioContender, (loader: Loader) => Promise<Contender>> = {
  rxmcp: rxmcpContender,
  sdk: sdkContender,
  sdk2: sdk2Contender,
  tmcp: tmcpContender,
  floor: floorContender,
};

const isStdioContender = (name: string): name is StdioContender => (stdioContenders as readonly string[]).includes(name);

/** This suite's factory, for a contender host (bench/contender-host.ts). */
export const stdioSuite: HostSuite = {
  make(name, loader) {
    if (!isStdioContender(name)) throw new RangeError(`stdio contenders are ${stdioContenders.join(', ')}, not ${name}`);
    return makers[name](loader);
  },
};

function levelLoad(width: number, figures: Record<string, Figures>): LevelLoad<StdioContender> {
  const serverCpuUsPerCall = Object.fromEntries(stdioContenders.map((name) => [name, peerCpu(figures[name] as Figures)])) as Record<StdioContender, number>;
  const ops = (name: StdioContender): number => (figures[name] as Figures).medianOpsPerSec;
  console.log(`  server child CPU us/call: ${stdioContenders.map((n) => `${n} ${fmt(serverCpuUsPerCall[n])}`).join(', ')}`);
  console.log(`  cores busy, client + server: ${stdioContenders.map((n) => `${n} ${busyCores(figures[n] as Figures, serverCpuUsPerCall[n])}`).join(', ')}`);
  console.log(`  calls/s vs floor: ${stdioContenders.map((n) => `${n} ${fmt((100 * ops(n)) / ops('floor'), 1)} %`).join(', ')}`);
  return { width, figures: figures as Record<StdioContender, Figures>, serverCpuUsPerCall };
}

interface StdioOptions {
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  readonly levels: readonly number[];
  readonly loader: Loader;
  readonly clientProcess: ClientProcess;
}

export async function runStdioCallsBench(options: StdioOptions): Promise<StdioCallsResult> {
  const { rounds, count, levels, clientProcess } = options;
  const top = Math.max(...levels);
  console.log(`stdio tools/call: ${clientProcess === 'own' ? 'each client in a process of its own' : 'all clients in this process'}`);
  const contenders: Contestant<StdioContender>[] = [];
  for (const name of stdioContenders) contenders.push(await contestant(clientProcess, 'stdio', name, options.loader, (n, loader) => makers[n](loader)));
  for (const contender of contenders) {
    await contender.measure(options.warmup, 1);
    await contender.measure(options.warmup, Math.max(top, 2));
  }
  const loads: LevelLoad<StdioContender>[] = [];
  for (const width of levels) {
    console.log(`stdio tools/call, ${levelTitle(width)}: ${width === levels[0] ? `warm-up ${options.warmup} each, then ` : ''}${rounds} rounds x ${count} calls, interleaved (order rotates)`);
    const figures = await interleave(contenders, rounds, (c) => c.measure(count, width), 'call');
    loads.push(levelLoad(width, figures));
  }
  for (const contender of contenders) await contender.close();
  const first = (loads.find((l) => l.width === 1) ?? loads[0]) as LevelLoad<StdioContender>;
  const last = loads.at(-1) as LevelLoad<StdioContender>;
  return {
    loader: options.loader,
    rounds,
    count,
    warmup: options.warmup,
    clientProcess,
    window: top,
    levels: [...levels],
    contenders: stdioContenders,
    series: seriesOf(stdioContenders, loads, 'floor', 'rxmcp'),
    loads,
    sequential: { figures: first.figures, serverCpuUsPerCall: first.serverCpuUsPerCall },
    windowed: { figures: last.figures, serverCpuUsPerCall: last.serverCpuUsPerCall },
  };
}

/** Only one contender's calls, for a CPU profile of this process (the client) or, with --server-prof, its child too. */
async function profileOne(name: StdioContender, count: number, window: number, loader: Loader): Promise<void> {
  const contender = await makers[name](loader);
  await sequential(contender, 5_000);
  const sample = await timed(count, () => (window > 1 ? windowed(contender, count, window) : sequential(contender, count)));
  console.log(`${contender.label}, ${window > 1 ? `${window} in flight` : 'sequential'}: ${fmt(sample.opsPerSec, 0)} calls/s, ${fmt(sample.cpuUsPerOp)} CPU us/call (client)`);
  await contender.close();
  const maps = argValue('source-maps');
  if (maps !== undefined) console.log(`source maps of ${dumpSourceMaps(maps)} modules written to ${maps}`);
}

const profile = argValue('profile');
if (isMain(import.meta.url) && profile !== undefined) {
  if (!(stdioContenders as readonly string[]).includes(profile)) throw new RangeError(`--profile must be one of ${stdioContenders.join(', ')}`);
  await profileOne(profile as StdioContender, argInt('count', 200_000), argInt('window', 1), argLoader());
} else if (isMain(import.meta.url)) {
  emitResult(await runStdioCallsBench({
    rounds: argInt('rounds', 7),
    count: argInt('count', 20_000),
    warmup: argInt('warmup', 5_000),
    levels: argLevels(),
    loader: argLoader(),
    clientProcess: argClientProcess(),
  }));
}
