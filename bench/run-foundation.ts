/**
 * The foundation benchmark: ping round trips (CPU and throughput) and heap per idle server session, rxmcp
 * against the official SDK 1.x. Runs each benchmark in fresh child processes and writes bench/RESULTS.md.
 *
 *   npx tsx bench/run-foundation.ts [--rounds=7] [--count=20000] [--warmup=5000] [--n=10000] [--no-suite]
 *
 * A benchmark, not a test: it reports the figures against their targets and never fails on them.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type HeapResult, runHeapBench } from './idle-session-heap.ts';
import { argInt, fmt, hasFlag, repoRoot, runChild } from './lib.ts';
import type { ContenderName, PingResult } from './ping-roundtrip.ts';

const cpuTarget = 0.25;
const heapTargetBytes = 4 * 1024;

const rounds = argInt('rounds', 7);
const count = argInt('count', 20_000);
const warmup = argInt('warmup', 5_000);
const n = argInt('n', 10_000);
const suite = !hasFlag('no-suite');

const invocation = ['npx tsx bench/run-foundation.ts', ...process.argv.slice(2)].join(' ');
const startedAt = new Date();
const loadBefore = os.loadavg();

const pingArgs = [`--rounds=${rounds}`, `--count=${count}`, `--warmup=${warmup}`, ...(suite ? [] : ['--no-suite'])];
const pingRun = await runChild(['--import', 'tsx'], join(repoRoot, 'bench/ping-roundtrip.ts'), pingArgs);
const ping = pingRun.result as PingResult;
const heap: HeapResult = await runHeapBench(n);
const loadAfter = os.loadavg();

const verdict = (met: boolean): string => (met ? 'met' : '**missed**');
const kib = (bytes: number): string => `${fmt(bytes / 1024)} KiB (${fmt(bytes, 0)} B)`;
const rel = (command: string): string => command.replaceAll(`${repoRoot}/`, '').replace(process.execPath, 'node');

const rx = ping.figures.rxmcp;
const sdk = ping.figures.sdk;
const floor = ping.figures.floor;
const heapRx = heap.figures.rxmcp;
const heapSdk = heap.figures.sdk;
const cpu = os.cpus();

const rows: string[][] = [
  ['CPU per `ping` round trip (median)', `${fmt(rx.medianCpuUsPerRoundTrip)} µs`, `${fmt(sdk.medianCpuUsPerRoundTrip)} µs`, fmt(ping.cpuRatioRxmcpToSdk, 3),
    `≤ 1/4 of SDK (ratio ≤ ${cpuTarget}): ${verdict(ping.cpuRatioRxmcpToSdk <= cpuTarget)}`],
  ['`ping` round trips/s (median, wall clock)', fmt(rx.medianRoundTripsPerSec, 0), fmt(sdk.medianRoundTripsPerSec, 0),
    fmt(rx.medianRoundTripsPerSec / sdk.medianRoundTripsPerSec, 2), '—'],
  [`Heap per idle initialized server session (n=${fmt(n, 0)})`, kib(heapRx.heapBytesPerSession), kib(heapSdk.heapBytesPerSession), fmt(heap.heapRatioRxmcpToSdk, 3),
    `≤ 4 KiB: ${verdict(heapRx.heapBytesPerSession <= heapTargetBytes)}`],
  ['RSS per idle initialized server session', `${fmt(heapRx.rssBytesPerSession / 1024)} KiB`, `${fmt(heapSdk.rssBytesPerSession / 1024)} KiB`,
    fmt(heapRx.rssBytesPerSession / heapSdk.rssBytesPerSession, 3), '—'],
];

const table = (header: string[], body: string[][]): string =>
  [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');

const suiteSection = (): string => {
  if (ping.suite === undefined) return '_benchmark.js suite skipped (`--no-suite`)._';
  const names: ContenderName[] = ['rxmcp', 'sdk', 'floor'];
  const body = names.flatMap((name) => {
    const f = ping.suite?.figures[name];
    return f === undefined ? [] : [[f.label, `${fmt(f.hz)} ± ${fmt(f.rme)} %`, fmt(f.pingsPerSec, 0), String(f.samples)]];
  });
  return `benchmark.js \`Benchmark.Suite\`, deferred benchmarks of ${ping.suite.pingsPerCycle} sequential pings per op (wall clock):\n\n` +
    table(['contender', 'ops/s ± rme', 'pings/s', 'samples'], body);
};

const samplesLine = (name: ContenderName): string =>
  `- ${ping.figures[name].label}: ${ping.figures[name].samples.map((s) => `${fmt(s.cpuUsPerRoundTrip)} µs`).join(', ')}`;

const markdown = `# Foundation benchmark results

Produced by \`${invocation}\` (the owner may wire it as \`npm run bench\`; this command needs no npm script).

- Date: ${startedAt.toISOString()}
- Node: ${process.version} (${process.platform} ${process.arch}, V8 ${process.versions.v8})
- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${fmt(os.totalmem() / 1024 ** 3, 1)} GiB RAM
- Load average (1/5/15 min) before: ${loadBefore.map((l) => fmt(l)).join(' / ')}, after: ${loadAfter.map((l) => fmt(l)).join(' / ')}
  (a shared machine: wall-clock figures are noisier than CPU figures)

## Figures

${table(['figure', 'rxmcp', 'official SDK 1.x', 'ratio rxmcp/SDK', 'target'], rows)}

Floor (plain JSON-RPC ping echo between two objects over \`queueMicrotask\`, no parsing, no checks):
${fmt(floor.medianCpuUsPerRoundTrip)} µs CPU per round trip, ${fmt(floor.medianRoundTripsPerSec, 0)} round trips/s.
rxmcp costs ${fmt(rx.medianCpuUsPerRoundTrip / floor.medianCpuUsPerRoundTrip, 1)}× the floor, the SDK ${fmt(sdk.medianCpuUsPerRoundTrip / floor.medianCpuUsPerRoundTrip, 1)}×.

${suiteSection()}

## Method

**Ping round trips** (one process, \`${rel(pingRun.command)}\`): one connected client/server pair per contender,
set up once (rxmcp: \`createMemoryPair\` + \`createSessionAcceptor().accept\` + \`connectSession\`; SDK: \`InMemoryTransport.createLinkedPair\`
+ \`Server.connect\` + \`Client.connect\`). Warm-up ${fmt(warmup, 0)} pings each, then ${rounds} rounds × ${fmt(count, 0)} sequential pings
(await one, send the next), contenders interleaved with the order rotating each round. No forced gc between runs
(a forced full gc measurably slows the next ~20k round trips, far more than the young garbage one run leaves to the
next costs). CPU = \`process.cpuUsage()\` user+system delta / count (all threads of the process, GC helpers included);
figures are medians over rounds. Note the SDK's \`InMemoryTransport\` delivers synchronously inside \`send\`, rxmcp's and
the floor's links deliver on a later microtask.

CPU µs per round trip, per round:
${samplesLine('rxmcp')}
${samplesLine('sdk')}
${samplesLine('floor')}

**Heap per idle session** (one fresh child process per implementation):
- \`${rel(heap.commands.rxmcp)}\`
- \`${rel(heap.commands.sdk)}\`

In each child: ${heapRx.warmupSessions} warm-up sessions (kept, so one-time costs fall in the baseline), \`gc()\` twice, baseline
\`heapUsed\`/\`rss\`; then ${fmt(n, 0)} server sessions, each on its own in-memory transport end, driven through the handshake by
the same minimal raw client on the other end (\`initialize\` with protocolVersion 2025-11-25, await the response,
\`notifications/initialized\`); \`gc()\` twice; (after − baseline) / n. All sessions stay referenced until after the measurement,
and every one was checked to be initialized (rxmcp ${heapRx.initialized}/${n}, SDK ${heapSdk.initialized}/${n}).

The per-session figure includes the server session **plus its transport end plus the raw client's transport end**
(and the raw client's receive closure, identical for both). rxmcp shares one acceptor among all sessions; the SDK
needs one \`Server\` per transport, so its figure includes one \`Server\` each. Both get the same shared
\`serverInfo\`/\`capabilities\` objects; each handshake sends fresh message objects, as a decoding transport would.
`;

const file = join(repoRoot, 'bench/RESULTS.md');
writeFileSync(file, markdown);
console.log(`\nwrote ${file}`);
