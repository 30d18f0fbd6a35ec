/**
 * `tools/call` over stdio: the client in this process, the server a child process (bench/transport-programs.ts),
 * rxmcp against the official SDK 1.x, with a raw newline JSON-RPC echo child as the floor. A benchmark, not a test.
 *
 *   node --import tsx bench/stdio-calls.ts [--rounds=7] [--count=20000] [--warmup=5000] [--window=64] [--loader=tsx|strip]
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/stdio-calls.ts --profile=rxmcp [--count=200000] [--window=64]
 *        [--source-maps=.tmp/maps.json]   (profiles this process, the client; the server child: --server-prof)
 *
 * Contenders, all three children alive for the whole run: rxmcp `createClient().connect(await spawnStdioServer(...))`
 * to a `createServer()` + `runStdioServer` child; SDK `Client` + `StdioClientTransport` to an `McpServer` +
 * `StdioServerTransport` child; the floor: a plain line client (JSON.stringify + one write per request, answers
 * matched by id) to a child that parses each line and writes one answer line. Same loop as bench/tools-call.ts:
 * warm-up, interleaved rounds in rotating order, sequential and `--window` in flight, medians of calls/s and of
 * CPU µs per call in this process (process.cpuUsage) and in the server child (/proc/<pid>/stat, 10 ms ticks).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createClient, type JsonObject } from '../index.ts';
import { spawnStdioServer } from '../transports/stdio/index.ts';
import { type Figures, type Op, interleave, sequential, timed, windowed } from './harness.ts';
import { type Loader, argInt, argLoader, argValue, emitResult, fmt, hasFlag, isMain, repoRoot } from './lib.ts';
import { dumpSourceMaps } from './source-maps.ts';
import { LineClient, callArgs, checkEcho, clientInfo, expectedText, peerCpu, programArgv, timedWithPeer } from './transport-lib.ts';

export type StdioContender = 'rxmcp' | 'sdk' | 'floor';
export const stdioContenders: readonly StdioContender[] = ['rxmcp', 'sdk', 'floor'];

interface Contender extends Op<StdioContender> {
  readonly pid: number;
  close(): Promise<void>;
}

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
  readonly window: number;
  readonly sequential: LoadFigures;
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

const makers: Record<StdioContender, (loader: Loader) => Promise<Contender>> = { rxmcp: rxmcpContender, sdk: sdkContender, floor: floorContender };

function loadFigures(figures: Record<string, Figures>): LoadFigures {
  const serverCpuUsPerCall = Object.fromEntries(stdioContenders.map((name) => [name, peerCpu(figures[name] as Figures)])) as Record<StdioContender, number>;
  for (const name of stdioContenders) console.log(`  server child CPU, ${name}: ${fmt(serverCpuUsPerCall[name])} us/call`);
  const [rx, sdk, floor] = stdioContenders.map((name) => (figures[name] as Figures).medianOpsPerSec) as [number, number, number];
  console.log(`  calls/s vs floor: rxmcp ${fmt((100 * rx) / floor, 1)} %, SDK ${fmt((100 * sdk) / floor, 1)} %`);
  return { figures: figures as Record<StdioContender, Figures>, serverCpuUsPerCall };
}

export async function runStdioCallsBench(options: { rounds: number; count: number; warmup: number; window: number; loader: Loader }): Promise<StdioCallsResult> {
  const contenders: Contender[] = [];
  for (const name of stdioContenders) contenders.push(await makers[name](options.loader));
  for (const contender of contenders) {
    await sequential(contender, options.warmup);
    await windowed(contender, options.warmup, options.window);
  }
  const { rounds, count, window } = options;
  console.log(`stdio tools/call, sequential: warm-up ${options.warmup} each, then ${rounds} rounds x ${count} calls, interleaved (order rotates)`);
  const seq = await interleave(contenders, rounds, (c) => timedWithPeer(count, c.pid, () => sequential(c, count)), 'call');
  const sequentialFigures = loadFigures(seq);
  console.log(`stdio tools/call, ${window} in flight: ${rounds} rounds x ${count} calls, interleaved (order rotates)`);
  const win = await interleave(contenders, rounds, (c) => timedWithPeer(count, c.pid, () => windowed(c, count, window)), 'call');
  const windowedFigures = loadFigures(win);
  for (const contender of contenders) await contender.close();
  return { ...options, sequential: sequentialFigures, windowed: windowedFigures };
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
  emitResult(await runStdioCallsBench({ rounds: argInt('rounds', 7), count: argInt('count', 20_000), warmup: argInt('warmup', 5_000), window: argInt('window', 64), loader: argLoader() }));
}
