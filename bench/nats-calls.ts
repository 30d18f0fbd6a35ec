/**
 * `tools/call` over NATS: rxmcp's NATS binding (`createNatsClientTransport` to `serveNats`) against the raw nats.js
 * request/reply echo as the floor, all in one run. There is no official NATS transport for MCP, so the floor is
 * the only comparison. A benchmark, not a test: it reports, it never fails on a figure.
 *
 *   node --import tsx bench/nats-calls.ts [--rounds=5] [--sample-ms=1000] [--warmup-ms=1500] [--levels=1,64]
 *        [--scale=1,2,3] [--clients=4] [--scale-width=64] [--contenders=legacyJson,modernJson,floorLean]
 *        (--contenders: which part-1 contenders are measured, default all; all are still set up and checked)
 *   node --cpu-prof --cpu-prof-dir=.tmp --import tsx bench/nats-calls.ts --profile=modernJson [--window=64]
 *        [--seconds=10] [--server-prof] [--source-maps=.tmp/nats-maps.json]
 *        (profiles this process, the client; --server-prof the server child too, whose source maps go to
 *        <maps>.server.json)
 *
 * Its own `nats-server` (specs/support/nats-server.ts: 127.0.0.1, a free port, JetStream), stopped at the end.
 * Server processes (bench/nats-programs.ts), each with its own NATS connection: up to `--scale` rxmcp processes
 * serving the same name (`createServer()` + `serveNats`: one queue group) and as many floor processes (a queue
 * subscription answering `m.respond(m.data)`); the first of each serves throughout, the others only while the
 * scale-out figure needs them.
 *
 * Part 1, one server process, one client connection per contender (all up for the whole part): rxmcp
 * `createClient({ era }).connect(createNatsClientTransport({ connection, name, encoding }))` in the legacy era
 * (`initialize`, then a session subject) and the modern era (2026-07-28, every request on the call subject with
 * its lane), JSON and msgpack bodies; the floor: `nc.request(subject, body)` with `body` the bytes of a real
 * rxmcp `tools/call` request (captured from the wire, see `wire`). Per load (`--levels`, calls in flight; 1 =
 * await each call) a short calibration fixes each contender's batch (calls for about a quarter of `--sample-ms`);
 * then `--rounds` rounds, contenders interleaved, the order rotating each round, each sample running batches for
 * `--sample-ms`.
 *
 * Part 2, scale-out: 1, 2, 3 (`--scale`) server processes behind one queue group, `--clients` client connections
 * (modern era, JSON; one rxmcp client session each) with `--scale-width` calls in flight each, against the floor
 * with the same process counts and load. Interleaved rounds as in part 1; before each sample the processes not
 * wanted leave the queue group (`serving.close('end')` / unsubscribe) or join it (`serveNats` / subscribe).
 *
 * Figures: medians of calls/s (wall clock), CPU µs per call in this process (the clients), in the server
 * processes and in nats-server (both from /proc/<pid>/stat, 10 ms ticks). Everything shares the machine's cores.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Msg, type MsgHdrs, type NatsConnection, connect, createInbox } from '@nats-io/transport-node';
import { createClient, type JsonObject } from '../index.ts';
import { type NatsServerProcess, startNatsServer } from '../specs/support/nats-server.ts';
import { createNatsClientTransport } from '../transports/nats/index.ts';
import { type Figures, type Op, type Sample, interleave, sequential, windowed } from './harness.ts';
import { argInt, argValue, emitResult, fmt, hasFlag, isMain, loaderArgs, median, repoRoot } from './lib.ts';
import { dumpSourceMaps } from './source-maps.ts';
import { Program, processCpuUs } from './transport-lib.ts';
import { callArgs, checkEcho, clientInfo } from './echo-tool.ts';

export type NatsContender = 'legacyJson' | 'legacyMsgpack' | 'modernJson' | 'modernMsgpack' | 'floor' | 'floorLean';
export const natsContenders: readonly NatsContender[] = ['legacyJson', 'legacyMsgpack', 'modernJson', 'modernMsgpack', 'floor', 'floorLean'];
export const natsLabels: Record<NatsContender, string> = {
  legacyJson: "rxmcp, era 'legacy', JSON",
  legacyMsgpack: "rxmcp, era 'legacy', msgpack",
  modernJson: "rxmcp, era 'modern', JSON",
  modernMsgpack: "rxmcp, era 'modern', msgpack",
  floor: 'raw floor: nc.request echo',
  floorLean: 'lean floor: publish + one inbox subscription',
};
export const isFloor = (name: string): boolean => name.startsWith('floor');
export const rxmcpContenders = natsContenders.filter((c) => !isFloor(c));

const NAME = 'bench';
const FLOOR_SUBJECT = 'bench.floor.echo';
const programScript = join(repoRoot, 'bench/nats-programs.ts');

/** Calls answered by an error instead of the echo, per contender, with the first error: counted, the run goes on. */
export type NatsFailures = Record<string, { count: number; first: string }>;
const failures: NatsFailures = {};
const counted = (name: string, call: () => Promise<unknown>): (() => Promise<unknown>) => {
  const failed = (error: unknown): void => {
    const entry = (failures[name] ??= { count: 0, first: error instanceof Error ? error.message : String(error) });
    if (entry.count++ === 0) console.error(`  ${name}: a call failed (counted; later failures not shown): ${entry.first}`);
  };
  return () => call().catch(failed);
};

/** One server process of bench/nats-programs.ts, and whether it is in the queue group now. */
class ServerProcess {
  serving: boolean;
  private constructor(readonly program: Program, serving: boolean) {
    this.serving = serving;
  }

  static async start(url: string, impl: 'rxmcp' | 'floor', serve: boolean, nodeArgs: readonly string[] = [], extra: readonly string[] = []): Promise<ServerProcess> {
    const args = [...nodeArgs, ...loaderArgs('tsx'), programScript, `--url=${url}`, `--impl=${impl}`, `--name=${NAME}`, `--subject=${FLOOR_SUBJECT}`, ...(serve ? ['--serve'] : []), ...extra];
    const program = new Program(spawn(process.execPath, args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
    const ready = await program.ready;
    return new ServerProcess(program, ready['serving'] === true);
  }

  get pid(): number {
    return this.program.pid;
  }

  async set(serving: boolean): Promise<void> {
    if (serving === this.serving) return;
    const answer = await this.program.command(serving ? 'serve' : 'pause');
    this.serving = answer['serving'] === true;
  }
}

/** Makes the first `count` processes serve and the rest leave the queue group. */
async function activate(processes: readonly ServerProcess[], count: number): Promise<void> {
  await Promise.all(processes.map((p, i) => p.set(i < count)));
}

interface Contender extends Op {
  /** What was checked about the era and the body encoding actually spoken. */
  readonly era: string;
  close(): Promise<void>;
}

type CallResult = { content?: unknown; isError?: unknown; resultType?: unknown };

async function rxmcpContender(url: string, name: NatsContender): Promise<Contender> {
  const era = name.startsWith('legacy') ? 'legacy' : 'modern';
  const encoding = name.endsWith('Msgpack') ? 'msgpack' : 'json';
  const nc = await connect({ servers: url, name: `bench-client-${name}` });
  const transport = createNatsClientTransport({ connection: nc, name: NAME, encoding });
  const client = await createClient({ ...clientInfo, era }).connect(transport);
  const call = (a: object): Promise<CallResult> => client.callTool('echo', a as JsonObject) as Promise<CallResult>;
  await checkEcho(name, call);
  let checked: string;
  if (era === 'modern') {
    const result = await call(callArgs);
    if (result.resultType !== 'complete') throw new Error(`${name}: not a 2026-07-28 result (resultType ${JSON.stringify(result.resultType)})`);
    checked = "era 'modern' (results carry resultType)";
  } else {
    if (transport.sessionId === undefined) throw new Error(`${name}: the legacy client holds no NATS session`);
    checked = "era 'legacy' (a session subject)";
  }
  return {
    name,
    label: natsLabels[name],
    era: checked,
    run: counted(name, () => client.callTool('echo', callArgs)),
    close: async () => {
      await client.close();
      await nc.close();
    },
  };
}

/** The floor as nats.js users write it: `nc.request(subject, body)` (connection options left at their defaults). */
async function floorContender(url: string, body: Uint8Array, name = 'floor'): Promise<Contender> {
  const nc = await connect({ servers: url, name: `bench-client-${name}` });
  const answer = await nc.request(FLOOR_SUBJECT, body, { timeout: 10_000 });
  if (Buffer.compare(Buffer.from(answer.data), Buffer.from(body)) !== 0) throw new Error(`${name}: the echo answered other bytes`);
  return {
    name,
    label: natsLabels.floor,
    era: 'none (nc.request, no headers)',
    run: counted(name, () => nc.request(FLOOR_SUBJECT, body, { timeout: 30_000 })),
    close: () => nc.close(),
  };
}

/**
 * A leaner floor, the request/reply pattern rxmcp's client itself uses: one wildcard subscription on the
 * connection's own inbox, each request published with a reply subject `<inbox>.<token>`, answers matched by token
 * (no timer, no error object, no headers, no decoding).
 */
async function leanFloorContender(url: string, body: Uint8Array, name = 'floorLean'): Promise<Contender> {
  const nc = await connect({ servers: url, name: `bench-client-${name}` });
  const prefix = `${createInbox()}.`;
  const pending = new Map<string, (m: Msg) => void>();
  let next = 0;
  nc.subscribe(`${prefix}*`, {
    callback: (error, m) => {
      if (error !== null) return;
      const token = m.subject.slice(prefix.length);
      const resolve = pending.get(token);
      pending.delete(token);
      resolve?.(m);
    },
  });
  const request = (): Promise<Msg> => new Promise((resolve) => {
    const token = String(next++);
    pending.set(token, resolve);
    nc.publish(FLOOR_SUBJECT, body, { reply: prefix + token });
  });
  const answer = await request();
  if (Buffer.compare(Buffer.from(answer.data), Buffer.from(body)) !== 0) throw new Error(`${name}: the echo answered other bytes`);
  return { name, label: natsLabels.floorLean, era: 'none (publish + inbox subscription, no headers)', run: request, close: () => nc.close() };
}

/** What one call looks like on the wire: sizes of the request and answer bodies and headers, and their encodings. */
export interface WireCall {
  readonly requestSubject: string;
  readonly requestBytes: number;
  readonly requestHeaderBytes: number;
  readonly requestContentType: string;
  readonly answerBytes: number;
  readonly answerHeaderBytes: number;
  readonly answerContentType: string;
}

interface Seen {
  readonly subject: string;
  readonly reply: string;
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
}

/** Header block size as NATS sends it: `NATS/1.0\r\n`, a `Name: value\r\n` line per value, `\r\n`. */
function headerBytes(headers: MsgHdrs | undefined): number {
  if (headers === undefined) return 0;
  let bytes = 'NATS/1.0\r\n\r\n'.length;
  for (const [key, values] of headers) for (const value of values) bytes += Buffer.byteLength(`${key}: ${value}\r\n`);
  return bytes;
}

const contentType = (headers: MsgHdrs | undefined): string => {
  const value = headers?.get('Content-Type');
  return value === undefined || value === '' ? 'none (JSON)' : value;
};

/**
 * Watches the wire through its own connection while `call` runs once; returns the last request matching
 * `isRequest` whose answer (a message to its reply subject) was seen, with the request's body bytes.
 */
async function sniff(sniffer: NatsConnection, isRequest: (subject: string) => boolean, call: () => Promise<unknown>): Promise<{ wire: WireCall; body: Uint8Array }> {
  const seen: Seen[] = [];
  const keep = (error: Error | null, m: Msg): void => {
    if (error === null) seen.push({ subject: m.subject, reply: m.reply ?? '', data: new Uint8Array(m.data), headers: m.headers });
  };
  const subscriptions = ['mcp.>', '_INBOX.>', 'bench.>'].map((subject) => sniffer.subscribe(subject, { callback: keep }));
  await sniffer.flush();
  await call();
  await sniffer.flush();
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const s of subscriptions) s.unsubscribe();
  for (let i = seen.length - 1; i >= 0; i--) {
    const request = seen[i] as Seen;
    if (!isRequest(request.subject) || request.reply === '' || request.data.byteLength === 0) continue;
    const answer = seen.find((m) => m.subject === request.reply);
    if (answer === undefined) continue;
    return {
      body: request.data,
      wire: {
        requestSubject: request.subject,
        requestBytes: request.data.byteLength,
        requestHeaderBytes: headerBytes(request.headers),
        requestContentType: contentType(request.headers),
        answerBytes: answer.data.byteLength,
        answerHeaderBytes: headerBytes(answer.headers),
        answerContentType: contentType(answer.headers),
      },
    };
  }
  throw new Error(`no request/answer pair seen on the wire (${seen.length} messages: ${seen.map((m) => m.subject).join(', ')})`);
}

export interface NatsSample extends Sample {
  /** Calls in the sample. */
  readonly calls: number;
  /** CPU µs per call of the server processes (all of them, serving or not). */
  readonly serverCpuUsPerOp: number;
  /** CPU µs per call of each server process, in process order. */
  readonly perProcessCpuUsPerOp: readonly number[];
  readonly natsCpuUsPerOp: number;
}

/**
 * One sample: `run(batch)` again and again until `ms` have passed (at least once), timed as a whole, with the CPU
 * this process, the server processes and nats-server used meanwhile. Time-boxed rather than a fixed count, so a
 * calibration taken while the machine was busier or idler than now does not make a sample far too short or long.
 */
async function sampleFor(ms: number, batch: number, serverPids: readonly number[], natsPid: number, run: (count: number) => Promise<void>): Promise<NatsSample> {
  const before = serverPids.map(processCpuUs);
  const natsBefore = processCpuUs(natsPid);
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  const end = performance.now() + ms;
  let calls = 0;
  do {
    await run(batch);
    calls += batch;
  } while (performance.now() < end);
  const elapsedNs = Number(process.hrtime.bigint() - start);
  const cpu = process.cpuUsage(cpuBefore);
  const per = serverPids.map((pid, i) => (processCpuUs(pid) - (before[i] ?? 0)) / calls);
  return {
    calls,
    opsPerSec: calls / (elapsedNs / 1e9),
    cpuUsPerOp: (cpu.user + cpu.system) / calls,
    serverCpuUsPerOp: per.reduce((a, b) => a + b, 0),
    perProcessCpuUsPerOp: per,
    natsCpuUsPerOp: (processCpuUs(natsPid) - natsBefore) / calls,
  };
}

const load = (op: Op, count: number, width: number): Promise<void> => (width <= 1 ? sequential(op, count) : windowed(op, count, width));
/** `count` calls spread over several connections, `width` in flight on each. */
const spread = (ops: readonly Op[], count: number, width: number): Promise<void> =>
  Promise.all(ops.map((op) => load(op, Math.max(1, Math.round(count / ops.length)), width))).then(() => undefined);

/** Runs the load for about `ms`, in growing batches; returns the calls/s (of the batches after the first, if any). */
async function runFor(run: (count: number) => Promise<void>, first: number, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let batch = first;
  const took: { calls: number; ms: number }[] = [];
  while (performance.now() < end) {
    const start = performance.now();
    await run(batch);
    const elapsed = performance.now() - start;
    took.push({ calls: batch, ms: elapsed });
    if (elapsed < 100) batch *= 2;
  }
  const kept = took.length > 1 ? took.slice(1) : took;
  return (kept.reduce((sum, t) => sum + t.calls, 0) * 1000) / kept.reduce((sum, t) => sum + t.ms, 0);
}

const medianOf = (figures: Figures, pick: (s: NatsSample) => number): number => median(figures.samples.map((s) => pick(s as NatsSample)));

export interface NatsLoad {
  /** Calls in flight (1: sequential). */
  readonly width: number;
  readonly figures: Record<string, Figures>;
  readonly serverCpuUsPerCall: Record<string, number>;
  readonly natsCpuUsPerCall: Record<string, number>;
  /** Calls per batch, per contender (from the calibration; a sample runs batches for --sample-ms). */
  readonly counts: Record<string, number>;
}

export type ScaleImpl = 'rxmcp' | 'floor' | 'floorLean';
export const scaleImpls: readonly ScaleImpl[] = ['rxmcp', 'floor', 'floorLean'];
export const scaleLabels: Record<ScaleImpl, string> = { rxmcp: "rxmcp, era 'modern', JSON", floor: 'raw floor: nc.request', floorLean: 'lean floor: publish + inbox subscription' };

export interface ScaleFigure {
  readonly impl: ScaleImpl;
  readonly processes: number;
  readonly figures: Figures;
  readonly serverCpuUsPerCall: number;
  /** Median CPU µs per call of each server process (the ones not serving stay near 0). */
  readonly perProcessCpuUsPerCall: readonly number[];
  readonly natsCpuUsPerCall: number;
  /** Calls per batch (a sample runs batches for --sample-ms). */
  readonly batch: number;
}

export interface NatsCallsResult {
  readonly rounds: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
  readonly levels: readonly number[];
  readonly scaleCounts: readonly number[];
  readonly clients: number;
  readonly scaleWidth: number;
  readonly natsServer: string;
  readonly nats: string;
  readonly wire: Record<string, WireCall>;
  /** Which rxmcp request's bytes the floor sends. */
  readonly floorBody: NatsContender;
  readonly eras: Record<string, string>;
  readonly loads: readonly NatsLoad[];
  readonly scale: readonly ScaleFigure[];
  readonly failures: NatsFailures;
  readonly seconds: number;
}

interface Options {
  readonly rounds: number;
  readonly sampleMs: number;
  readonly warmupMs: number;
  readonly levels: readonly number[];
  readonly scaleCounts: readonly number[];
  readonly clients: number;
  readonly scaleWidth: number;
  readonly floorBody: NatsContender;
  /** The part-1 contenders measured (all when undefined). */
  readonly contenders?: readonly NatsContender[];
}

function versions(): { natsServer: string; nats: string } {
  let natsServer = 'unknown';
  try {
    natsServer = execFileSync('nats-server', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    // Reported as unknown.
  }
  // Read from the file: the package's exports map does not offer its package.json.
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', '@nats-io', 'transport-node', 'package.json'), 'utf8')) as { version: string };
  return { natsServer, nats: `nats.js (@nats-io/transport-node) ${manifest.version}` };
}

async function stopAll(processes: readonly ServerProcess[], nats: NatsServerProcess): Promise<void> {
  await Promise.all(processes.map((p) => p.program.stop()));
  await nats.dispose();
}

export async function runNatsCallsBench(options: Options): Promise<NatsCallsResult> {
  const started = performance.now();
  const { rounds, sampleMs, warmupMs, levels, scaleCounts, clients, scaleWidth } = options;
  const nats = await startNatsServer();
  const natsPid = nats.pid ?? -1;
  console.log(`nats-server at ${nats.url} (pid ${natsPid}, JetStream on)`);
  const maxProcesses = Math.max(1, ...scaleCounts);
  const rxmcp: ServerProcess[] = [];
  const floors: ServerProcess[] = [];
  for (let i = 0; i < maxProcesses; i++) {
    rxmcp.push(await ServerProcess.start(nats.url, 'rxmcp', i === 0));
    floors.push(await ServerProcess.start(nats.url, 'floor', i === 0));
  }
  console.log(`server processes: rxmcp ${rxmcp.map((p) => p.pid).join(', ')}; floor ${floors.map((p) => p.pid).join(', ')} (the first of each serving)`);

  // Part 1: one server process.
  const sniffer = await connect({ servers: nats.url, name: 'bench-sniffer' });
  const eras: Record<string, string> = {};
  const wire: Record<string, WireCall> = {};
  const bodies: Partial<Record<NatsContender, Uint8Array>> = {};
  const contenders: Contender[] = [];
  for (const name of rxmcpContenders) {
    const contender = await rxmcpContender(nats.url, name);
    const seen = await sniff(sniffer, (s) => s.startsWith(`mcp.${NAME}.call.tools.call`) || s.startsWith(`mcp.${NAME}.s.`), () => contender.run());
    wire[name] = seen.wire;
    bodies[name] = seen.body;
    eras[name] = contender.era;
    contenders.push(contender);
  }
  const floorBody = bodies[options.floorBody];
  if (floorBody === undefined) throw new Error(`--floor-body must name an rxmcp contender, got ${options.floorBody}`);
  for (const floor of [await floorContender(nats.url, floorBody), await leanFloorContender(nats.url, floorBody)]) {
    wire[floor.name] = (await sniff(sniffer, (s) => s === FLOOR_SUBJECT, () => floor.run())).wire;
    eras[floor.name] = floor.era;
    contenders.push(floor);
  }
  await sniffer.close();
  const measured = options.contenders === undefined ? contenders : contenders.filter((c) => (options.contenders as readonly string[]).includes(c.name));
  for (const [name, w] of Object.entries(wire)) {
    console.log(`  wire ${name}: request ${w.requestBytes} B body + ${w.requestHeaderBytes} B headers (${w.requestContentType}) on ${w.requestSubject}; ` +
      `answer ${w.answerBytes} B + ${w.answerHeaderBytes} B headers (${w.answerContentType})`);
  }

  console.log(`\nNATS tools/call, one server process: warm-up ${warmupMs} ms each (64 in flight, then sequential)`);
  for (const c of measured) {
    await runFor((n) => load(c, n, 64), 128, (warmupMs * 2) / 3);
    await runFor((n) => load(c, n, 1), 8, warmupMs / 3);
  }
  const loads: NatsLoad[] = [];
  const pidsOf = (c: Contender): number[] => [(isFloor(c.name) ? floors[0] : rxmcp[0])?.pid ?? -1];
  for (const width of levels) {
    const counts: Record<string, number> = {};
    // Batches of about a quarter of a sample (from a short calibration), so that a sample is a few batches.
    for (const c of measured) counts[c.name] = Math.max(width * 4, 50, Math.round(((await runFor((n) => load(c, n, width), Math.max(4, width * 2), 300)) * sampleMs) / 4000));
    const title = width <= 1 ? 'sequential' : `${width} in flight`;
    console.log(`NATS tools/call, ${title}: ${rounds} rounds of ${sampleMs} ms per contender (batches of ${measured.map((c) => `${c.name} ${fmt(counts[c.name] ?? 0, 0)}`).join(', ')} calls), interleaved (order rotates)`);
    const figures = await interleave(measured, rounds, (c) => sampleFor(sampleMs, counts[c.name] ?? 0, pidsOf(c), natsPid, (n) => load(c, n, width)), 'call');
    const serverCpuUsPerCall = Object.fromEntries(measured.map((c) => [c.name, medianOf(figures[c.name] as Figures, (s) => s.serverCpuUsPerOp)]));
    const natsCpuUsPerCall = Object.fromEntries(measured.map((c) => [c.name, medianOf(figures[c.name] as Figures, (s) => s.natsCpuUsPerOp)]));
    const ops = (n: string): number => figures[n]?.medianOpsPerSec ?? Number.NaN;
    console.log(`  server CPU us/call: ${measured.map((c) => `${c.name} ${fmt(serverCpuUsPerCall[c.name] ?? Number.NaN)}`).join(', ')}; nats-server CPU us/call: ${measured.map((c) => `${c.name} ${fmt(natsCpuUsPerCall[c.name] ?? Number.NaN)}`).join(', ')}`);
    const rxmcpMeasured = rxmcpContenders.filter((n) => measured.some((c) => c.name === n));
    console.log(`  of the floor (nc.request): ${rxmcpMeasured.map((n) => `${n} ${fmt((100 * ops(n)) / ops('floor'), 1)} %`).join(', ')}`);
    console.log(`  of the lean floor: ${rxmcpMeasured.map((n) => `${n} ${fmt((100 * ops(n)) / ops('floorLean'), 1)} %`).join(', ')}`);
    loads.push({ width, figures, serverCpuUsPerCall, natsCpuUsPerCall, counts });
  }
  for (const c of contenders) await c.close();

  // Part 2: scale-out.
  const scale: ScaleFigure[] = [];
  if (scaleCounts.length > 0) {
    const ops: Record<ScaleImpl, Contender[]> = { rxmcp: [], floor: [], floorLean: [] };
    for (let i = 0; i < clients; i++) {
      ops.rxmcp.push(await rxmcpContender(nats.url, 'modernJson'));
      ops.floor.push(await floorContender(nats.url, floorBody, 'floorScale'));
      ops.floorLean.push(await leanFloorContender(nats.url, floorBody, 'floorLeanScale'));
    }
    const impls: Record<ScaleImpl, { ops: Contender[]; processes: ServerProcess[] }> = {
      rxmcp: { ops: ops.rxmcp, processes: rxmcp },
      floor: { ops: ops.floor, processes: floors },
      floorLean: { ops: ops.floorLean, processes: floors },
    };
    type ScaleContender = { readonly name: string; readonly label: string; readonly impl: ScaleImpl; readonly processes: number };
    const scaleContenders: ScaleContender[] = scaleImpls.flatMap((impl) => scaleCounts.map((n) => ({
      name: `${impl}x${n}`,
      label: `${scaleLabels[impl]}, ${n} process${n === 1 ? '' : 'es'}`,
      impl,
      processes: n,
    })));
    const runScale = (c: ScaleContender, count: number): Promise<void> => spread(impls[c.impl].ops, count, scaleWidth);
    const prepare = async (c: ScaleContender): Promise<void> => {
      await activate(impls[c.impl].processes, c.processes);
      // The processes that just joined see their first calls (new lanes) outside the sample.
      await runFor((n) => runScale(c, n), clients * scaleWidth * 2, 150);
    };
    console.log(`\nNATS scale-out: ${clients} client connections x ${scaleWidth} in flight; warm-up ${warmupMs} ms per implementation with ${maxProcesses} processes`);
    for (const impl of scaleImpls) {
      await activate(impls[impl].processes, maxProcesses);
      await runFor((n) => spread(impls[impl].ops, n, scaleWidth), clients * scaleWidth * 2, warmupMs);
    }
    const counts: Record<string, number> = {};
    for (const c of scaleContenders) {
      await activate(impls[c.impl].processes, c.processes);
      counts[c.name] = Math.max(clients * scaleWidth * 4, Math.round(((await runFor((n) => runScale(c, n), clients * scaleWidth * 2, 300)) * sampleMs) / 4000));
    }
    console.log(`NATS scale-out: ${rounds} rounds of ${sampleMs} ms per contender (batches of ${scaleContenders.map((c) => `${c.name} ${fmt(counts[c.name] ?? 0, 0)}`).join(', ')} calls), interleaved (order rotates)`);
    const figures = await interleave(scaleContenders, rounds, async (c) => {
      await prepare(c);
      return sampleFor(sampleMs, counts[c.name] ?? 0, impls[c.impl].processes.map((p) => p.pid), natsPid, (n) => runScale(c, n));
    }, 'call');
    for (const c of scaleContenders) {
      const f = figures[c.name] as Figures;
      scale.push({
        impl: c.impl,
        processes: c.processes,
        figures: f,
        serverCpuUsPerCall: medianOf(f, (s) => s.serverCpuUsPerOp),
        perProcessCpuUsPerCall: Array.from({ length: maxProcesses }, (_, i) => medianOf(f, (s) => s.perProcessCpuUsPerOp[i] ?? Number.NaN)),
        natsCpuUsPerCall: medianOf(f, (s) => s.natsCpuUsPerOp),
        batch: counts[c.name] ?? 0,
      });
    }
    for (const s of scale) {
      console.log(`  ${s.impl} x${s.processes}: server CPU us/call ${fmt(s.serverCpuUsPerCall)} (per process ${s.perProcessCpuUsPerCall.map((v) => fmt(v)).join(' / ')}), nats-server ${fmt(s.natsCpuUsPerCall)}`);
    }
    for (const c of Object.values(ops).flat()) await c.close();
  }

  await stopAll([...rxmcp, ...floors], nats);
  return { ...options, ...versions(), wire, eras, loads, scale, failures, seconds: (performance.now() - started) / 1000 };
}

/** Only one contender's calls, for a CPU profile of this process (the client) or, with --server-prof, of its server too. */
async function profileOne(name: NatsContender, seconds: number, width: number): Promise<void> {
  const nats = await startNatsServer();
  const maps = argValue('source-maps');
  const serverProf = hasFlag('server-prof') ? ['--cpu-prof', '--cpu-prof-dir=.tmp'] : [];
  const serverMaps = maps === undefined ? [] : [`--source-maps=${maps.replace(/\.json$/, '')}.server.json`];
  let contender: Contender;
  let server: ServerProcess;
  if (isFloor(name)) {
    // The floor's body: the bytes of a modern JSON request, as in the benchmark (taken from an unprofiled server).
    const probeServer = await ServerProcess.start(nats.url, 'rxmcp', true);
    const probe = await rxmcpContender(nats.url, 'modernJson');
    const sniffer = await connect({ servers: nats.url });
    const seen = await sniff(sniffer, (s) => s.startsWith(`mcp.${NAME}.call.tools.call`), () => probe.run());
    await sniffer.close();
    await probe.close();
    await probeServer.program.stop();
    server = await ServerProcess.start(nats.url, 'floor', true, serverProf);
    contender = name === 'floor' ? await floorContender(nats.url, seen.body) : await leanFloorContender(nats.url, seen.body);
  } else {
    server = await ServerProcess.start(nats.url, 'rxmcp', true, serverProf, serverMaps);
    contender = await rxmcpContender(nats.url, name);
  }
  await runFor((n) => load(contender, n, width), Math.max(4, width * 2), 2_000);
  const count = Math.max(1_000, Math.round((await runFor((n) => load(contender, n, width), Math.max(4, width * 2), 500)) * seconds));
  const sample = await sampleFor(seconds * 1000, Math.max(width * 4, Math.round(count / 20)), [server.pid], nats.pid ?? -1, (n) => load(contender, n, width));
  console.log(`${name}, ${width > 1 ? `${width} in flight` : 'sequential'}: ${fmt(sample.opsPerSec, 0)} calls/s; CPU us/call: client ${fmt(sample.cpuUsPerOp)}, server ${fmt(sample.serverCpuUsPerOp)}, nats-server ${fmt(sample.natsCpuUsPerOp)}`);
  await contender.close();
  await server.program.stop();
  await nats.dispose();
  if (maps !== undefined) console.log(`source maps of ${dumpSourceMaps(maps)} modules written to ${maps}${serverMaps.length > 0 ? ` (the server's: ${serverMaps[0]?.slice('--source-maps='.length)})` : ''}`);
}

function argList(name: string, fallback: string): number[] {
  const values = (argValue(name) ?? fallback).split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => Number.parseInt(s, 10));
  if (values.some((v) => !Number.isInteger(v) || v < 1)) throw new RangeError(`--${name} takes positive integers, got ${String(argValue(name))}`);
  return values;
}

const profile = argValue('profile');
if (isMain(import.meta.url) && profile !== undefined) {
  if (!(natsContenders as readonly string[]).includes(profile)) throw new RangeError(`--profile must be one of ${natsContenders.join(', ')}`);
  await profileOne(profile as NatsContender, argInt('seconds', 10), argInt('window', 64));
} else if (isMain(import.meta.url)) {
  const floorBody = argValue('floor-body') ?? 'modernJson';
  if (!(rxmcpContenders as readonly string[]).includes(floorBody)) throw new RangeError(`--floor-body must be one of ${rxmcpContenders.join(', ')}`);
  const wanted = argValue('contenders')?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = wanted?.filter((name) => !(natsContenders as readonly string[]).includes(name)) ?? [];
  if (unknown.length > 0) throw new RangeError(`--contenders takes ${natsContenders.join(', ')}; got ${unknown.join(', ')}`);
  emitResult(await runNatsCallsBench({
    rounds: argInt('rounds', 5),
    sampleMs: argInt('sample-ms', 1_000),
    warmupMs: argInt('warmup-ms', 1_500),
    levels: argList('levels', '1,64'),
    scaleCounts: argValue('scale') === 'none' ? [] : argList('scale', '1,2,3'),
    clients: argInt('clients', 4),
    scaleWidth: argInt('scale-width', 64),
    floorBody: floorBody as NatsContender,
    ...(wanted === undefined ? {} : { contenders: wanted as NatsContender[] }),
  }));
}
