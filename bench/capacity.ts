/**
 * The measurements behind the capacity model of docs/deploy.md (issue 19), over one real `nats-server` with
 * JetStream (specs/support/nats-server.ts: 127.0.0.1, a free port, its own store), all in one run. A benchmark,
 * not a test: it reports, it never fails on a figure.
 *
 *   node --import tsx bench/capacity.ts [--parts=lifecycle,fanout,kv,spread] [--sessions=20] [--levels=10,100,1000]
 *        [--deliveries=20000] [--kv-puts=5000] [--spread-sessions=3000]
 *
 * Server processes are children (bench/capacity-server.ts: `createServer()` with the echo tool and one
 * subscribable resource, `serveNats` with its defaults, legacy session records in KV on); the clients are rxmcp
 * `createClient()` sessions in this process over `createNatsClientTransport`, on one NATS connection.
 *
 * 1. JetStream operations per legacy session, counted on the wire: a spy connection subscribes to `$KV.>` (every
 *    KV write is a publish there: a plain put, a revision-checked update carrying `Nats-Expected-Last-Subject-
 *    Sequence`, a delete marked `KV-Operation: DEL`) and to `$JS.API.>` (every JetStream API request: KV reads are
 *    `DIRECT.GET` / `STREAM.MSG.GET`). `--sessions` legacy sessions go through, step by step: open (`initialize`),
 *    5 `tools/call` each, `resources/subscribe`, `logging/setLevel`, takeover (a second process starts, the first
 *    leaves with `close('handover')`, each session's next `tools/call` is adopted by the second),
 *    `resources/unsubscribe`, close. The
 *    counts of each step divided by the sessions.
 * 2. Change fan-out, per number of listeners N (`--levels`): N legacy sessions (each subscribed to the resource and
 *    listening for list changes) and N modern-era `subscriptions/listen` streams (resource + tools list) on one
 *    server process. This process publishes changes on the server name's `changes` subject, as another server
 *    process of the group does (`transports/nats/server/change-fanout.ts`): M resource updates, then M
 *    `tools` list changes (M = `--deliveries` / N, at least 5), and counts what reaches the clients. Per delivered
 *    notification: wall time, CPU of the server process, of nats-server and of this process (the clients), from
 *    /proc/<pid>/stat (10 ms ticks) and `process.cpuUsage()`. The server's heap per open legacy session comes
 *    from the same run (gc'd readings before and after opening them).
 * 3. The node's KV write rate: `--kv-puts` puts of a 400-byte value (a session record's size) on a fresh bucket
 *    (history 1, one replica, file storage), 1 and 64 in flight: puts/s and nats-server CPU per put.
 * 4. Legacy sessions over a process group: 1, 2 and 3 server processes serving the same name (one queue group);
 *    `--spread-sessions` legacy sessions opened, how many each process took and its heap per session; then 5
 *    `tools/call` per session, 64 in flight: calls/s and each server process's CPU per call.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { Subscription as RxSubscription } from 'rxjs';
import { createClient } from '../index.ts';
import { startNatsServer } from '../specs/support/nats-server.ts';
import { createNatsClientTransport } from '../transports/nats/index.ts';
import { callArgs, clientInfo } from './echo-tool.ts';
import { argValue, emitResult, fmt, isMain, repoRoot } from './lib.ts';
import { revision } from './modern.ts';
import { Program, processCpuUs } from './transport-lib.ts';

const NAME = 'capacity';
const DOC_URI = 'mem://doc';
type Session = Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;

// ---------------------------------------------------------------------------------------------------------
// Counting JetStream operations on the wire

type OpKind = 'kvPut' | 'kvUpdate' | 'kvDelete' | 'kvGet' | 'jsApiOther';
type OpCounts = Record<OpKind, number>;
const zero = (): OpCounts => ({ kvPut: 0, kvUpdate: 0, kvDelete: 0, kvGet: 0, jsApiOther: 0 });

function spyOn(nc: NatsConnection): { counts: OpCounts; other: Map<string, number> } {
  const counts = zero();
  const other = new Map<string, number>();
  nc.subscribe('$KV.>', {
    callback: (error, msg) => {
      if (error !== null) return;
      const op = msg.headers?.get('KV-Operation') ?? '';
      if (op === 'DEL' || op === 'PURGE') counts.kvDelete++;
      else if ((msg.headers?.get('Nats-Expected-Last-Subject-Sequence') ?? '') !== '') counts.kvUpdate++;
      else counts.kvPut++;
    },
  });
  nc.subscribe('$JS.API.>', {
    callback: (error, msg) => {
      if (error !== null) return;
      if (msg.subject.startsWith('$JS.API.DIRECT.GET.') || msg.subject.startsWith('$JS.API.STREAM.MSG.GET.')) counts.kvGet++;
      else {
        counts.jsApiOther++;
        const kind = msg.subject.split('.').slice(2, 4).join('.');
        other.set(kind, (other.get(kind) ?? 0) + 1);
      }
    },
  });
  return { counts, other };
}

const minus = (a: OpCounts, b: OpCounts): OpCounts => ({ kvPut: a.kvPut - b.kvPut, kvUpdate: a.kvUpdate - b.kvUpdate, kvDelete: a.kvDelete - b.kvDelete, kvGet: a.kvGet - b.kvGet, jsApiOther: a.jsApiOther - b.jsApiOther });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function startServer(url: string): Program {
  const args = ['--expose-gc', '--import', 'tsx', join(repoRoot, 'bench/capacity-server.ts'), `--url=${url}`, `--name=${NAME}`];
  return new Program(spawn(process.execPath, args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
}

async function openSession(nc: NatsConnection, era: 'legacy' | 'modern'): Promise<Session> {
  return createClient({ ...clientInfo, era }).connect(createNatsClientTransport({ connection: nc, name: NAME }));
}

export interface StepCounts {
  readonly step: string;
  /** Per session. */
  readonly perSession: OpCounts;
}

async function lifecycle(url: string, nc: NatsConnection, spyNc: NatsConnection, sessions: number): Promise<{ steps: StepCounts[]; otherApi: Record<string, number> }> {
  const spy = spyOn(spyNc);
  await spyNc.flush();
  const a = startServer(url);
  await a.ready;
  const steps: StepCounts[] = [];
  let before = { ...spy.counts };
  const step = async (name: string, body: () => Promise<void>): Promise<void> => {
    await body();
    await nc.flush();
    await sleep(500);
    await spyNc.flush();
    const delta = minus(spy.counts, before);
    before = { ...spy.counts };
    steps.push({ step: name, perSession: { kvPut: delta.kvPut / sessions, kvUpdate: delta.kvUpdate / sessions, kvDelete: delta.kvDelete / sessions, kvGet: delta.kvGet / sessions, jsApiOther: delta.jsApiOther / sessions } });
    console.log(`  ${name}: ${JSON.stringify(steps.at(-1)?.perSession)}`);
  };
  spy.other.clear();
  const open: Session[] = [];
  const subs = new RxSubscription();
  let b: Program | undefined;
  try {
    await step('open (initialize)', async () => {
      for (let i = 0; i < sessions; i++) open.push(await openSession(nc, 'legacy'));
    });
    await step('5 tools/call', async () => {
      for (const s of open) for (let i = 0; i < 5; i++) await s.callTool('echo', callArgs);
    });
    await step('resources/subscribe', async () => {
      for (const s of open) subs.add(s.subscribe$(DOC_URI).subscribe());
    });
    await step('logging/setLevel', async () => {
      for (const s of open) await s.setLogLevel('warning');
    });
    await step('takeover (owner handed over; next tools/call adopted by another process)', async () => {
      b = startServer(url);
      await b.ready;
      await a.command('handover');
      for (const s of open) await s.callTool('echo', callArgs);
    });
    await step('resources/unsubscribe', async () => {
      subs.unsubscribe();
    });
    await step('close', async () => {
      for (const s of open) await s.close();
    });
  } finally {
    await a.stop();
    await b?.stop();
  }
  return { steps, otherApi: Object.fromEntries(spy.other) };
}

// ---------------------------------------------------------------------------------------------------------
// Change fan-out

export interface FanoutFigure {
  readonly listeners: number;
  readonly kind: 'resource-updated' | 'tools list_changed';
  readonly changes: number;
  readonly expectedLegacy: number;
  readonly deliveredLegacy: number;
  readonly expectedModern: number;
  readonly deliveredModern: number;
  readonly wallMs: number;
  readonly serverCpuUsPerDelivery: number;
  readonly natsCpuUsPerDelivery: number;
  readonly clientCpuUsPerDelivery: number;
  readonly deliveriesPerSecond: number;
}

export interface HeapFigure {
  readonly legacySessions: number;
  readonly modernListeners: number;
  readonly heapBytes: number;
  readonly rssBytes: number;
}

async function fanout(url: string, natsPid: number, nc: NatsConnection, levels: readonly number[], deliveries: number): Promise<{ figures: FanoutFigure[]; heap: HeapFigure[] }> {
  const server = startServer(url);
  const ready = await server.ready;
  const serverPid = Number(ready['pid']);
  const figures: FanoutFigure[] = [];
  const heap: HeapFigure[] = [];
  const legacy: Session[] = [];
  const modern: Session[] = [];
  const subs = new RxSubscription();
  let legacyUpdates = 0;
  let legacyLists = 0;
  let modernUpdates = 0;
  let modernLists = 0;
  const measure = async (): Promise<void> => {
    const m = await server.command('measure');
    heap.push({ legacySessions: legacy.length, modernListeners: modern.length, heapBytes: Number(m['heapUsed']), rssBytes: Number(m['rss']) });
  };
  const publisher = await connect({ servers: url, name: 'capacity-changes' });
  try {
    await measure();
    for (const n of levels) {
      while (legacy.length < n) {
        const s = await openSession(nc, 'legacy');
        legacy.push(s);
        subs.add(s.subscribe$(DOC_URI).subscribe(() => void legacyUpdates++));
        subs.add(s.listChanged$.subscribe((which) => void (which === 'tools' && legacyLists++)));
      }
      await measure();
      while (modern.length < n) {
        const s = await openSession(nc, 'modern');
        modern.push(s);
        subs.add(s.listen$({ resourceSubscriptions: [DOC_URI], toolsListChanged: true }).subscribe((note) => {
          if (note.method === 'notifications/resources/updated') modernUpdates++;
          else if (note.method === 'notifications/tools/list_changed') modernLists++;
        }));
      }
      await sleep(1_000);
      await measure();
      const changes = Math.max(5, Math.ceil(deliveries / (2 * n)));
      for (const kind of ['resource-updated', 'tools list_changed'] as const) {
        const change = kind === 'resource-updated' ? { type: 'resource-updated', uri: DOC_URI } : { type: 'tools' };
        const counted = (): number => (kind === 'resource-updated' ? legacyUpdates + modernUpdates : legacyLists + modernLists);
        const startLegacy = kind === 'resource-updated' ? legacyUpdates : legacyLists;
        const startModern = kind === 'resource-updated' ? modernUpdates : modernLists;
        const start = counted();
        const target = start + changes * 2 * n;
        const cpu0 = process.cpuUsage();
        const server0 = processCpuUs(serverPid);
        const nats0 = processCpuUs(natsPid);
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < changes; i++) {
          publisher.publish(`mcp.${NAME}.changes`, new TextEncoder().encode(JSON.stringify({ origin: 'capacity-bench', change })));
          // A change at a time, as changes come in practice; list changes may be coalesced by the server otherwise.
          await publisher.flush();
        }
        // Until everything arrived, or nothing more has for 2 s.
        let last = counted();
        let lastAt = Date.now();
        while (counted() < target && Date.now() - lastAt < 2_000) {
          await sleep(5);
          if (counted() !== last) {
            last = counted();
            lastAt = Date.now();
          }
        }
        const wallMs = Number(process.hrtime.bigint() - t0) / 1e6 - (counted() < target ? 2_000 : 0);
        const delivered = counted() - start;
        const cpu = process.cpuUsage(cpu0);
        const figure: FanoutFigure = {
          listeners: n, kind, changes,
          expectedLegacy: changes * n, deliveredLegacy: (kind === 'resource-updated' ? legacyUpdates : legacyLists) - startLegacy,
          expectedModern: changes * n, deliveredModern: (kind === 'resource-updated' ? modernUpdates : modernLists) - startModern,
          wallMs,
          serverCpuUsPerDelivery: (processCpuUs(serverPid) - server0) / delivered,
          natsCpuUsPerDelivery: (processCpuUs(natsPid) - nats0) / delivered,
          clientCpuUsPerDelivery: (cpu.user + cpu.system) / delivered,
          deliveriesPerSecond: (delivered * 1000) / wallMs,
        };
        figures.push(figure);
        console.log(`  fan-out ${kind} to ${n} legacy + ${n} modern listeners, ${changes} changes: ${delivered} of ${changes * 2 * n} delivered in ${fmt(wallMs, 0)} ms; ` +
          `per delivery ${fmt(figure.serverCpuUsPerDelivery, 1)} µs server, ${fmt(figure.natsCpuUsPerDelivery, 1)} µs nats-server, ${fmt(figure.clientCpuUsPerDelivery, 1)} µs clients`);
      }
    }
  } finally {
    subs.unsubscribe();
    await Promise.allSettled([...legacy, ...modern].map((s) => s.close()));
    await publisher.close();
    await server.stop();
  }
  return { figures, heap };
}

// ---------------------------------------------------------------------------------------------------------
// Legacy sessions spread over a process group

export interface SpreadFigure {
  readonly processes: number;
  readonly sessions: number;
  /** Legacy sessions each process holds once all are open (the queue group picks who takes each initialize). */
  readonly perProcess: readonly number[];
  readonly heapBytesPerSession: readonly number[];
  readonly callsPerSecond: number;
  readonly serverCpuUsPerCall: readonly number[];
}

/** `sessions` legacy sessions opened against `processes` server processes, then 5 calls on each, 64 in flight. */
async function spread(url: string, nc: NatsConnection, processes: number, sessions: number): Promise<SpreadFigure> {
  const servers = Array.from({ length: processes }, () => startServer(url));
  const pids = (await Promise.all(servers.map((p) => p.ready))).map((r) => Number(r['pid']));
  const open: Session[] = [];
  try {
    const before = await Promise.all(servers.map((p) => p.command('measure')));
    for (let i = 0; i < sessions; i++) open.push(await openSession(nc, 'legacy'));
    const after = await Promise.all(servers.map((p) => p.command('measure')));
    const perProcess = after.map((m) => Number(m['sessions']));
    const cpu0 = pids.map((pid) => processCpuUs(pid));
    const t0 = process.hrtime.bigint();
    const calls = sessions * 5;
    let next = 0;
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (next < calls) {
        const s = open[next++ % sessions];
        await s?.callTool('echo', callArgs);
      }
    }));
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const figure: SpreadFigure = {
      processes, sessions, perProcess,
      heapBytesPerSession: after.map((m, i) => (Number(m['heapUsed']) - Number(before[i]?.['heapUsed'])) / Math.max(1, perProcess[i] ?? 0)),
      callsPerSecond: (calls * 1000) / wallMs,
      serverCpuUsPerCall: pids.map((pid, i) => (processCpuUs(pid) - (cpu0[i] ?? 0)) / calls),
    };
    console.log(`  ${sessions} legacy sessions over ${processes} processes: ${perProcess.join(' / ')} sessions; heap/session ${figure.heapBytesPerSession.map((b) => fmt(b, 0)).join(' / ')} B; ` +
      `${fmt(figure.callsPerSecond, 0)} calls/s, server CPU µs/call ${figure.serverCpuUsPerCall.map((c) => fmt(c, 1)).join(' / ')}`);
    return figure;
  } finally {
    await Promise.allSettled(open.map((s) => s.close()));
    await Promise.all(servers.map((p) => p.stop()));
  }
}

// ---------------------------------------------------------------------------------------------------------
// KV write throughput of the node

export interface KvFigure {
  readonly inFlight: number;
  readonly puts: number;
  readonly putsPerSecond: number;
  readonly natsCpuUsPerPut: number;
  readonly clientCpuUsPerPut: number;
}

/** `puts` KV puts of a session-record-sized value (400 B) on a fresh bucket (history 1, R1, file), `inFlight` at a time. */
async function kvThroughput(nc: NatsConnection, natsPid: number, puts: number, levels: readonly number[]): Promise<KvFigure[]> {
  const kv = await new Kvm(nc).create('capacity_kv_bench', { history: 1 });
  const value = new Uint8Array(400).fill(120);
  const figures: KvFigure[] = [];
  let key = 0;
  for (const inFlight of levels) {
    const cpu0 = process.cpuUsage();
    const nats0 = processCpuUs(natsPid);
    const t0 = process.hrtime.bigint();
    let started = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (started < puts) {
        started++;
        await kv.put(`s${key++}`, value);
      }
    }));
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    figures.push({ inFlight, puts, putsPerSecond: (puts * 1000) / wallMs, natsCpuUsPerPut: (processCpuUs(natsPid) - nats0) / puts, clientCpuUsPerPut: (cpu.user + cpu.system) / puts });
    console.log(`  KV put, ${inFlight} in flight: ${fmt((puts * 1000) / wallMs, 0)} puts/s; nats-server ${fmt(figures.at(-1)?.natsCpuUsPerPut ?? 0, 1)} µs CPU per put`);
  }
  await kv.destroy();
  return figures;
}

export interface CapacityRun {
  readonly lifecycle: { steps: StepCounts[]; otherApi: Record<string, number> } | undefined;
  readonly fanout: FanoutFigure[];
  readonly heap: HeapFigure[];
  readonly kv: KvFigure[];
  readonly spread: SpreadFigure[];
  readonly sessions: number;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly revision: string;
  readonly seconds: number;
}

if (isMain(import.meta.url)) {
  const sessions = Number(argValue('sessions') ?? 20);
  const levels = (argValue('levels') ?? '10,100,1000').split(',').map(Number);
  const deliveries = Number(argValue('deliveries') ?? 20_000);
  const parts = (argValue('parts') ?? 'lifecycle,fanout,kv,spread').split(',');
  const started = Date.now();
  const loadBefore = os.loadavg();
  const nats = await startNatsServer();
  const nc = await connect({ servers: nats.url, name: 'capacity-clients' });
  const spyNc = await connect({ servers: nats.url, name: 'capacity-spy' });
  try {
    let life: CapacityRun['lifecycle'];
    if (parts.includes('lifecycle')) {
      console.log(`JetStream operations per legacy session (${sessions} sessions):`);
      life = await lifecycle(nats.url, nc, spyNc, sessions);
      console.log(`  other JetStream API requests: ${JSON.stringify(life.otherApi)}`);
    }
    const fan = parts.includes('fanout') ? await fanout(nats.url, nats.pid ?? -1, nc, levels, deliveries) : { figures: [], heap: [] };
    for (const h of fan.heap) console.log(`  server heap with ${h.legacySessions} legacy sessions, ${h.modernListeners} modern listeners: ${fmt(h.heapBytes / 1048576)} MiB`);
    const kv = parts.includes('kv') ? await kvThroughput(nc, nats.pid ?? -1, Number(argValue('kv-puts') ?? 5_000), [1, 64]) : [];
    const spreadFigures: SpreadFigure[] = [];
    if (parts.includes('spread')) {
      console.log('Legacy sessions over a process group:');
      for (const processes of [1, 2, 3]) spreadFigures.push(await spread(nats.url, nc, processes, Number(argValue('spread-sessions') ?? 3_000)));
    }
    const run: CapacityRun = { lifecycle: life, fanout: fan.figures, heap: fan.heap, kv, spread: spreadFigures, sessions, loadBefore, loadAfter: os.loadavg(), revision: revision(), seconds: (Date.now() - started) / 1000 };
    emitResult(run);
  } finally {
    await nc.close();
    await spyNc.close();
    await nats.dispose();
  }
}
