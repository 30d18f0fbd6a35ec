/**
 * The modern-era benchmark part of bench/run.ts (`--only=modern`): `tools/call` in revision 2026-07-28 over stdio
 * and Streamable HTTP (bench/modern-calls.ts, one fresh child process, sources under tsx), rxmcp against the
 * official SDK 2.x with the legacy benchmarks' raw floors; and its sections of bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { clientsMethod } from './contender-hosts.ts';
import type { Figures } from './harness.ts';
import { fmt, loaderArgs, repoRoot, runChild } from './lib.ts';
import { rel, table, tag, verdict } from './markdown.ts';
import { type ModernCallsResult, type ModernContender, type ModernGroup, type ModernLoad, modernGroups, roleOf } from './modern-calls.ts';
import type { PeerSample } from './transport-lib.ts';

/** The issue's targets, at the highest load (64 in flight by default). */
const sdkTarget = 3;
const floorTarget = 0.5;

export interface ModernOptions {
  readonly rounds: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
  /** Calls in flight, comma-separated (1 = sequential). */
  readonly levels: string;
}

export interface ModernRun {
  readonly options: ModernOptions;
  readonly result: ModernCallsResult;
  readonly command: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  /** The commit measured, and the runtime's source files that differed from it (uncommitted work), if any. */
  readonly revision: string;
}

/** HEAD, plus the runtime's uncommitted files (specs, docs and bench/ aside): what exactly was measured. */
export function revision(): string {
  const git = (...args: string[]): string => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
    } catch {
      return '';
    }
  };
  const head = git('rev-parse', '--short', 'HEAD').trim() || 'unknown';
  // Porcelain lines are "XY path": the status letters, a space, the path.
  const dirty = git('status', '--porcelain', '--', 'core', 'actors', 'machines', 'transports', 'index.ts').split('\n').filter((l) => l.length > 3).map((l) => l.slice(3));
  return dirty.length === 0 ? `commit ${head}` : `commit ${head} with uncommitted changes to ${dirty.join(', ')}`;
}

export async function measureModern(options: ModernOptions): Promise<ModernRun> {
  console.log('\n=== modern era (2026-07-28): tools/call over stdio and Streamable HTTP, sources loaded with tsx ===');
  const loadBefore = os.loadavg();
  const measured = revision();
  const run = await runChild(loaderArgs('tsx'), join(repoRoot, 'bench/modern-calls.ts'),
    [`--rounds=${options.rounds}`, `--sample-ms=${options.sampleMs}`, `--warmup-ms=${options.warmupMs}`, `--levels=${options.levels}`]);
  return { options, result: run.result as ModernCallsResult, command: run.command, loadBefore, loadAfter: os.loadavg(), revision: measured };
}

const title = (width: number): string => (width <= 1 ? 'sequential' : `${width} in flight`);
const us = (value: number | undefined): string => `${fmt(value ?? Number.NaN, 1)} µs`;
const ops = (l: ModernLoad, name: ModernContender): number => l.figures[name]?.medianOpsPerSec ?? Number.NaN;
const pct = (value: number): string => `${fmt(100 * value, 1)} %`;
const times = (value: number): string => `${fmt(value)}×`;
const groupTitle: Record<ModernGroup, string> = { stdio: 'stdio', http: 'Streamable HTTP (127.0.0.1)' };

function groupTable(group: ModernGroup, loads: readonly ModernLoad[], loader: ModernCallsResult['loader']): string {
  const header = ['contender', ...loads.map((l) => `calls/s, ${title(l.width)}`), ...loads.map((l) => `CPU/call client + server, ${title(l.width)}`)];
  const rows = modernGroups[group].map((name) => [
    `${loads[0]?.figures[name]?.label ?? name} (${tag(loader)})`,
    ...loads.map((l) => fmt(ops(l, name), 0)),
    ...loads.map((l) => `${us(l.figures[name]?.medianCpuUsPerOp)} + ${us(l.serverCpuUsPerCall[name])}`),
  ]);
  return table(header, rows);
}

function ratioRows(group: ModernGroup, loads: readonly ModernLoad[]): string[][] {
  const r = roleOf(group);
  return loads.map((l) => [group === 'stdio' ? 'stdio' : 'HTTP', title(l.width), times(ops(l, r.rxmcp) / ops(l, r.sdk2)), pct(ops(l, r.rxmcp) / ops(l, r.floor)),
    pct(ops(l, r.sdk2) / ops(l, r.floor)), pct(ops(l, r.legacy) / ops(l, r.floor))]);
}

function sampleLines(group: ModernGroup, loads: readonly ModernLoad[]): string[] {
  return loads.flatMap((l) => modernGroups[group].map((name) => {
    const f = l.figures[name] as Figures | undefined;
    const samples = (f?.samples ?? []) as readonly PeerSample[];
    return `- ${group}, ${title(l.width)}, ${f?.label ?? name} (${fmt(l.counts[name] ?? Number.NaN, 0)} calls per sample): calls/s ${samples.map((s) => fmt(s.opsPerSec, 0)).join(', ')}; ` +
      `client CPU µs ${samples.map((s) => fmt(s.cpuUsPerOp, 1)).join(', ')}; server CPU µs ${samples.map((s) => fmt(s.peerCpuUsPerOp, 1)).join(', ')}`;
  }));
}

export function modernMarkdown({ options, result, command, loadBefore, loadAfter, revision: measured }: ModernRun): { sections: string; commands: string[] } {
  const groups = result.groups;
  const loadsOf = (group: ModernGroup): readonly ModernLoad[] => result.loads[group] ?? [];
  const top = (group: ModernGroup): ModernLoad | undefined => loadsOf(group).reduce<ModernLoad | undefined>((best, l) => (best === undefined || l.width > best.width ? l : best), undefined);
  const targetRows: string[][] = [];
  for (const group of groups) {
    const l = top(group);
    if (l === undefined) continue;
    const r = roleOf(group);
    const name = group === 'stdio' ? 'stdio' : 'HTTP';
    if (group === 'http') {
      const ratio = ops(l, r.rxmcp) / ops(l, r.sdk2);
      targetRows.push([`${name}: rxmcp ≥ ${sdkTarget}× the SDK 2.x calls/s at ${title(l.width)}`, `${times(ratio)} (rxmcp ${fmt(ops(l, r.rxmcp), 0)}, SDK 2.x ${fmt(ops(l, r.sdk2), 0)} calls/s)`, verdict(ratio >= sdkTarget)]);
    }
    const share = ops(l, r.rxmcp) / ops(l, r.floor);
    targetRows.push([`${name}: rxmcp ≥ ${pct(floorTarget)} of the floor's calls/s at ${title(l.width)}`, `${pct(share)} (SDK 2.x ${pct(ops(l, r.sdk2) / ops(l, r.floor))})`, verdict(share >= floorTarget)]);
  }
  const failed = Object.entries(result.failures).map(([name, f]) => `${name}: ${fmt(f.count, 0)} (first: ${f.first})`);
  const eras = Object.entries(result.eras).map(([name, era]) => `${name}: ${era}`).join('; ');
  const load = (values: readonly number[]): string => values.map((v) => fmt(v)).join(' / ');
  const own = result.clientProcess === 'own';

  const sections = `## Modern era (2026-07-28): \`tools/call\` over stdio and Streamable HTTP

Command: \`${rel(command)}\` (run by \`npx tsx bench/run.ts --only=modern\`; ${fmt(result.seconds / 60, 1)} min;
load average 1/5/15 min before ${load(loadBefore)}, after ${load(loadAfter)} on ${os.cpus().length} cores; rxmcp at ${measured}).

${groups.map((group) => `${groupTitle[group]}:\n\n${groupTable(group, loadsOf(group), result.loader)}`).join('\n\n')}

${table(['transport', 'load', 'ratio rxmcp/SDK 2.x (calls/s)', 'rxmcp of floor', 'SDK 2.x of floor', 'rxmcp legacy era of floor (reference)'], groups.flatMap((group) => ratioRows(group, loadsOf(group))))}

Targets (from the issue; at the highest load measured):

${table(['target', 'measured', 'verdict'], targetRows)}

Era checks: ${eras}.
Failed calls (an error instead of the echo; counted, the run goes on): ${failed.length === 0 ? 'none' : failed.join('; ')}.

## Modern era method

One benchmark process, \`bench/modern-calls.ts\` (sources under tsx), ${own ? "each contender's client in a process of its own\nand every server a child of its client's process" : 'the clients in it, every server a child process of it'}, all ${groups.reduce((n, g) => n + modernGroups[g].length, 0)} contenders up for the whole run. Each serves the echo tool of the features benchmark
(\`{ text: string, count: integer ≥ 0, upper: boolean }\`, one text block; rxmcp with JSON Schema, the SDK with the
same zod 4 schema) and was checked to answer the echo (the MCP ones also to reject \`count: -1\` with \`isError\`).
- rxmcp: \`createClient({ ..., era: 'modern' })\` (2026-07-28 required: no handshake, every request carries
  \`params._meta\` with the protocol version and client capabilities) over \`spawnStdioServer(...)\` and over
  \`createStreamableHttpClientTransport(url)\` (each request its own POST, with \`MCP-Protocol-Version\`, \`Mcp-Method\`,
  \`Mcp-Name\`); the servers are the legacy benchmarks' own programs (\`bench/transport-programs.ts\`: \`createServer()\` +
  \`serveStdio\`; \`createStreamableHttpServer({ server, responseMode: 'json' }).listen(0)\`), which serve both eras.
- official SDK 2.x (\`@modelcontextprotocol/client\` / \`server\` 2.4): \`new Client(info, { versionNegotiation: { mode:
  'auto' } })\` (a \`server/discover\` probe, then 2026-07-28; without the option it speaks legacy), over a trivial
  subclass of \`StdioClientTransport\` (the base class respawns the server after the probe; the subclass keeps the
  one child) and over \`StreamableHTTPClientTransport\` (fetch); servers (\`bench/modern-programs.ts\`):
  \`serveStdio(factory)\` and \`createMcpHandler(factory)\` (defaults: a new \`McpServer\` from the factory per modern
  request, responseMode 'auto') whose \`fetch(Request)\` a minimal node:http adapter serves (body read whole, a
  \`Request\` built, status and headers written, the body piped with \`Readable.fromWeb\`).
- floors: the legacy transport benchmarks' own, unchanged: a newline JSON-RPC echo child over a pipe, and a node:http
  JSON echo POSTed to on a keep-alive \`http.Agent\` (64 sockets, like rxmcp's client). Plain JSON-RPC, no envelope: a
  floor request is 123 bytes and its answer 81, where rxmcp's modern request is 315 bytes (the \`_meta\` envelope)
  and its answer 194 (\`resultType\`, \`_meta\` with serverInfo); over HTTP the floor sends no MCP headers either.
- a reference, outside the targets: rxmcp in the legacy era (\`era: 'legacy'\`: \`initialize\` handshake, then plain
  requests; over HTTP one session, \`responseMode: 'json'\`, the client's standalone GET stream open), the same client
  code and the same server programs, so that what the modern era costs rxmcp shows within the run.

Loop: per transport, a warm-up (${fmt(options.warmupMs, 0)} ms each: two thirds 64 in flight, one third sequential);
then per load (calls in flight: ${result.levels.join(', ')}; 1 = await each call) a 300 ms calibration per contender
that fixes its sample size (the calls it makes in about ${fmt(result.sampleMs, 0)} ms: contenders 100× apart in speed
get samples of about equal duration), then ${result.rounds} rounds, contenders interleaved, the order rotating each round.
${clientsMethod(result.clientProcess)}
Figures are medians over rounds: calls/s (wall clock), CPU per call in the client's process (\`process.cpuUsage()\`${own ? '' : ', all clients in it'})
and in the server child (\`/proc/<pid>/stat\` utime+stime, 10 ms ticks). On 2 cores the client and server processes
compete with each other and with whatever else the machine runs: compare contenders within a run, not across runs.
Node's fetch (undici, under the SDK client) trips \`MaxListenersExceededWarning\` (counted, not printed: ${fmt(result.listenerWarnings, 0)}).

Per round (calls/s; CPU µs per call, client then server):
${groups.flatMap((group) => sampleLines(group, loadsOf(group))).join('\n')}

CPU hotspots: \`node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/modern-calls.ts --profile=rxmcpHttp --window=64 --server-prof --source-maps=.tmp/maps.json\`
(or \`--profile=rxmcpStdio\`, \`sdk2Http\`, ...), then \`npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile --maps=.tmp/maps.json --callers --inclusive\`.
`;
  return { sections, commands: [rel(command)] };
}
