/**
 * Modern-era (revision 2026-07-28) `tools/call` over stdio and over Streamable HTTP (127.0.0.1): each contender's
 * client in a process of its own (a host, bench/contender-host.ts), every server a child process of its client's
 * host; rxmcp against the official SDK 2.x, with the raw floors of the legacy transport benchmarks, all in one run.
 * A benchmark, not a test: it reports, it never fails on a figure.
 *
 *   node --import tsx bench/modern-calls.ts [--rounds=7] [--sample-ms=400] [--levels=1,8,64] [--warmup-ms=1500]
 *        [--groups=stdio,http] [--loader=tsx|strip] [--shared-client-process]
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/modern-calls.ts --profile=rxmcpHttp [--window=64]
 *        [--seconds=10] [--server-prof] [--source-maps=.tmp/maps.json]
 *
 * Contenders (all up for the whole run):
 * - rxmcp: `createClient({ era: 'modern' })` (2026-07-28 required: every request carries its `_meta` envelope, no
 *   handshake) over `spawnStdioServer(...)` / `createStreamableHttpClientTransport(url)` (each modern request its
 *   own POST with MCP-Protocol-Version, Mcp-Method, Mcp-Name), to the very server programs the legacy benchmarks
 *   run (bench/transport-programs.ts: `createServer()` + `serveStdio`, `createStreamableHttpServer(...)`).
 * - SDK 2.x: `new Client(info, { versionNegotiation: { mode: 'auto' } })` (probes with `server/discover`, then
 *   speaks 2026-07-28; checked) over a trivial subclass of `StdioClientTransport` (so that the probe and the calls
 *   go to the same child; the base class is respawned after the probe) / `StreamableHTTPClientTransport`, to
 *   `serveStdio(factory)` / `createMcpHandler(factory)` on node:http (bench/modern-programs.ts).
 * - floors: the legacy benchmarks' own (bench/transport-programs.ts --impl=floor): a newline JSON-RPC echo child
 *   over a pipe, and a node:http JSON echo POSTed to on a keep-alive agent (64 sockets).
 * - a reference, outside the targets: the same rxmcp client and servers in the legacy era (`era: 'legacy'`), so that
 *   what the modern era costs rxmcp over the legacy one shows in the same run.
 * Loop: warm-up, then per transport and per load (`--levels`: calls in flight, 1 = sequential) a short calibration
 * that fixes each contender's sample size (calls for about `--sample-ms`), then `--rounds` interleaved rounds in
 * rotating order; medians of calls/s and of CPU µs per call in the client's process (process.cpuUsage) and in the
 * server child (/proc/<pid>/stat, 10 ms ticks). This process only orders the rounds: each host times its own calls
 * (bench/contender-hosts.ts), so no client's garbage is collected in another's rounds. `--shared-client-process`
 * runs every client in this process instead (the former harness), to compare; `--profile` always does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createClient, type JsonObject } from '../index.ts';
import { createStreamableHttpClientTransport } from '../transports/http/index.ts';
import { spawnStdioServer } from '../transports/stdio/index.ts';
import { type ClientProcess, type Contestant, type HostSuite, type SuiteContender, argClientProcess, contestant } from './contender-hosts.ts';
import { atLevel, runFor } from './contenders-levels.ts';
import { type Figures, interleave, timed } from './harness.ts';
import { type Loader, argInt, argLoader, argValue, emitResult, fmt, hasFlag, isMain, loaderArgs, repoRoot } from './lib.ts';
import { dumpSourceMaps } from './source-maps.ts';
import { LineClient, Program, busyCores, floorHttpClient, peerCpu, programArgv, quietListenerWarnings } from './transport-lib.ts';
import { callArgs, checkEcho, clientInfo, expectedText } from './echo-tool.ts';

export type ModernGroup = 'stdio' | 'http';
export type ModernContender = 'rxmcpStdio' | 'sdk2Stdio' | 'floorStdio' | 'legacyStdio' | 'rxmcpHttp' | 'sdk2Http' | 'floorHttp' | 'legacyHttp';
export const modernGroups: Record<ModernGroup, readonly ModernContender[]> = {
  stdio: ['rxmcpStdio', 'sdk2Stdio', 'floorStdio', 'legacyStdio'],
  http: ['rxmcpHttp', 'sdk2Http', 'floorHttp', 'legacyHttp'],
};
export const modernContenders: readonly ModernContender[] = [...modernGroups.stdio, ...modernGroups.http];
export const modernLabels: Record<ModernContender, string> = {
  rxmcpStdio: "rxmcp (era 'modern')",
  sdk2Stdio: 'official SDK 2.x (modern era)',
  floorStdio: 'raw floor (newline JSON-RPC echo child)',
  legacyStdio: "rxmcp (era 'legacy'; reference)",
  rxmcpHttp: "rxmcp (era 'modern')",
  sdk2Http: 'official SDK 2.x (modern era)',
  floorHttp: 'raw floor (node:http JSON echo)',
  legacyHttp: "rxmcp (era 'legacy', responseMode 'json'; reference)",
};
/** Which contender of a group is which, for ratios. */
export const roleOf = (group: ModernGroup): { rxmcp: ModernContender; sdk2: ModernContender; floor: ModernContender; legacy: ModernContender } =>
  group === 'stdio'
    ? { rxmcp: 'rxmcpStdio', sdk2: 'sdk2Stdio', floor: 'floorStdio', legacy: 'legacyStdio' }
    : { rxmcp: 'rxmcpHttp', sdk2: 'sdk2Http', floor: 'floorHttp', legacy: 'legacyHttp' };

interface Contender extends SuiteContender<ModernContender> {
  /** What was checked about the era actually spoken. */
  readonly era: string;
}

/** Calls answered by an error instead of the echo, per contender, with the first error: counted, the run goes on. */
export type ModernFailures = Partial<Record<ModernContender, { count: number; first: string }>>;
const failures: ModernFailures = {};
const counted = (name: ModernContender, call: () => Promise<unknown>): (() => Promise<unknown>) => {
  const failed = (error: unknown): void => {
    const entry = (failures[name] ??= { count: 0, first: error instanceof Error ? error.message : String(error) });
    if (entry.count++ === 0) console.error(`  ${name}: a call failed (counted; later failures not shown): ${entry.first}`);
  };
  return () => call().catch(failed);
};

type CallResult = { content?: unknown; isError?: unknown; resultType?: unknown };
const serverProf = (): string[] => (hasFlag('server-prof') ? ['--cpu-prof', '--cpu-prof-dir=.tmp'] : []);
const legacyProgram = (loader: Loader, args: readonly string[]): string[] => programArgv(loader, args, serverProf());
const modernProgram = (loader: Loader, transport: ModernGroup): string[] =>
  [...serverProf(), ...loaderArgs(loader), `${repoRoot}/bench/modern-programs.ts`, `--transport=${transport}`];

/** rxmcp's modern results carry `resultType`; a legacy answer would not. */
function modernResult(name: string, result: CallResult): void {
  if (result.resultType !== 'complete') throw new Error(`${name}: not a 2026-07-28 result (resultType ${JSON.stringify(result.resultType)})`);
}

/** The SDK 2.x client over stdio; a subclass, so that its `server/discover` probe and the calls share one child. */
class SameChildStdioTransport extends StdioClientTransport {}

function sdk2Client(): Client {
  return new Client(clientInfo, { versionNegotiation: { mode: 'auto' } });
}

async function sdk2Ready(name: ModernContender, client: Client): Promise<string> {
  const era = client.getProtocolEra();
  const version = client.getNegotiatedProtocolVersion();
  if (era !== 'modern') throw new Error(`${name}: the SDK 2.x client negotiated the ${String(era)} era (${String(version)}), not the modern one`);
  await checkEcho(name, (a) => client.callTool({ name: 'echo', arguments: a as Record<string, unknown> }) as Promise<CallResult>);
  return `getProtocolEra() 'modern', version ${String(version)}`;
}

async function rxmcpReady(name: ModernContender, call: (a: object) => Promise<CallResult>): Promise<string> {
  await checkEcho(name, call);
  modernResult(name, await call(callArgs));
  return "era 'modern' (2026-07-28 required), results carry resultType";
}

const makers: Record<ModernContender, (loader: Loader) => Promise<Contender>> = {
  async rxmcpStdio(loader) {
    const name = 'rxmcpStdio';
    const transport = await spawnStdioServer({ command: process.execPath, args: legacyProgram(loader, ['--transport=stdio', '--impl=rxmcp']), cwd: repoRoot });
    const client = await createClient({ ...clientInfo, era: 'modern' }).connect(transport);
    const era = await rxmcpReady(name, (a) => client.callTool('echo', a as JsonObject));
    return { name, label: modernLabels[name], pid: transport.pid, era, run: counted(name, () => client.callTool('echo', callArgs)), close: () => client.close() };
  },
  async sdk2Stdio(loader) {
    const name = 'sdk2Stdio';
    const transport = new SameChildStdioTransport({ command: process.execPath, args: modernProgram(loader, 'stdio'), cwd: repoRoot });
    const client = sdk2Client();
    await client.connect(transport);
    const era = await sdk2Ready(name, client);
    const request = { name: 'echo', arguments: callArgs };
    return { name, label: modernLabels[name], pid: transport.pid ?? -1, era, run: counted(name, () => client.callTool(request)), close: () => client.close() };
  },
  async floorStdio(loader) {
    const name = 'floorStdio';
    const child = spawn(process.execPath, legacyProgram(loader, ['--transport=stdio', '--impl=floor']), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] });
    const client = new LineClient((line) => void child.stdin.write(line));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => client.receive(chunk));
    const params = { name: 'echo', arguments: callArgs };
    const answer = (await client.request('tools/call', params)) as { content: { text: string }[] };
    if (answer.content[0]?.text !== expectedText) throw new Error(`${name}: echo answered ${JSON.stringify(answer)}`);
    return {
      name,
      label: modernLabels[name],
      pid: child.pid ?? -1,
      era: 'none (plain JSON-RPC, no envelope)',
      run: () => client.request('tools/call', params),
      close: async () => {
        child.stdin.end();
        if (child.exitCode === null) await once(child, 'exit');
      },
    };
  },
  async legacyStdio(loader) {
    const name = 'legacyStdio';
    const transport = await spawnStdioServer({ command: process.execPath, args: legacyProgram(loader, ['--transport=stdio', '--impl=rxmcp']), cwd: repoRoot });
    const client = await createClient({ ...clientInfo, era: 'legacy' }).connect(transport);
    await checkEcho(name, (a) => client.callTool('echo', a as JsonObject));
    return { name, label: modernLabels[name], pid: transport.pid, era: "era 'legacy' (initialize handshake)", run: counted(name, () => client.callTool('echo', callArgs)), close: () => client.close() };
  },
  async legacyHttp(loader) {
    const name = 'legacyHttp';
    const program = Program.start(loader, ['--transport=http', '--impl=rxmcp', '--mode=json'], serverProf());
    const client = await createClient({ ...clientInfo, era: 'legacy' }).connect(createStreamableHttpClientTransport(String((await program.ready)['url'])));
    await checkEcho(name, (a) => client.callTool('echo', a as JsonObject));
    return {
      name,
      label: modernLabels[name],
      pid: program.pid,
      era: "era 'legacy' (initialize handshake, a session)",
      run: counted(name, () => client.callTool('echo', callArgs)),
      close: async () => {
        await client.close();
        await program.stop();
      },
    };
  },
  async rxmcpHttp(loader) {
    const name = 'rxmcpHttp';
    const program = Program.start(loader, ['--transport=http', '--impl=rxmcp', '--mode=json'], serverProf());
    const url = String((await program.ready)['url']);
    const client = await createClient({ ...clientInfo, era: 'modern' }).connect(createStreamableHttpClientTransport(url));
    const era = await rxmcpReady(name, (a) => client.callTool('echo', a as JsonObject));
    return {
      name,
      label: modernLabels[name],
      pid: program.pid,
      era,
      run: counted(name, () => client.callTool('echo', callArgs)),
      close: async () => {
        await client.close();
        await program.stop();
      },
    };
  },
  async sdk2Http(loader) {
    const name = 'sdk2Http';
    const program = new Program(spawn(process.execPath, modernProgram(loader, 'http'), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
    const url = String((await program.ready)['url']);
    const client = sdk2Client();
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const era = await sdk2Ready(name, client);
    const request = { name: 'echo', arguments: callArgs };
    return {
      name,
      label: modernLabels[name],
      pid: program.pid,
      era,
      run: counted(name, () => client.callTool(request)),
      close: async () => {
        await client.close();
        await program.stop();
      },
    };
  },
  async floorHttp(loader) {
    const name = 'floorHttp';
    const program = Program.start(loader, ['--transport=http', '--impl=floor'], serverProf());
    const floor = floorHttpClient(String((await program.ready)['url']));
    const answer = (await floor.call()) as { content: { text: string }[] };
    if (answer.content[0]?.text !== expectedText) throw new Error(`${name}: echo answered ${JSON.stringify(answer)}`);
    return {
      name,
      label: modernLabels[name],
      pid: program.pid,
      era: 'none (plain JSON-RPC, no envelope)',
      run: counted(name, () => floor.call()),
      close: async () => {
        floor.agent.destroy();
        await program.stop();
      },
    };
  },
};

const isModernContender = (name: string): name is ModernContender => (modernContenders as readonly string[]).includes(name);

/** This suite's factory, for a contender host (bench/contender-host.ts); failed calls are counted where the client runs. */
export const modernSuite: HostSuite = {
  make(name, loader) {
    if (!isModernContender(name)) throw new RangeError(`modern contenders are ${modernContenders.join(', ')}, not ${name}`);
    return makers[name](loader);
  },
  failure: (name) => failures[name as ModernContender],
};

export interface ModernLoad {
  /** Calls in flight (1: sequential). */
  readonly width: number;
  readonly figures: Partial<Record<ModernContender, Figures>>;
  readonly serverCpuUsPerCall: Partial<Record<ModernContender, number>>;
  /** Calls per sample, per contender (fixed by the calibration). */
  readonly counts: Partial<Record<ModernContender, number>>;
}

export interface ModernCallsResult {
  readonly loader: Loader;
  readonly rounds: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
  readonly levels: readonly number[];
  readonly groups: readonly ModernGroup[];
  readonly loads: Partial<Record<ModernGroup, readonly ModernLoad[]>>;
  readonly eras: Partial<Record<ModernContender, string>>;
  readonly failures: ModernFailures;
  /** `MaxListenersExceededWarning`s counted (not printed), in every client's process; see quietListenerWarnings. */
  readonly listenerWarnings: number;
  readonly seconds: number;
  /** Where the clients ran: `own`, a process per contender (the default); `shared`, all in the benchmark process. */
  readonly clientProcess: ClientProcess;
}

interface Options {
  readonly rounds: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
  readonly levels: readonly number[];
  readonly groups: readonly ModernGroup[];
  readonly loader: Loader;
  readonly clientProcess: ClientProcess;
}

export async function runModernCallsBench(options: Options): Promise<ModernCallsResult> {
  const started = performance.now();
  const listenerWarnings = quietListenerWarnings();
  const { rounds, sampleMs, warmupMs, levels, loader, clientProcess } = options;
  const eras: Partial<Record<ModernContender, string>> = {};
  const loads: Partial<Record<ModernGroup, ModernLoad[]>> = {};
  const all: Contestant<ModernContender>[] = [];
  console.log(`modern tools/call: ${clientProcess === 'own' ? 'each client in a process of its own' : 'all clients in this process'}`);
  for (const group of options.groups) {
    for (const name of modernGroups[group]) {
      const contender = await contestant(clientProcess, 'modern', name, loader, (n, l) => makers[n](l));
      if (contender.era !== undefined) eras[name] = contender.era;
      all.push(contender);
    }
  }
  for (const group of options.groups) {
    const contenders = all.filter((c) => modernGroups[group].includes(c.name));
    console.log(`\nmodern tools/call over ${group}: warm-up ${warmupMs} ms each (64 in flight, then sequential)`);
    for (const c of contenders) {
      await c.rate(64, (warmupMs * 2) / 3);
      await c.rate(1, warmupMs / 3);
    }
    const groupLoads: ModernLoad[] = [];
    for (const width of levels) {
      const counts: Partial<Record<ModernContender, number>> = {};
      for (const c of contenders) counts[c.name] = Math.max(width * 4, 100, Math.round(((await c.rate(width, 300)) * sampleMs) / 1000));
      const title = width <= 1 ? 'sequential' : `${width} in flight`;
      console.log(`modern tools/call over ${group}, ${title}: ${rounds} rounds of ~${sampleMs} ms per contender (${contenders.map((c) => `${c.name} ${fmt(counts[c.name] ?? 0, 0)}`).join(', ')} calls), interleaved (order rotates)`);
      const figures = await interleave(contenders, rounds, (c) => c.measure(counts[c.name] ?? 0, width), 'call');
      const serverCpuUsPerCall = Object.fromEntries(contenders.map((c) => [c.name, peerCpu(figures[c.name] as Figures)])) as Partial<Record<ModernContender, number>>;
      const roles = roleOf(group);
      const ops = (n: ModernContender): number => figures[n]?.medianOpsPerSec ?? Number.NaN;
      console.log(`  server child CPU us/call: ${contenders.map((c) => `${c.name} ${fmt(serverCpuUsPerCall[c.name] ?? Number.NaN)}`).join(', ')}`);
      console.log(`  cores busy, client + server: ${contenders.map((c) => `${c.name} ${busyCores(figures[c.name] as Figures, serverCpuUsPerCall[c.name] ?? Number.NaN)}`).join(', ')}`);
      console.log(`  rxmcp/SDK2 ${fmt(ops(roles.rxmcp) / ops(roles.sdk2))}x, rxmcp/floor ${fmt((100 * ops(roles.rxmcp)) / ops(roles.floor), 1)} %, SDK2/floor ${fmt((100 * ops(roles.sdk2)) / ops(roles.floor), 1)} %, ` +
        `rxmcp legacy/floor ${fmt((100 * ops(roles.legacy)) / ops(roles.floor), 1)} %`);
      groupLoads.push({ width, figures: figures as Partial<Record<ModernContender, Figures>>, serverCpuUsPerCall, counts });
    }
    loads[group] = groupLoads;
  }
  let hostWarnings = 0;
  for (const c of all) {
    const closed = await c.close();
    if (closed.failure !== undefined) failures[c.name] = closed.failure;
    hostWarnings += closed.listenerWarnings;
  }
  return { ...options, loads, eras, failures, listenerWarnings: listenerWarnings() + hostWarnings, seconds: (performance.now() - started) / 1000 };
}

/** Only one contender's calls, for a CPU profile of this process (the client) or, with --server-prof, of its server too. */
async function profileOne(name: ModernContender, seconds: number, width: number, loader: Loader): Promise<void> {
  const contender = await makers[name](loader);
  await runFor(contender, width, 2_000);
  const count = Math.max(1_000, Math.round((await runFor(contender, width, 500)) * seconds));
  const sample = await timed(count, () => atLevel(contender, count, width));
  console.log(`${name}, ${width > 1 ? `${width} in flight` : 'sequential'}: ${fmt(sample.opsPerSec, 0)} calls/s, ${fmt(sample.cpuUsPerOp)} CPU us/call (client)`);
  await contender.close();
  const maps = argValue('source-maps');
  if (maps !== undefined) console.log(`source maps of ${dumpSourceMaps(maps)} modules written to ${maps}`);
}

function argList(name: string, fallback: string): string[] {
  return (argValue(name) ?? fallback).split(',').map((s) => s.trim()).filter((s) => s !== '');
}

const profile = argValue('profile');
if (isMain(import.meta.url) && profile !== undefined) {
  if (!(modernContenders as readonly string[]).includes(profile)) throw new RangeError(`--profile must be one of ${modernContenders.join(', ')}`);
  quietListenerWarnings();
  await profileOne(profile as ModernContender, argInt('seconds', 10), argInt('window', 64), argLoader());
} else if (isMain(import.meta.url)) {
  const levels = argList('levels', '1,8,64').map((l) => Number.parseInt(l, 10));
  if (levels.some((l) => !Number.isInteger(l) || l < 1)) throw new RangeError(`--levels takes positive integers, got ${String(argValue('levels'))}`);
  const groups = argList('groups', 'stdio,http');
  if (groups.some((g) => g !== 'stdio' && g !== 'http')) throw new RangeError(`--groups takes stdio and/or http, got ${groups.join(',')}`);
  emitResult(await runModernCallsBench({
    rounds: argInt('rounds', 7),
    sampleMs: argInt('sample-ms', 400),
    warmupMs: argInt('warmup-ms', 1_500),
    levels,
    groups: groups as ModernGroup[],
    loader: argLoader(),
    clientProcess: argClientProcess(),
  }));
}
