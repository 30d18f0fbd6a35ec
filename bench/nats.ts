/**
 * The NATS benchmark part of bench/run.ts (`--only=nats`): `tools/call` over rxmcp's NATS binding
 * (bench/nats-calls.ts, one fresh child process, sources under tsx, with its own nats-server and server
 * processes), against raw nats.js request/reply floors; and its sections of bench/RESULTS.md. There is no official
 * NATS transport for MCP, so the floors are the only comparison.
 */
import os from 'node:os';
import { join } from 'node:path';
import type { Figures } from './harness.ts';
import { fmt, loaderArgs, repoRoot, runChild } from './lib.ts';
import { rel, table, verdict } from './markdown.ts';
import { revision } from './modern.ts';
import { type NatsCallsResult, type NatsLoad, type NatsSample, type ScaleFigure, type ScaleImpl, natsContenders, natsLabels, rxmcpContenders, scaleImpls, scaleLabels } from './nats-calls.ts';

/**
 * The targets at the highest load (issue 20, which raised the first NATS issue's 70 %): rxmcp at least this share of
 * the `nc.request` floor's calls/s, and at least `leanTarget` of the lean floor's.
 */
const floorTarget = 0.85;
const leanTarget = 0.5;

export interface NatsOptions {
  readonly rounds: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
  /** Calls in flight, comma-separated (1 = sequential). */
  readonly levels: string;
  /** Server process counts of the scale-out, comma-separated, or `none`. */
  readonly scale: string;
  readonly clients: number;
}

export interface NatsRun {
  readonly options: NatsOptions;
  readonly result: NatsCallsResult;
  readonly command: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly revision: string;
}

export async function measureNats(options: NatsOptions): Promise<NatsRun> {
  console.log('\n=== NATS: tools/call over the NATS binding against raw nats.js floors, sources loaded with tsx ===');
  const loadBefore = os.loadavg();
  const measured = revision();
  const run = await runChild(loaderArgs('tsx'), join(repoRoot, 'bench/nats-calls.ts'), [
    `--rounds=${options.rounds}`, `--sample-ms=${options.sampleMs}`, `--warmup-ms=${options.warmupMs}`, `--levels=${options.levels}`,
    `--scale=${options.scale}`, `--clients=${options.clients}`,
  ]);
  return { options, result: run.result as NatsCallsResult, command: run.command, loadBefore, loadAfter: os.loadavg(), revision: measured };
}

const title = (width: number): string => (width <= 1 ? 'sequential' : `${width} in flight`);
const us = (value: number | undefined): string => fmt(value ?? Number.NaN, 1);
const pct = (value: number): string => `${fmt(100 * value, 1)} %`;
const ops = (l: NatsLoad, name: string): number => l.figures[name]?.medianOpsPerSec ?? Number.NaN;
const cpu = (l: NatsLoad, name: string): string =>
  `${us(l.figures[name]?.medianCpuUsPerOp)} + ${us(l.serverCpuUsPerCall[name])} + ${us(l.natsCpuUsPerCall[name])}`;

function callsTable(loads: readonly NatsLoad[]): string {
  const header = ['contender', ...loads.flatMap((l) => [`calls/s, ${title(l.width)}`, 'of floor', 'of lean floor']), ...loads.map((l) => `CPU µs/call client + server + nats-server, ${title(l.width)}`)];
  const rows = natsContenders.map((name) => [
    natsLabels[name],
    ...loads.flatMap((l) => [fmt(ops(l, name), 0), pct(ops(l, name) / ops(l, 'floor')), pct(ops(l, name) / ops(l, 'floorLean'))]),
    ...loads.map((l) => cpu(l, name)),
  ]);
  return table(header, rows);
}

function wireTable(result: NatsCallsResult): string {
  const rows = natsContenders.map((name) => {
    const w = result.wire[name];
    if (w === undefined) return [natsLabels[name], '?', '?', '?', '?', '?'];
    const subject = w.requestSubject.replace(/\.s\.[A-Za-z0-9_-]+$/, '.s.<session id>');
    return [natsLabels[name], `\`${subject}\``, `${w.requestBytes} B + ${w.requestHeaderBytes} B`, `${w.answerBytes} B + ${w.answerHeaderBytes} B`, w.requestContentType, w.answerContentType];
  });
  return table(['contender', 'request subject', 'request: body + headers', 'answer: body + headers', 'request Content-Type', 'answer Content-Type'], rows);
}

function scaleTable(result: NatsCallsResult): string {
  const counts = result.scaleCounts;
  const at = (impl: ScaleImpl, n: number): ScaleFigure | undefined => result.scale.find((s) => s.impl === impl && s.processes === n);
  const rate = (impl: ScaleImpl, n: number): number => at(impl, n)?.figures.medianOpsPerSec ?? Number.NaN;
  const rows = counts.map((n) => {
    const rx = at('rxmcp', n);
    return [
      `${n}`,
      fmt(rate('rxmcp', n), 0),
      fmt(rate('floor', n), 0),
      fmt(rate('floorLean', n), 0),
      pct(rate('rxmcp', n) / rate('floor', n)),
      pct(rate('rxmcp', n) / rate('floorLean', n)),
      `${fmt(rate('rxmcp', n) / rate('rxmcp', counts[0] ?? 1))}×`,
      rx === undefined ? '?' : `${us(rx.figures.medianCpuUsPerOp)} + ${us(rx.serverCpuUsPerCall)} + ${us(rx.natsCpuUsPerCall)}`,
      rx === undefined ? '?' : rx.perProcessCpuUsPerCall.slice(0, n).map((v) => us(v)).join(' / '),
    ];
  });
  return table(['server processes', `${scaleLabels.rxmcp} calls/s`, `${scaleLabels.floor} calls/s`, `${scaleLabels.floorLean} calls/s`, 'rxmcp of floor', 'rxmcp of lean floor',
    `rxmcp vs ${counts[0] ?? 1} process`, 'rxmcp CPU µs/call client + servers + nats-server', 'rxmcp server CPU µs/call per process'], rows);
}

function sampleLines(result: NatsCallsResult): string[] {
  const lines = result.loads.flatMap((l) => natsContenders.map((name) => {
    const f = l.figures[name] as Figures | undefined;
    const samples = (f?.samples ?? []) as readonly NatsSample[];
    return `- ${title(l.width)}, ${natsLabels[name]} (${samples.map((s) => fmt(s.calls, 0)).join(', ')} calls): calls/s ${samples.map((s) => fmt(s.opsPerSec, 0)).join(', ')}; ` +
      `client CPU µs ${samples.map((s) => fmt(s.cpuUsPerOp, 1)).join(', ')}; server CPU µs ${samples.map((s) => fmt(s.serverCpuUsPerOp, 1)).join(', ')}`;
  }));
  const scale = scaleImpls.flatMap((impl) => result.scale.filter((s) => s.impl === impl).map((s) => {
    const samples = s.figures.samples as readonly NatsSample[];
    return `- scale-out, ${s.figures.label} (${samples.map((x) => fmt(x.calls, 0)).join(', ')} calls): calls/s ${samples.map((x) => fmt(x.opsPerSec, 0)).join(', ')}; ` +
      `server CPU µs per process (median) ${s.perProcessCpuUsPerCall.map((v) => us(v)).join(' / ')}`;
  }));
  return [...lines, ...scale];
}

export function natsMarkdown({ result, command, loadBefore, loadAfter, revision: measured }: NatsRun): { sections: string; commands: string[] } {
  const top = result.loads.reduce<NatsLoad | undefined>((best, l) => (best === undefined || l.width > best.width ? l : best), undefined);
  const targetRows = top === undefined ? [] : rxmcpContenders.map((name) => {
    const share = ops(top, name) / ops(top, 'floor');
    const lean = ops(top, name) / ops(top, 'floorLean');
    return [`${natsLabels[name]} ≥ ${pct(floorTarget)} of the floor's calls/s at ${title(top.width)}`, `${pct(share)} (${fmt(ops(top, name), 0)} vs ${fmt(ops(top, 'floor'), 0)} calls/s)`,
      verdict(share >= floorTarget), `${pct(lean)} (${fmt(ops(top, name), 0)} vs ${fmt(ops(top, 'floorLean'), 0)} calls/s)`, verdict(lean >= leanTarget)];
  });
  const failed = Object.entries(result.failures).map(([name, f]) => `${name}: ${fmt(f.count, 0)} (first: ${f.first})`);
  const eras = Object.entries(result.eras).map(([name, era]) => `${name}: ${era}`).join('; ');
  const load = (values: readonly number[]): string => values.map((v) => fmt(v)).join(' / ');
  const cores = os.cpus().length;
  const scaleCounts = result.scaleCounts;

  const sections = `## NATS: \`tools/call\` over the NATS binding

Command: \`${rel(command)}\` (run by \`npx tsx bench/run.ts --only=nats\`; ${fmt(result.seconds / 60, 1)} min;
load average 1/5/15 min before ${load(loadBefore)}, after ${load(loadAfter)} on ${cores} cores; rxmcp at ${measured}; ${result.natsServer}, ${result.nats}).
There is no official NATS transport for MCP (the official SDKs speak stdio and Streamable HTTP), so there is no SDK to compare with:
the comparison is the raw nats.js request/reply floor, measured in the same run against the same nats-server.
**Machine: ${cores} cores shared by everything measured**: nats-server, the server process(es) and the client process
(and whatever else runs on the machine) compete for them, so the figures are throughput of the whole chain on ${cores} cores, not of one side.

One server process, one client connection per contender:

${callsTable(result.loads)}

Targets (from the issue; at the highest load measured): at least ${pct(floorTarget)} of the \`nc.request\` floor's calls/s, and at
least ${pct(leanTarget)} of the lean floor's:

${table(['target', 'measured', 'verdict', `lean floor ≥ ${pct(leanTarget)}: measured`, 'verdict'], targetRows)}

What one call puts on the wire (captured by a third connection subscribed to the subjects):

${wireTable(result)}
${scaleCounts.length === 0 ? '' : `
Scale-out: ${scaleCounts.join(', ')} server processes in one queue group (each \`serveNats\` for the same name on its own connection),
${result.clients} client connections × ${result.scaleWidth} in flight (modern era, JSON; all clients in one process), against the floors with the same process counts and load:

${scaleTable(result)}
`}
Era checks: ${eras}.
Failed calls (an error instead of the echo; counted, the run goes on): ${failed.length === 0 ? 'none' : failed.join('; ')}.

## NATS method

One process, \`bench/nats-calls.ts\` (sources under tsx): it starts its own \`nats-server\` the way the specs do
(\`startNatsServer()\` from specs/support/nats-server.ts: 127.0.0.1, a free port, JetStream in a temporary directory;
disposed at the end), ${Math.max(1, ...scaleCounts)} rxmcp server processes and as many floor processes (\`bench/nats-programs.ts\`, each with
its own NATS connection), and the clients in itself, each contender on its own NATS connection.
- rxmcp server: \`createServer()\` (both eras) with the echo tool of the other benchmarks (\`{ text, count, upper }\`, JSON
  Schema), served by \`serveNats(server, { connection, name })\` (defaults: JetStream KV session records for the legacy
  era, msgpack answers to clients that ask). rxmcp clients: \`createClient({ era }).connect(createNatsClientTransport({
  connection, name, encoding }))\`, \`session.callTool('echo', args)\`; each checked to answer the echo and reject
  \`count: -1\`; legacy: \`initialize\` on the call subject, then every call on the session subject; modern: every call
  on \`mcp.<name>.call.tools.call\` with its lane; msgpack: \`encoding: 'msgpack'\` (the wire table shows both directions
  in msgpack once negotiated).
- floor (the issue's): the floor process subscribes \`nc.subscribe(subject, { queue, callback: (err, m) => m.respond(m.data) })\`,
  the client calls \`nc.request(subject, body)\` (connection options at their defaults). \`body\` is the exact bytes
  of a real rxmcp \`tools/call\` request captured from the wire (the ${result.floorBody} one, the largest JSON request, so the
  floor's answer is as large as its request: larger than rxmcp's answers). No headers, no decoding, no checks.
- lean floor (a reference added here): \`nc.request\` is not the cheapest way to do request/reply in nats.js: per
  request it makes a timeout timer and up to three \`Error\` objects (an async-trace \`new Error()\`, the timeout's
  \`NatsError\`, and a \`Cancelled\` \`NatsError\` built even after the answer arrived), which costs its client more CPU
  than rxmcp's whole legacy-era client. The lean floor does what rxmcp's client transport does: one wildcard
  subscription on the connection's own inbox, each request published with reply subject \`<inbox>.<token>\`, answers
  matched by token; same floor process, same body.
- scale-out: the same processes; before each sample the processes not wanted leave the queue group
  (\`serving.close('end')\` / unsubscribe) and the wanted ones (re)join (\`serveNats\` / subscribe), then 150 ms of load
  outside the sample. ${result.clients} clients × ${result.scaleWidth} in flight all run in the bench process (one event loop, so at most one core
  for all clients), next to nats-server and the server processes on the same ${cores} cores: past ${cores} busy processes an added server
  process finds no idle core, and the table shows what it still brings (or costs).

Loop: warm-up (${fmt(result.warmupMs, 0)} ms each: two thirds 64 in flight, one third sequential); then per load (calls in flight:
${result.levels.join(', ')}; 1 = await each call) a 300 ms calibration per contender that fixes its batch (the calls it makes in about
a quarter of a sample), then ${result.rounds} rounds, contenders interleaved, the order rotating each round; a sample runs batches for
${fmt(result.sampleMs, 0)} ms (time-boxed: a calibration taken while the machine was busier than later cannot make a sample far too short). Figures are medians
over rounds: calls/s (wall clock), CPU per call of this process (\`process.cpuUsage()\`, the clients), of the server
process(es) and of nats-server (\`/proc/<pid>/stat\` utime+stime, 10 ms ticks). Compare contenders within a run, not across runs.

Per round (calls/s; CPU µs per call, client then server):
${sampleLines(result).join('\n')}

CPU hotspots: \`node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/nats-calls.ts --profile=modernJson --window=64 --server-prof --source-maps=.tmp/nats-maps.json\`
(or \`--profile=legacyJson\`, \`modernMsgpack\`, \`floor\`, ...), then \`npx tsx bench/cpuprofile-top.ts .tmp/<file>.cpuprofile --maps=.tmp/nats-maps.json --under=transports/nats\`
(the server's profile with \`--maps=.tmp/nats-maps.server.json\`). The profiles sample wall time: on ${cores} busy cores a process
descheduled inside a socket write shows the time in \`writeBuffer\`.
`;
  return { sections, commands: [rel(command)] };
}
