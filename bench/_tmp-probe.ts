import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { connectSession, createSessionAcceptor } from '../index.ts';
import { createMemoryPair } from '../transports/memory/index.ts';
const mode = process.argv[2] ?? 'floor';
const pending = new Map<number, () => void>();
let lastId = 0;
type M = { jsonrpc: '2.0'; id: number; method?: string; result?: object };
const toClient = (m: M) => { const r = pending.get(m.id); pending.delete(m.id); r?.(); };
const toServer = (m: M) => queueMicrotask(() => toClient({ jsonrpc: '2.0', id: m.id, result: {} }));
const floorPing = () => new Promise<void>((resolve) => { const id = ++lastId; pending.set(id, resolve); const msg: M = { jsonrpc: '2.0', id, method: 'ping' }; queueMicrotask(() => toServer(msg)); });
let ping: () => Promise<unknown> = floorPing;
if (mode === 'rxmcp' || mode === 'all') {
  const [c, s] = createMemoryPair();
  createSessionAcceptor({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).accept(s);
  const cl = await connectSession(c, { clientInfo: { name: 'c', version: '1' }, capabilities: {} });
  if (mode === 'rxmcp') ping = () => cl.ping();
}
if (mode === 'sdk' || mode === 'all') {
  const [c, s] = InMemoryTransport.createLinkedPair();
  await new Server({ name: 's', version: '1' }, { capabilities: {} }).connect(s);
  const cl = new Client({ name: 'c', version: '1' }, { capabilities: {} });
  await cl.connect(c);
  if (mode === 'sdk') ping = () => cl.ping();
}
async function burst(n: number) { for (let i = 0; i < n; i++) await ping(); }
await burst(5000);
for (let k = 0; k < 4; k++) {
  const c0 = process.cpuUsage(); const t0 = process.hrtime.bigint();
  await burst(20000);
  const ns = Number(process.hrtime.bigint() - t0); const c = process.cpuUsage(c0);
  console.log(`${mode}: ${(20000 / (ns / 1e9)).toFixed(0)}/s cpu ${((c.user + c.system) / 20000).toFixed(2)}us`);
}
