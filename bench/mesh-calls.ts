/**
 * A call through the mesh against the same call through a plain gateway (issue 30: the mesh within 1.2x of the
 * gateway's CPU). A benchmark, not a test: it reports, it never fails on a figure.
 *
 *   node --import tsx bench/mesh-calls.ts [--calls=4000] [--window=16] [--rounds=5] [--era=legacy|modern] [--profile=mesh|gateway|member]
 *
 * Its own `nats-server` (127.0.0.1, a free port, JetStream for the gateway's session records), stopped at the end.
 * One member process (bench/mesh-programs.ts, role member: an rxmcp server with `echo`, served on NATS as
 * `bench-member`), one gateway process (`rxmcp gateway`'s engine for that name, JSON answers) and one mesh process
 * (`createMesh` with its default discovery, the member its only one, JSON answers), each on Streamable HTTP on
 * 127.0.0.1. This process holds one rxmcp client of each edge (`--era`) and keeps `--window` `tools/call echo` in
 * flight until `--calls` have been answered, gateway and mesh alternating, `--rounds` rounds each.
 *
 * The two paths differ only at the edge: the gateway joins each HTTP connection frame for frame to a NATS client
 * connection; the mesh runs an MCP session for the caller and calls the member over its own session to it. Figures
 * per call: CPU µs of the edge process, of the member, of nats-server and of this process (the client), from
 * /proc/<pid>/stat (10 ms ticks) and `process.cpuUsage()`; calls/s by the wall clock; medians over the rounds.
 */
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createClient } from '../index.ts';
import type { ClientSession } from '../client/session-api.ts';
import { startNatsServer } from '../specs/support/nats-server.ts';
import { createStreamableHttpClientTransport } from '../transports/http/index.ts';
import { argInt, argValue, emitResult, fmt, isMain, median, repoRoot } from './lib.ts';
import { Program, processCpuUs } from './transport-lib.ts';

const MEMBER = 'bench-member';

export interface EdgeFigure {
  readonly edge: 'gateway' | 'mesh';
  readonly callsPerSecond: number;
  readonly edgeCpuUsPerCall: number;
  readonly memberCpuUsPerCall: number;
  readonly natsCpuUsPerCall: number;
  readonly clientCpuUsPerCall: number;
}

function startRole(args: readonly string[], nodeArgs: readonly string[] = []): Program {
  return new Program(spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(repoRoot, 'bench/mesh-programs.ts'), ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
}

/** `--profile=gateway|mesh|member`: that process writes a V8 CPU profile into .tmp/prof when it stops. */
const profiled = (role: string): string[] => (argValue('profile') === role ? ['--cpu-prof', `--cpu-prof-dir=${join(repoRoot, '.tmp/prof')}`] : []);

/** `calls` echo calls, `window` of them in flight at a time. */
async function drive(session: ClientSession, calls: number, window: number): Promise<void> {
  let sent = 0;
  const lane = async (): Promise<void> => {
    while (sent < calls) {
      sent++;
      const result = await session.callTool('echo', { text: 'hello' });
      if (result.isError === true) throw new Error(`a call failed: ${JSON.stringify(result)}`);
    }
  };
  await Promise.all(Array.from({ length: window }, lane));
}

interface Sample {
  readonly wallMs: number;
  readonly edge: number;
  readonly member: number;
  readonly nats: number;
  readonly client: number;
}

async function measure(session: ClientSession, calls: number, window: number, pids: { edge: number; member: number; nats: number }): Promise<Sample> {
  const before = { edge: processCpuUs(pids.edge), member: processCpuUs(pids.member), nats: processCpuUs(pids.nats), client: process.cpuUsage() };
  const started = performance.now();
  await drive(session, calls, window);
  const wallMs = performance.now() - started;
  const client = process.cpuUsage(before.client);
  return {
    wallMs,
    edge: (processCpuUs(pids.edge) - before.edge) / calls,
    member: (processCpuUs(pids.member) - before.member) / calls,
    nats: (processCpuUs(pids.nats) - before.nats) / calls,
    client: (client.user + client.system) / calls,
  };
}

export async function meshCalls(options: { calls: number; window: number; rounds: number; era: 'legacy' | 'modern' }): Promise<EdgeFigure[]> {
  const nats = await startNatsServer({ jetstream: true });
  const programs: Program[] = [];
  const sessions: ClientSession[] = [];
  try {
    const member = startRole(['--role=member', `--url=${nats.url}`, `--name=${MEMBER}`], profiled('member'));
    programs.push(member);
    await member.ready;
    const gateway = startRole(['--role=gateway', `--url=${nats.url}`, `--name=${MEMBER}`], profiled('gateway'));
    const mesh = startRole(['--role=mesh', `--url=${nats.url}`, '--members=1'], profiled('mesh'));
    programs.push(gateway, mesh);
    const edges = [
      { edge: 'gateway' as const, program: gateway, url: String((await gateway.ready)['url']) },
      { edge: 'mesh' as const, program: mesh, url: String((await mesh.ready)['url']) },
    ];
    const clients = await Promise.all(edges.map(async ({ url }) => {
      const session = await createClient({ name: 'mesh-bench-client', version: '1.0.0', era: options.era }).connect(createStreamableHttpClientTransport(url));
      sessions.push(session);
      // Warm both paths (JIT, connection pools) before anything is measured.
      await drive(session, Math.min(options.calls, 1000), options.window);
      return session;
    }));
    const samples = new Map<string, Sample[]>(edges.map(({ edge }) => [edge, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const [i, { edge, program }] of edges.entries()) {
        const sample = await measure(clients[i] as ClientSession, options.calls, options.window, { edge: program.pid, member: member.pid, nats: nats.pid ?? -1 });
        samples.get(edge)?.push(sample);
      }
    }
    return edges.map(({ edge }) => {
      const of = samples.get(edge) ?? [];
      return {
        edge,
        callsPerSecond: median(of.map((s) => (options.calls * 1000) / s.wallMs)),
        edgeCpuUsPerCall: median(of.map((s) => s.edge)),
        memberCpuUsPerCall: median(of.map((s) => s.member)),
        natsCpuUsPerCall: median(of.map((s) => s.nats)),
        clientCpuUsPerCall: median(of.map((s) => s.client)),
      };
    });
  } finally {
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(programs.reverse().map((program) => program.stop()));
    await nats.dispose();
  }
}

export function meshCallsMarkdown(figures: readonly EdgeFigure[]): string {
  const gateway = figures.find((f) => f.edge === 'gateway');
  const lines = [
    '| edge | calls/s | edge CPU/call | member | nats-server | client | edge + member + nats | vs gateway (edge) | vs gateway (edge + member + nats) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of figures) {
    const path = f.edgeCpuUsPerCall + f.memberCpuUsPerCall + f.natsCpuUsPerCall;
    const gatewayPath = gateway === undefined ? Number.NaN : gateway.edgeCpuUsPerCall + gateway.memberCpuUsPerCall + gateway.natsCpuUsPerCall;
    lines.push(`| ${f.edge} | ${fmt(f.callsPerSecond, 0)} | ${fmt(f.edgeCpuUsPerCall, 1)} µs | ${fmt(f.memberCpuUsPerCall, 1)} µs | ${fmt(f.natsCpuUsPerCall, 1)} µs | ${fmt(f.clientCpuUsPerCall, 1)} µs | ${fmt(path, 1)} µs | ${gateway === undefined ? '' : `${fmt(f.edgeCpuUsPerCall / gateway.edgeCpuUsPerCall)}x`} | ${gateway === undefined ? '' : `${fmt(path / gatewayPath)}x`} |`);
  }
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const era = argValue('era') ?? 'legacy';
  if (era !== 'legacy' && era !== 'modern') throw new RangeError(`--era must be legacy or modern, got ${era}`);
  const figures = await meshCalls({ calls: argInt('calls', 4000), window: argInt('window', 16), rounds: argInt('rounds', 5), era });
  console.log(meshCallsMarkdown(figures));
  emitResult(figures);
}
