/**
 * Fault runs of MCP over a real 3-node nats-server cluster (issue 19): server processes serving one name, and
 * clients of both eras under load, every connection given all the nodes' URLs; mid-load one fault:
 * - `node`: the nats-server node leading the session records' KV bucket is SIGKILLed;
 * - `process`: one MCP server process is SIGKILLed.
 * Every call has a deadline; each ends as answered, failed with an error (counted by its code), or lost (no
 * answer within the deadline: must be 0). Recovery is the time from the kill to the end of the last failed call.
 *
 *   npx tsx bench/nats-cluster-faults.ts [--faults=node,process] [--servers=3] [--connections=3] [--seconds=14]
 *                                        [--kill-at=5] [--deadline-ms=10000]
 *
 * Prints a markdown table (and the JSON figures) for bench/RESULTS.md, "NATS cluster fault runs".
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { type NatsCluster, startNatsCluster } from '../specs/support/nats-cluster.ts';
import {
  type Load,
  type NatsClient,
  type Outcome,
  type ServerProcess,
  connectClient,
  natsConnection,
  sleep,
  startLoad,
  startServerProcess,
  stopAll,
  timedCall,
} from '../specs/transports/nats/nats-processes.ts';

const { values } = parseArgs({
  options: {
    faults: { type: 'string', default: 'node,process' },
    servers: { type: 'string', default: '3' },
    connections: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '14' },
    'kill-at': { type: 'string', default: '5' },
    'deadline-ms': { type: 'string', default: '10000' },
  },
});
const NAME = 'faults';
const SILENCE_MS = 2000;
const servers = Number(values.servers);
const connectionCount = Number(values.connections);
const seconds = Number(values.seconds);
const killAt = Number(values['kill-at']);
const deadlineMs = Number(values['deadline-ms']);
const faults = (values.faults ?? '').split(',').filter((fault): fault is 'node' | 'process' => fault === 'node' || fault === 'process');

interface EraFigures {
  readonly calls: number;
  readonly answered: number;
  readonly failed: Readonly<Record<string, number>>;
  readonly lost: number;
  /** An example message per failure code. */
  readonly examples: Readonly<Record<string, string>>;
}

interface FaultRun {
  readonly fault: 'node' | 'process';
  readonly victim: string;
  readonly modern: EraFigures;
  readonly legacy: EraFigures;
  /** From the kill to the end of the last failed call (0: nothing failed). */
  readonly recoveryMs: number;
  /** The slowest answered call that was in flight at the kill or sent within 2 s after it. */
  readonly slowestAroundKillMs: number;
  readonly reinitialized: number;
}

function figures(outcomes: readonly Outcome[]): EraFigures {
  const failed: Record<string, number> = {};
  const examples: Record<string, string> = {};
  let lost = 0;
  for (const o of outcomes) {
    if (o.ok) continue;
    // No answer within the deadline: the call's own timeout fired.
    if (o.code === 'RequestTimeout' || o.ms >= deadlineMs) {
      lost++;
      continue;
    }
    failed[o.code] = (failed[o.code] ?? 0) + 1;
    examples[o.code] ??= o.error instanceof Error ? o.error.message : JSON.stringify(o.error);
  }
  return { calls: outcomes.length, answered: outcomes.filter((o) => o.ok).length, failed, lost, examples };
}

async function run(fault: 'node' | 'process'): Promise<FaultRun> {
  const cluster: NatsCluster = await startNatsCluster();
  const connections: NatsConnection[] = [];
  const clients: NatsClient[] = [];
  const urlsFrom = (first: number): string[] => [...cluster.urls.slice(first % 3), ...cluster.urls.slice(0, first % 3)];
  try {
    const processes: ServerProcess[] = await Promise.all(Array.from({ length: servers }, (_, i) => startServerProcess(urlsFrom(i).join(','), NAME, { REPLICAS: '3' })));
    for (let i = 0; i < connectionCount; i++) connections.push(await natsConnection(urlsFrom(i), `faults-${i}`));
    const modern = await Promise.all(connections.map((connection) => connectClient(connection, NAME, 'modern', SILENCE_MS)));
    const legacy = await Promise.all(connections.flatMap((connection) => [0, 1].map(() => connectClient(connection, NAME, 'legacy', SILENCE_MS))));
    clients.push(...modern, ...legacy);
    const call = (client: NatsClient) => (n: number) =>
      n % 2 === 0 ? timedCall(client.session, 'echo', { text: `call ${n}` }, deadlineMs) : timedCall(client.session, 'slow', { ms: 50 + ((n * 37) % 300) }, deadlineMs);
    const modernLoads: Load[] = modern.map((client) => startLoad(2, 1_000_000, seconds * 1000, call(client)));
    const legacyLoads: Load[] = legacy.map((client) => startLoad(1, 1_000_000, seconds * 1000, call(client)));
    await sleep(killAt * 1000);
    let victim: string;
    const killedAt = Date.now();
    if (fault === 'node') {
      const info = await (await jetstreamManager(connections[0] as NatsConnection)).streams.info(`KV_mcp_sessions_${NAME}`);
      const node = cluster.nodes.find((candidate) => candidate.name === info.cluster?.leader) ?? (cluster.nodes[0] as NatsCluster['nodes'][number]);
      victim = `nats-server ${node.name} (the KV bucket's leader)`;
      await node.kill();
    } else {
      const process = processes[0] as ServerProcess;
      victim = `server process ${process.pid}`;
      await process.kill();
    }
    await Promise.all([...modernLoads, ...legacyLoads].map((load) => load.done));
    const all = [...modernLoads, ...legacyLoads].flatMap((load) => load.outcomes);
    const failedEnds = all.filter((o) => !o.ok).map((o) => o.sentAt + o.ms);
    const around = all.filter((o) => o.ok && o.sentAt <= killedAt + 2000 && o.sentAt + o.ms >= killedAt);
    return {
      fault,
      victim,
      modern: figures(modernLoads.flatMap((load) => load.outcomes)),
      legacy: figures(legacyLoads.flatMap((load) => load.outcomes)),
      recoveryMs: failedEnds.length === 0 ? 0 : Math.max(0, Math.max(...failedEnds) - killedAt),
      slowestAroundKillMs: Math.max(0, ...around.map((o) => o.ms)),
      reinitialized: legacy.reduce((sum, client) => sum + client.sent.filter((method) => method === 'initialize').length - 1, 0),
    };
  } finally {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await cluster.dispose();
  }
}

const describeFailed = (era: EraFigures): string => {
  const codes = Object.entries(era.failed);
  return codes.length === 0 ? '0' : codes.map(([code, count]) => `${count} ${code}`).join(', ');
};

const loadBefore = os.loadavg();
const runs: FaultRun[] = [];
for (const fault of faults) runs.push(await run(fault));
const loadAfter = os.loadavg();

const lines = [
  '| fault | era | calls | answered | failed (code) | lost | recovery ms | slowest answer around the kill ms | re-initialized |',
  '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |',
];
for (const r of runs) {
  for (const era of ['modern', 'legacy'] as const) {
    const f = r[era];
    lines.push(`| ${r.victim} | ${era} | ${f.calls} | ${f.answered} | ${describeFailed(f)} | ${f.lost} | ${r.recoveryMs} | ${r.slowestAroundKillMs} | ${era === 'legacy' ? r.reinitialized : '-'} |`);
  }
}
console.log(lines.join('\n'));
for (const r of runs) {
  for (const era of ['modern', 'legacy'] as const) for (const [code, message] of Object.entries(r[era].examples)) console.log(`- ${r.fault}, ${era}, ${code}: ${message}`);
}
console.log(`\nload average before ${loadBefore.map((l) => l.toFixed(1)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores`);
console.log(JSON.stringify(runs));
process.exitCode = runs.every((r) => r.modern.lost === 0 && r.legacy.lost === 0) ? 0 : 1;
