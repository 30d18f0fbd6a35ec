/**
 * Where an idle rxmcp server session's heap goes. A diagnostic companion to idle-session-heap.ts (same raw
 * client, same method), for whoever optimises it. Not part of the foundation figures.
 *
 *   npx tsx bench/session-heap-breakdown.ts [--n=10000] [--snapshot-n=2000] [--loader=tsx|strip]
 *
 * 1. Stages, each in a fresh child process, heap per session = (after - baseline) / n after gc twice:
 *      pair         createMemoryPair() only (both ends)
 *      listen       + the raw client subscribed to its end's incoming$
 *      accepted     + acceptor.accept(serverEnd): a started session, no handshake yet
 *      initialized  + the raw handshake (initialize, response, initialized): what idle-session-heap measures
 * 2. A heap-snapshot diff (v8.getHeapSnapshot, baseline vs after, at a smaller n) grouped by node type and
 *    constructor/closure name: objects per session and bytes per session, largest first.
 */
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import type { JsonObject } from '../core/jsonrpc.ts';
import { createSessionAcceptor } from '../engine.ts';
import { createMemoryPair } from '../transports/memory/index.ts';
import { type RawEnd, rawHandshake, settle } from './idle-session-heap.ts';
import { gcTwice } from './scale-lib.ts';
import { argInt, argLoader, argValue, emitResult, fmt, isMain, loaderArgs, runChild } from './lib.ts';

const stages = ['pair', 'listen', 'accepted', 'initialized'] as const;
type Stage = (typeof stages)[number];

const acceptor = createSessionAcceptor({ serverInfo: { name: 'bench-server', version: '0.0.0' }, capabilities: {} });

async function makeOne(stage: Stage): Promise<unknown> {
  const [clientEnd, serverEnd] = createMemoryPair();
  if (stage === 'pair') return [clientEnd, serverEnd];
  const raw: RawEnd = {
    send: (message) => clientEnd.send({ payload: message }),
    listen: (receive) => void clientEnd.incoming$.subscribe((frame) => frame.type === 'message' && receive(frame.payload as JsonObject)),
  };
  if (stage === 'listen') {
    raw.listen(() => undefined);
    return [clientEnd, serverEnd];
  }
  const session = acceptor.accept(serverEnd);
  if (stage === 'accepted') {
    raw.listen(() => undefined);
    return [clientEnd, session];
  }
  await rawHandshake(raw);
  return [clientEnd, session];
}

async function populate(stage: Stage, n: number, keep: unknown[], offset: number): Promise<void> {
  for (let i = 0; i < n; i++) keep[offset + i] = await makeOne(stage);
  await settle();
  gcTwice();
}

export interface Group {
  count: number;
  bytes: number;
}

/** Self sizes of a heap snapshot (its JSON text) grouped by `type:name`. */
export function groupSnapshotText(text: string): Map<string, Group> {
  const snapshot = JSON.parse(text) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const groups = new Map<string, Group>();
  const nodes = snapshot.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt] ?? 0] ?? '?';
    const rawName = snapshot.strings[nodes[i + nameAt] ?? 0] ?? '';
    const name = type.includes('string') ? '' : type === 'code' ? '(code)' : rawName.slice(0, 70);
    const key = `${type}:${name}`;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += nodes[i + sizeAt] ?? 0;
    groups.set(key, group);
  }
  return groups;
}

/** The groups of this process's heap now. */
function groupSnapshot(): Promise<Map<string, Group>> {
  const chunks: string[] = [];
  const stream = v8.getHeapSnapshot();
  return new Promise<Map<string, Group>>((resolve, reject) => {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => chunks.push(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(groupSnapshotText(chunks.join(''))));
  });
}

export interface SnapshotRow {
  readonly key: string;
  readonly perSession: number;
  readonly bytesPerSession: number;
}

/** The groups that grew by at least 4 B per session between two snapshots, largest first. */
export function diffGroups(before: Map<string, Group>, after: Map<string, Group>, n: number): SnapshotRow[] {
  const rows: SnapshotRow[] = [];
  for (const [key, group] of after) {
    const base = before.get(key) ?? { count: 0, bytes: 0 };
    const bytes = group.bytes - base.bytes;
    if (bytes / n >= 4) rows.push({ key, perSession: (group.count - base.count) / n, bytesPerSession: bytes / n });
  }
  return rows.sort((a, b) => b.bytesPerSession - a.bytesPerSession);
}

interface StageFigure {
  readonly stage: Stage;
  readonly heapBytesPerSession: number;
}

async function measureStage(stage: Stage, n: number): Promise<StageFigure> {
  const warm: unknown[] = [];
  await populate(stage, 200, warm, 0);
  const keep = new Array<unknown>(n).fill(undefined);
  gcTwice();
  const before = process.memoryUsage().heapUsed;
  await populate(stage, n, keep, 0);
  return { stage, heapBytesPerSession: (process.memoryUsage().heapUsed - before) / n };
}

async function snapshotDiff(n: number): Promise<SnapshotRow[]> {
  const warm: unknown[] = [];
  await populate('initialized', 200, warm, 0);
  const keep = new Array<unknown>(n).fill(undefined);
  gcTwice();
  const before = await groupSnapshot();
  await populate('initialized', n, keep, 0);
  const after = await groupSnapshot();
  if (keep.length !== n) throw new Error('unreachable: keeps the sessions alive until here');
  return diffGroups(before, after, n);
}

const thisScript = fileURLToPath(import.meta.url);

if (isMain(import.meta.url)) {
  const stage = argValue('stage');
  if (stage === 'snapshot') {
    emitResult(await snapshotDiff(argInt('n', 2000)));
  } else if (stage !== undefined) {
    if (!(stages as readonly string[]).includes(stage)) throw new RangeError(`unknown --stage=${stage}`);
    emitResult(await measureStage(stage as Stage, argInt('n', 10_000)));
  } else {
    const n = argInt('n', 10_000);
    const snapshotN = argInt('snapshot-n', 2000);
    const loader = argLoader();
    const figures: StageFigure[] = [];
    for (const s of stages) figures.push((await runChild(['--expose-gc', ...loaderArgs(loader)], thisScript, [`--stage=${s}`, `--n=${n}`])).result as StageFigure);
    console.log(`rxmcp idle server session, heap per session by stage (n=${n}, loader ${loader}):`);
    let previous = 0;
    for (const f of figures) {
      console.log(`  ${f.stage.padEnd(12)} ${fmt(f.heapBytesPerSession, 0).padStart(6)} B  (+${fmt(f.heapBytesPerSession - previous, 0)} B)`);
      previous = f.heapBytesPerSession;
    }
    const rows = (await runChild(['--expose-gc', ...loaderArgs(loader)], thisScript, ['--stage=snapshot', `--n=${snapshotN}`])).result as SnapshotRow[];
    console.log(`\nheap snapshot diff, initialized sessions (n=${snapshotN}), groups of >= 4 B per session:`);
    let total = 0;
    for (const row of rows) {
      total += row.bytesPerSession;
      console.log(`  ${fmt(row.bytesPerSession, 0).padStart(6)} B  ${fmt(row.perSession, 2).padStart(6)} per session  ${row.key}`);
    }
    console.log(`  ${fmt(total, 0).padStart(6)} B  total of the groups shown`);
    emitResult({ n, loader, stages: figures, snapshotN, snapshot: rows });
  }
}
