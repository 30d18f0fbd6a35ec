/**
 * The features benchmark: in-memory `tools/call` (bench/tools-call.ts) and `tools/list` scaling with 500
 * tools (bench/tools-list-scaling.ts), rxmcp against the official SDK 1.x (tools/call also against the official SDK 2.x
 * and tmcp), each in fresh child processes;
 * and its sections of bench/RESULTS.md. Run by bench/run.ts.
 */
import { join } from 'node:path';
import type { Figures } from './harness.ts';
import { type Loader, fmt, loaderArgs, repoRoot, runChild } from './lib.ts';
import { rel, table, tag, verdict } from './markdown.ts';
import { type CallContender, type ToolsCallResult, callContenders } from './tools-call.ts';
import { type ListScalingResult, defaultListOptions, runListScalingBench } from './tools-list-scaling.ts';

const cpuTarget = 0.25;
/** tools/list per-call CPU at the most sessions, over that at one session, still called flat. */
const flatTolerance = 1.5;

export interface FeaturesOptions {
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  readonly window: number;
  readonly suite: boolean;
  /** Loaders for tools/call; tools/list scaling runs under the first only. */
  readonly loaders: readonly Loader[];
  /** Session counts for tools/list scaling, comma-separated (default 1,100,1000). */
  readonly listSessions?: string;
}

interface CallRun {
  readonly loader: Loader;
  readonly result: ToolsCallResult;
  readonly command: string;
}

export interface FeaturesRun {
  readonly options: FeaturesOptions;
  readonly calls: readonly CallRun[];
  readonly list: ListScalingResult;
}

export async function measureFeatures(options: FeaturesOptions): Promise<FeaturesRun> {
  const calls: CallRun[] = [];
  for (const loader of options.loaders) {
    console.log(`\n=== features: tools/call, sources loaded with ${loader === 'tsx' ? 'tsx (as the project runs)' : 'types stripped only (no keepNames)'} ===`);
    const { rounds, count, warmup, window, suite } = options;
    const args = [`--rounds=${rounds}`, `--count=${count}`, `--warmup=${warmup}`, `--window=${window}`, ...(suite && loader === 'tsx' ? [] : ['--no-suite'])];
    const run = await runChild(loaderArgs(loader), join(repoRoot, 'bench/tools-call.ts'), args);
    calls.push({ loader, result: run.result as ToolsCallResult, command: run.command });
  }
  const listLoader = options.loaders[0] ?? 'tsx';
  console.log(`\n=== features: tools/list scaling, sources loaded with ${listLoader} ===`);
  const list = await runListScalingBench(listLoader, { ...defaultListOptions, ...(options.listSessions === undefined ? {} : { sessions: options.listSessions }) });
  return { options, calls, list };
}

const us = (value: number): string => `${fmt(value)} µs`;

function callRows({ loader, result }: CallRun): string[][] {
  const rows: string[][] = [];
  const load = (label: string, figures: Record<CallContender, Figures>, ratio: number): void => {
    const [rx, rz, sdk] = [figures.rxmcp, figures.rxmcpZod, figures.sdk];
    rows.push(
      [`CPU per \`tools/call\`, ${label}, median (${tag(loader)})`, us(rx.medianCpuUsPerOp), us(rz.medianCpuUsPerOp), us(sdk.medianCpuUsPerOp),
        `${fmt(ratio, 3)} (zod: ${fmt(rz.medianCpuUsPerOp / sdk.medianCpuUsPerOp, 3)})`, `≤ 1/4 of SDK (ratio ≤ ${cpuTarget}): ${verdict(ratio <= cpuTarget)}`],
      [`\`tools/call\` calls/s, ${label}, median wall clock (${tag(loader)})`, fmt(rx.medianOpsPerSec, 0), fmt(rz.medianOpsPerSec, 0), fmt(sdk.medianOpsPerSec, 0),
        `${fmt(rx.medianOpsPerSec / sdk.medianOpsPerSec, 2)} (zod: ${fmt(rz.medianOpsPerSec / sdk.medianOpsPerSec, 2)})`, '—'],
    );
  };
  load('sequential', result.sequential, result.cpuRatioSequential);
  load(`${result.window} in flight`, result.windowed, result.cpuRatioWindowed);
  return rows;
}

export function featuresMarkdown({ options, calls, list }: FeaturesRun): { sections: string; commands: string[] } {
  const primary = calls[0] as CallRun;
  const { rounds, count, warmup, window } = options;
  const floorLines = calls.flatMap(({ loader, result }) =>
    (['sequential', 'windowed'] as const).map((mode) => {
      const f = result[mode];
      return `- ${tag(loader)}, ${mode === 'sequential' ? 'sequential' : `${result.window} in flight`}: floor ${us(f.floor.medianCpuUsPerOp)} CPU per call, ` +
        `${fmt(f.floor.medianOpsPerSec, 0)} calls/s; rxmcp costs ${fmt(f.rxmcp.medianCpuUsPerOp / f.floor.medianCpuUsPerOp, 1)}× the floor, ` +
        `the SDK ${fmt(f.sdk.medianCpuUsPerOp / f.floor.medianCpuUsPerOp, 1)}×, SDK 2.x ${fmt(f.sdk2.medianCpuUsPerOp / f.floor.medianCpuUsPerOp, 1)}×, ` +
        `tmcp (with rxmcp's client) ${fmt(f.tmcp.medianCpuUsPerOp / f.floor.medianCpuUsPerOp, 1)}×.`;
    }));
  const sideRows = calls.flatMap(({ loader, result }) => (['sequential', 'windowed'] as const).flatMap((mode) => callContenders.map((name) => {
    const f = result[mode];
    const mine = f[name];
    return [`${mine.label} (${tag(loader)})`, mode === 'sequential' ? 'sequential' : `${result.window} in flight`, us(mine.medianCpuUsPerOp), fmt(mine.medianOpsPerSec, 0),
      `${fmt(mine.medianCpuUsPerOp / f.floor.medianCpuUsPerOp, 1)}×`, `${fmt(mine.medianCpuUsPerOp / f.rxmcp.medianCpuUsPerOp, 2)}×`,
      `${fmt((100 * mine.medianOpsPerSec) / f.floor.medianOpsPerSec, 1)} %`];
  })));
  const suite = primary.result.suite;
  const suiteSection = suite === undefined ? '_benchmark.js suite skipped (`--no-suite`)._'
    : `benchmark.js \`Benchmark.Suite\` (tsx), deferred benchmarks of ${suite.callsPerCycle} sequential \`tools/call\` per op (wall clock):\n\n` +
      table(['contender', 'ops/s ± rme', 'calls/s', 'samples'], callContenders.flatMap((name) => {
        const f = suite.figures[name];
        return f === undefined ? [] : [[f.label, `${fmt(f.hz)} ± ${fmt(f.rme)} %`, fmt(f.opsPerSec, 0), String(f.samples)]];
      }));
  const samplesLines = calls.flatMap(({ loader, result }) => (['sequential', 'windowed'] as const).flatMap((mode) =>
    callContenders.map((name) => `- ${tag(loader)}, ${mode === 'sequential' ? 'sequential' : `${result.window} in flight`}, ${result[mode][name].label}: ` +
      result[mode][name].samples.map((s) => fmt(s.cpuUsPerOp)).join(', '))));

  const { rxmcp: lr, sdk: ls } = list.children;
  const sessionKeys = Object.keys(lr.figures).filter((key) => !key.startsWith('ping '));
  const cpuOf = (child: typeof lr, key: string): number => child.figures[key]?.medianCpuUsPerOp ?? NaN;
  const listRows = sessionKeys.map((key) => {
    const [r, s] = [lr.figures[key] as Figures, ls.figures[key] as Figures];
    return [fmt(Number(key), 0), us(r.medianCpuUsPerOp), us(cpuOf(lr, `ping ${key}`)), fmt(r.medianOpsPerSec, 0),
      us(s.medianCpuUsPerOp), us(cpuOf(ls, `ping ${key}`)), fmt(s.medianOpsPerSec, 0), fmt(r.medianCpuUsPerOp / s.medianCpuUsPerOp, 5)];
  });
  const [fewest, most] = [sessionKeys[0] ?? '', sessionKeys.at(-1) ?? ''];
  const growth = (child: typeof lr, prefix = ''): number => cpuOf(child, `${prefix}${most}`) / cpuOf(child, `${prefix}${fewest}`);
  const flat = growth(lr) <= flatTolerance * Math.max(1, growth(lr, 'ping '));
  const regRows = [...Object.values(lr.registration), ...Object.values(ls.registration)].map((r) =>
    [r.label, `${fmt(r.medianMs)} ms`, `${fmt((r.medianMs * 1000) / lr.tools, 1)} µs`, `${fmt(r.firstMs)} ms`, r.samplesMs.map((m) => fmt(m, 1)).join(', ')]);
  const listSamples = [lr, ls].flatMap((child) => Object.entries(child.figures).map(([key, f]) =>
    `- ${child.impl === 'rxmcp' ? 'rxmcp' : 'official SDK 1.x'}, ${key.startsWith('ping ') ? `ping, ${key.slice(5)}` : `tools/list, ${key}`} session(s): ${f.samples.map((x) => fmt(x.cpuUsPerOp)).join(', ')}`));

  const sections = `## Features: \`tools/call\`

Command: \`${rel(primary.command)}\`${calls.length > 1 ? ` (and the same with \`--import ./bench/strip-types.mjs --no-suite\`)` : ''}.

${table(['figure', 'rxmcp (JSON Schema)', 'rxmcp (zod 4 schema)', 'official SDK 1.x (zod 4)', 'ratio rxmcp/SDK', 'target'], calls.flatMap(callRows))}

The target (from the issue: the SDK spends about 21 µs per call) is on the JSON Schema row, rxmcp's native path;
the zod column registers the very same zod 4 schema the SDK gets, validated by zod through Standard Schema.

Floor: the same \`tools/call\` request and echo answer as plain JSON-RPC objects over \`queueMicrotask\` (no parsing, no validation):
${floorLines.join('\n')}

All contenders side by side (CPU per call and calls/s are medians; "× floor" and "× rxmcp" are CPU per call over the floor's
and over rxmcp's (JSON Schema); "of floor" is calls/s over the floor's). The official SDK 2.x runs its \`McpServer\` and
\`Client\` in the legacy era (the client's default: the \`initialize\` handshake) over its own \`InMemoryTransport\`. tmcp has
no client and no in-memory transport: its \`McpServer\` is called through \`server.receive(message, { sessionInfo })\` on
the far end of rxmcp's \`createMemoryPair()\`, by the rxmcp client (\`bench/contenders-servers.ts\`), so its row is tmcp's
server plus rxmcp's client and link (the rxmcp row's own client and link are in it too).

${table(['contender', 'load', 'CPU per call', 'calls/s', '× floor (CPU)', '× rxmcp (CPU)', 'of floor (calls/s)'], sideRows)}

${suiteSection}

## Features: \`tools/list\` with ${lr.tools} tools, by number of sessions

Command: \`${rel(list.commands.rxmcp)}\` and \`${rel(list.commands.sdk)}\` (loader: ${tag(list.loader)}).

${table(['sessions', 'rxmcp CPU per `tools/list`', 'rxmcp CPU per `ping` (control)', 'rxmcp lists/s', 'SDK CPU per `tools/list`', 'SDK CPU per `ping` (control)', 'SDK lists/s', 'ratio rxmcp/SDK (CPU per `tools/list`)'], listRows)}

Per-call CPU from ${fewest} to ${most} session(s): rxmcp \`tools/list\` ×${fmt(growth(lr), 2)}, \`ping\` on the same sessions ×${fmt(growth(lr, 'ping '), 2)}
(${flat ? 'flat' : '**grows**'}: flat = the list's growth within ${flatTolerance}× of the control's, or of 1); SDK \`tools/list\` ×${fmt(growth(ls), 2)}, \`ping\` ×${fmt(growth(ls, 'ping '), 2)}.
Whatever grows for both methods is the cost of touching that many sessions in turn (their transports, pending maps and
promises spread over more memory), not of the list. rxmcp serves every session from one server whose page result is built
once and cached: two sessions, and two calls, got the very same result object (checked: ${lr.sharedResult ? 'yes' : '**no**'}; SDK: ${ls.sharedResult ? 'yes' : 'no'}).
The SDK needs one \`McpServer\` per session and rebuilds the list (each zod schema converted to JSON Schema) on every call. Opening the ${sessionKeys.at(-1)} sessions took rxmcp ${fmt(lr.setupSeconds)} s, the SDK ${fmt(ls.setupSeconds)} s
(${ls.impl === 'sdk' ? `${sessionKeys.at(-1)} \`McpServer\`s × ${ls.tools} \`registerTool\`` : ''}).

Registering ${lr.tools} tools once (a fresh server, fresh definitions each repetition, only the registering calls timed, wall clock):

${table(['registering', 'median', 'per tool', 'first run', 'all runs (ms)'], regRows)}

rxmcp does the work at registration (JSON Schema: Ajv compiles a validator; zod: converted to JSON Schema and checked)
so that calls and lists do none; the SDK's \`registerTool\` stores the zod schema and converts it on each \`tools/list\`.

## Features method

**\`tools/call\`** (one process per loader): a small echo tool with input \`{ text: string, count: integer ≥ 0, upper: boolean }\`,
all required, answering one text block. Contenders, each one connected pair set up once: rxmcp \`createServer().tool(...)\` with
the schema as JSON Schema, and again as \`z.object(...)\` (zod 4), served over \`createMemoryPair()\` to \`createClient().connect()\`,
called with \`callTool\`; the SDK's \`McpServer.registerTool\` with the same zod 4 shape (SDK 1.x accepts zod 4 as is) and
\`Client.callTool\` over \`InMemoryTransport.createLinkedPair()\`; the SDK 2.x the same way with its own packages
(\`z.object\` of that shape); tmcp's \`McpServer\` (\`@tmcp/adapter-zod\`, the same \`z.object\`) behind the rxmcp client as
described above; the floor. Each was checked to answer the echo and to reject
\`count: -1\` with \`isError\`. Warm-up ${fmt(warmup, 0)} calls each (sequential and windowed), then ${rounds} rounds × ${fmt(count, 0)} calls, contenders
interleaved, the order rotating each round; sequential = await each call; ${window} in flight = a window of ${window} concurrent
calls, refilled as each completes. CPU = \`process.cpuUsage()\` user+system delta / calls; medians over rounds; no forced gc.

CPU µs per call, per round:
${samplesLines.join('\n')}

**\`tools/list\` scaling** (one fresh child process per implementation): ${lr.tools} tools, each with its own 3-field schema
(descriptions differ). rxmcp: one \`createServer({ pageSize: ${lr.tools} })\` (so one \`tools/list\` returns all ${lr.tools} tools, as the SDK's
does; the default page size is 100) accepting ${sessionKeys.at(-1)} sessions; SDK: ${sessionKeys.at(-1)} \`McpServer\`s, each registering the same ${lr.tools}
\`z.object\` schemas (shared objects). Every session is driven by the same raw JSON-RPC client (handshake, then \`tools/list\`;
the response object taken as it arrives over the in-memory link, nothing encoded or parsed), so the figure is the
server's cost plus its transport. A real transport would add encoding the answer (${fmt(lr.answerBytes / 1024, 1)} KiB of JSON from rxmcp, ${fmt(ls.answerBytes / 1024, 1)} KiB from the SDK) on every call, for both.
Each configuration uses the first 1/100/… sessions and makes ${lr.callsPerSession} (rxmcp) / ${ls.callsPerSession} (SDK) rounds of one \`tools/list\`
per session, round robin, each awaited (the control: ${lr.pingCallsPerSession} rounds of one \`ping\` per session, the same way); a configuration too small
to fill a sample repeats that pass until the sample holds ${fmt(lr.minCalls, 0)} (rxmcp) / ${fmt(ls.minCalls, 0)} (SDK) \`tools/list\` or ${fmt(lr.minPingCalls, 0)} \`ping\` calls; configurations interleaved, rotating, ${lr.rounds} (rxmcp) / ${ls.rounds} (SDK) rounds; CPU per call =
\`process.cpuUsage()\` delta / calls, medians. Fewer calls for the SDK only because each of its calls costs milliseconds.

CPU µs per call, per round:
${listSamples.join('\n')}

CPU hotspots of \`tools/call\`: \`node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/tools-call.ts --profile=rxmcp --count=300000 --source-maps=.tmp/maps.json\`
(\`--window=64\` for the concurrent load), then \`npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile --maps=.tmp/maps.json --callers\`
(tsx emits each module on one line: without the maps every frame is \`:1\`; \`--callers\` charges \`__name\`/\`set natives\` to the repo function that paid).
`;
  const commands = [...calls.map((c) => rel(c.command)), rel(list.commands.rxmcp), rel(list.commands.sdk)];
  return { sections, commands };
}
