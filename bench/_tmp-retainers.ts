import v8 from 'node:v8';
import { readFileSync } from 'node:fs';
import { createSessionAcceptor } from '../index.ts';
import { createMemoryPair } from '../transports/memory/index.ts';
import { rawHandshake, gcTwice, settle } from './idle-session-heap.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
const acceptor = createSessionAcceptor({ serverInfo: { name: 'bench-server', version: '0.0.0' }, capabilities: {} });
const keep: unknown[] = [];
const n = Number(process.argv[2] ?? 1000);
for (let i = 0; i < n; i++) {
  const [c, s] = createMemoryPair();
  const session = acceptor.accept(s);
  await rawHandshake({ send: (m) => c.send({ payload: m }), listen: (r) => void c.incoming$.subscribe((f) => f.type === 'message' && r(f.payload as JsonObject)) });
  keep.push([c, session]);
}
await settle(); gcTwice();
const file = v8.writeHeapSnapshot('/tmp/bx/s.heapsnapshot');
type Snap = { snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } }; nodes: number[]; edges: number[]; strings: string[] };
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snap;
const nf = snap.snapshot.meta.node_fields, ef = snap.snapshot.meta.edge_fields;
const NW = nf.length, EW = ef.length;
const nt = snap.snapshot.meta.node_types[0], et = snap.snapshot.meta.edge_types[0];
const iType = nf.indexOf('type'), iName = nf.indexOf('name'), iSize = nf.indexOf('self_size'), iEc = nf.indexOf('edge_count');
const eType = ef.indexOf('type'), eName = ef.indexOf('name_or_index'), eTo = ef.indexOf('to_node');
const nodes = snap.nodes, edges = snap.edges, S = snap.strings;
const count = nodes.length / NW;
const label = (ni: number) => { const t = nt[nodes[ni * NW + iType]!]!; const nm = S[nodes[ni * NW + iName]!]!; return `${t}:${t.includes('string') ? '' : nm.slice(0, 50)}`; };
// parent map: for each target node, record (parent, edge name) for the first few
const firstParent = new Map<number, string>();
let e = 0;
for (let ni = 0; ni < count; ni++) {
  const ec = nodes[ni * NW + iEc]!;
  for (let k = 0; k < ec; k++, e++) {
    const to = edges[e * EW + eTo]! / NW;
    const typ = et[edges[e * EW + eType]!]!;
    if (typ === 'weak') continue;
    const nmv = edges[e * EW + eName]!;
    const en = typ === 'element' || typ === 'hidden' ? `[${nmv}]` : S[nmv]!;
    const tl = label(to);
    const want = process.argv.slice(3);
    if (want.some((w) => tl.startsWith(w))) {
      const key = `${tl} <- ${label(ni)} .${typ}:${en}`;
      firstParent.set(to, firstParent.has(to) ? firstParent.get(to)! : key);
    }
  }
}
const agg = new Map<string, { c: number; b: number }>();
for (const [to, key] of firstParent) { const g = agg.get(key) ?? { c: 0, b: 0 }; g.c++; g.b += nodes[to * NW + iSize]!; agg.set(key, g); }
for (const [k, g] of [...agg].sort((a, b) => b[1].b - a[1].b).slice(0, 25)) console.log((g.b / n).toFixed(0).padStart(6), (g.c / n).toFixed(2).padStart(6), k);
