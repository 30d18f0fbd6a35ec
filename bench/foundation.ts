/**
 * The foundation benchmark: ping round trips (CPU and throughput) and heap per idle server session, rxmcp
 * against the official SDK 1.x, each in fresh child processes; and its sections of bench/RESULTS.md.
 * Run by bench/run.ts.
 *
 * The headline figures run the sources under tsx, as the project runs them. Unless `--no-strip`, each is
 * measured again with types stripped and nothing else (bench/strip-types.mjs): tsx compiles with esbuild's
 * `keepNames`, which renames every named closure with Object.defineProperty, a cost compiled JS does not pay.
 */
import { join } from 'node:path';
import { type HeapResult, type Impl as HeapImpl, heapImpls, runHeapBench } from './idle-session-heap.ts';
import { type Loader, fmt, loaderArgs, repoRoot, runChild } from './lib.ts';
import { rel, table, tag, verdict } from './markdown.ts';
import type { ContenderName, PingResult } from './ping-roundtrip.ts';

const cpuTarget = 0.25;
const heapTargetBytes = 4 * 1024;

export interface FoundationOptions {
  readonly rounds: number;
  readonly count: number;
  readonly warmup: number;
  readonly n: number;
  readonly suite: boolean;
  readonly loaders: readonly Loader[];
}

interface Measured {
  readonly loader: Loader;
  readonly ping: PingResult;
  readonly pingCommand: string;
  readonly heap: HeapResult;
}

export interface FoundationRun {
  readonly options: FoundationOptions;
  readonly measured: readonly Measured[];
}

export async function measureFoundation(options: FoundationOptions): Promise<FoundationRun> {
  const measured: Measured[] = [];
  for (const loader of options.loaders) {
    console.log(`\n=== foundation, sources loaded with ${loader === 'tsx' ? 'tsx (as the project runs)' : 'types stripped only (no keepNames)'} ===`);
    // The suite runs once, under tsx: it duplicates the interleaved figures in benchmark.js form.
    const { rounds, count, warmup, suite, n } = options;
    const pingArgs = [`--rounds=${rounds}`, `--count=${count}`, `--warmup=${warmup}`, ...(suite && loader === 'tsx' ? [] : ['--no-suite'])];
    const pingRun = await runChild(loaderArgs(loader), join(repoRoot, 'bench/ping-roundtrip.ts'), pingArgs);
    const heap = await runHeapBench(n, loader);
    measured.push({ loader, ping: pingRun.result as PingResult, pingCommand: pingRun.command, heap });
  }
  return { options, measured };
}

const kib = (bytes: number): string => `${fmt(bytes / 1024)} KiB (${fmt(bytes, 0)} B)`;

/** The foundation's sections of RESULTS.md (figures, method) and its command lines. */
export function foundationMarkdown({ options, measured }: FoundationRun): { sections: string; commands: string[] } {
  const { rounds, count, warmup, n } = options;
  const rows: string[][] = [];
  for (const { loader, ping } of measured) {
    const [rx, sdk] = [ping.figures.rxmcp, ping.figures.sdk];
    rows.push(
      [`CPU per \`ping\` round trip, median (${tag(loader)})`, `${fmt(rx.medianCpuUsPerRoundTrip)} µs`, `${fmt(sdk.medianCpuUsPerRoundTrip)} µs`,
        fmt(ping.cpuRatioRxmcpToSdk, 3), `≤ 1/4 of SDK (ratio ≤ ${cpuTarget}): ${verdict(ping.cpuRatioRxmcpToSdk <= cpuTarget)}`],
      [`\`ping\` round trips/s, median wall clock (${tag(loader)})`, fmt(rx.medianRoundTripsPerSec, 0), fmt(sdk.medianRoundTripsPerSec, 0),
        fmt(rx.medianRoundTripsPerSec / sdk.medianRoundTripsPerSec, 2), '—'],
    );
  }
  for (const { loader, heap } of measured) {
    const [rx, sdk] = [heap.figures.rxmcp, heap.figures.sdk];
    rows.push(
      [`Heap per idle initialized server session, n=${fmt(n, 0)} (${tag(loader)})`, kib(rx.heapBytesPerSession), kib(sdk.heapBytesPerSession),
        fmt(heap.heapRatioRxmcpToSdk, 3), `≤ 4 KiB: ${verdict(rx.heapBytesPerSession <= heapTargetBytes)}`],
      [`RSS per idle initialized server session (${tag(loader)})`, `${fmt(rx.rssBytesPerSession / 1024)} KiB`, `${fmt(sdk.rssBytesPerSession / 1024)} KiB`,
        fmt(rx.rssBytesPerSession / sdk.rssBytesPerSession, 3), '—'],
    );
  }

  const floorLines = measured.map(({ loader, ping }) => {
    const { rxmcp: rx, sdk, floor } = ping.figures;
    return `- ${tag(loader)}: floor ${fmt(floor.medianCpuUsPerRoundTrip)} µs CPU per round trip, ${fmt(floor.medianRoundTripsPerSec, 0)} round trips/s; ` +
      `rxmcp costs ${fmt(rx.medianCpuUsPerRoundTrip / floor.medianCpuUsPerRoundTrip, 1)}× the floor, the SDK ${fmt(sdk.medianCpuUsPerRoundTrip / floor.medianCpuUsPerRoundTrip, 1)}×.`;
  });

  const primary = measured[0] as Measured;
  const suiteSection = (): string => {
    const ran = primary.ping.suite;
    if (ran === undefined) return '_benchmark.js suite skipped (`--no-suite`)._';
    const names: ContenderName[] = ['rxmcp', 'sdk', 'floor'];
    const body = names.flatMap((name) => {
      const f = ran.figures[name];
      return f === undefined ? [] : [[f.label, `${fmt(f.hz)} ± ${fmt(f.rme)} %`, fmt(f.pingsPerSec, 0), String(f.samples)]];
    });
    return `benchmark.js \`Benchmark.Suite\` (tsx), deferred benchmarks of ${ran.pingsPerCycle} sequential pings per op (wall clock):\n\n` +
      table(['contender', 'ops/s ± rme', 'pings/s', 'samples'], body);
  };

  const samplesLines = measured.flatMap(({ loader, ping }) =>
    (['rxmcp', 'sdk', 'floor'] as const).map((name) =>
      `- ${tag(loader)}, ${ping.figures[name].label}: ${ping.figures[name].samples.map((s) => fmt(s.cpuUsPerRoundTrip)).join(', ')}`));

  const commands = measured.flatMap(({ pingCommand, heap }) => [pingCommand, ...heapImpls.map((impl) => heap.commands[impl])].map(rel));
  const heapLabels: Record<HeapImpl, string> = {
    rxmcp: 'rxmcp (one acceptor, session per transport)',
    sdk: 'official SDK 1.x (`Server` per transport)',
    sdk2: 'official SDK 2.x (`Server` per transport, legacy era)',
  };
  const heapRows = measured.flatMap(({ loader, heap }) => heapImpls.map((impl) => {
    const f = heap.figures[impl];
    return [`${heapLabels[impl]} (${tag(loader)})`, kib(f.heapBytesPerSession), `${fmt(f.rssBytesPerSession / 1024)} KiB`,
      `${fmt(f.heapBytesPerSession / heap.figures.rxmcp.heapBytesPerSession, 2)}×`, `${f.initialized}/${n}`];
  }));
  const heapRx = primary.heap.figures.rxmcp;
  const heapSdk = primary.heap.figures.sdk;

  const sections = `## Foundation figures

${table(['figure', 'rxmcp', 'official SDK 1.x', 'ratio rxmcp/SDK', 'target'], rows)}

"tsx" rows run the sources the way the project runs them (\`--import tsx\`). tsx compiles with esbuild's \`keepNames\`,
which wraps every named closure (arrow functions in object literals, class fields, variables) in
\`Object.defineProperty(fn, 'name', …)\`: that costs CPU each time such a closure is created, and gives each one a
dictionary-mode property store (~250 B). The SDK's JavaScript in node_modules is not transformed, so only rxmcp pays.
${options.loaders.includes('strip') ? '"types stripped" rows load the same sources through `bench/strip-types.mjs` (esbuild, types stripped, no `keepNames`), as compiled JS or Node\'s own type stripping would run them.' : ''}

Heap per idle initialized server session, side by side (n=${fmt(n, 0)}; "× rxmcp" = heap per session over rxmcp's):

${table(['server', 'heap per idle session', 'RSS per idle session', '× rxmcp (heap)', 'sessions initialized'], heapRows)}

The official SDK 2.x is measured the SDK 1.x way with its own packages: a low-level \`Server\` from \`@modelcontextprotocol/server\`
per session on its own \`InMemoryTransport\`, driven through the same 2025-11-25 handshake (it serves the legacy era the
handshake asks for). tmcp is not in this figure: its \`McpServer\` keeps no per-connection state (its transports do:
stdio one per process; HTTP a session manager, measured under "memory per idle HTTP session") and it ships no in-memory
transport, so a figure here would measure only a link written for the benchmark.

Floor: a plain JSON-RPC ping echo between two objects over \`queueMicrotask\` (no parsing, no checks):
${floorLines.join('\n')}

${suiteSection()}

## Foundation method

**Ping round trips** (one process per loader): one connected client/server pair per contender, set up once
(rxmcp: \`createMemoryPair\` + \`createSessionAcceptor().accept\` + \`connectSession\`; SDK: \`InMemoryTransport.createLinkedPair\` +
\`Server.connect\` + \`Client.connect\`). Warm-up ${fmt(warmup, 0)} pings each, then ${rounds} rounds × ${fmt(count, 0)} sequential pings
(await one, send the next), contenders interleaved, the order rotating each round. CPU = \`process.cpuUsage()\`
user+system delta / count (all threads, GC helpers included); figures are medians over rounds. No forced gc between runs:
a forced full gc measurably slowed the next ~20k round trips (2–4× for the floor), far more than the young garbage one
run leaves to the next. The SDK's \`InMemoryTransport\` delivers synchronously inside \`send\`; rxmcp's link and the floor's
deliver on a later microtask.

CPU µs per round trip, per round:
${samplesLines.join('\n')}

**Heap per idle session** (one fresh child process per implementation and loader). In each child:
${heapRx.warmupSessions} warm-up sessions (kept, so one-time costs fall in the baseline), \`gc()\` twice, baseline \`heapUsed\`/\`rss\`;
then ${fmt(n, 0)} server sessions, each on its own in-memory transport end, driven through the handshake by the same minimal
raw client on the other end (\`initialize\` with protocolVersion 2025-11-25, await the response, \`notifications/initialized\`);
\`gc()\` twice; (after − baseline) / n. All sessions stay referenced until after the measurement, and each was checked
to be initialized (tsx run: rxmcp ${heapRx.initialized}/${n}, SDK ${heapSdk.initialized}/${n}).

The per-session figure includes the server session **plus its transport end plus the raw client's transport end**
(and the raw client's receive closure, the same for both). rxmcp shares one acceptor among all sessions; the SDK needs
one \`Server\` per transport, so its figure includes a \`Server\` each. Both get the same shared \`serverInfo\`/\`capabilities\`
objects; each handshake sends fresh message objects, as a decoding transport would.

Where rxmcp's session heap goes: \`npx tsx bench/session-heap-breakdown.ts [--loader=strip]\`. CPU hotspots:
\`node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/ping-roundtrip.ts --profile=rxmcp --count=1000000\`, then
\`npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile\`.
`;
  return { sections, commands };
}
