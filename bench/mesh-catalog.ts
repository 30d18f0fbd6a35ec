/**
 * The mesh's catalog at size (issue 30): how long a mesh takes to find, join and merge 50 servers of 100 tools
 * each, and what a `tools/list` of the union costs. A benchmark, not a test: it reports, it never fails on a figure.
 *
 *   node --import tsx bench/mesh-catalog.ts [--members=50] [--tools=100] [--lists=50] [--rounds=3]
 *
 * Its own `nats-server` (127.0.0.1, a free port), stopped at the end. One process serves the `--members` servers on
 * NATS (bench/mesh-programs.ts, role member with `--count`), each with `--tools` tools (`echo` and `tool-<i>`);
 * per round a fresh mesh process (role mesh, default discovery) finds them, joins each and merges their catalogs:
 * the merge time is from the mesh's start until an in-process client of it lists every tool (discovery's first
 * round and its 250 ms answer window included). Then this process lists the union over Streamable HTTP
 * (`tools/list` through every page, rxmcp client, legacy era) `--lists` times, one at a time.
 *
 * Figures: merge time (ms); per full listing, wall ms and the mesh process's CPU ms, from /proc/<pid>/stat (10 ms
 * ticks); the tool count and page count of a listing; medians over the rounds.
 */
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createClient } from '../index.ts';
import { startNatsServer } from '../specs/support/nats-server.ts';
import { createStreamableHttpClientTransport } from '../transports/http/index.ts';
import { argInt, emitResult, fmt, isMain, median, repoRoot } from './lib.ts';
import { Program, processCpuUs } from './transport-lib.ts';

export interface CatalogFigure {
  readonly members: number;
  readonly toolsPerMember: number;
  readonly tools: number;
  readonly mergeMs: number;
  readonly listWallMs: number;
  readonly listMeshCpuMs: number;
}

function startRole(args: readonly string[]): Program {
  return new Program(spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench/mesh-programs.ts'), ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] }));
}

export async function meshCatalog(options: { members: number; tools: number; lists: number; rounds: number }): Promise<CatalogFigure> {
  const nats = await startNatsServer({ jetstream: false });
  const members = startRole(['--role=member', `--url=${nats.url}`, '--name=catalog', `--count=${options.members}`, `--tools=${options.tools - 1}`]);
  const merges: number[] = [];
  const walls: number[] = [];
  const cpus: number[] = [];
  let tools = 0;
  try {
    await members.ready;
    for (let round = 0; round < options.rounds; round++) {
      const mesh = startRole(['--role=mesh', `--url=${nats.url}`, `--members=${options.members}`, `--tools=${options.tools - 1}`]);
      try {
        const ready = await mesh.ready;
        merges.push(Number(ready['mergedMs']));
        const session = await createClient({ name: 'mesh-catalog-bench', version: '1.0.0', era: 'legacy' }).connect(createStreamableHttpClientTransport(String(ready['url'])));
        try {
          tools = (await session.listTools()).length;
          const cpuBefore = processCpuUs(mesh.pid);
          const started = performance.now();
          for (let i = 0; i < options.lists; i++) {
            const listed = await session.listTools();
            if (listed.length !== tools) throw new Error(`a listing had ${listed.length} tools, the first ${tools}`);
          }
          walls.push((performance.now() - started) / options.lists);
          cpus.push((processCpuUs(mesh.pid) - cpuBefore) / 1000 / options.lists);
        } finally {
          await session.close();
        }
      } finally {
        await mesh.stop();
      }
    }
  } finally {
    await members.stop();
    await nats.dispose();
  }
  return { members: options.members, toolsPerMember: options.tools, tools, mergeMs: median(merges), listWallMs: median(walls), listMeshCpuMs: median(cpus) };
}

export function meshCatalogMarkdown(f: CatalogFigure): string {
  return [
    '| members | tools each | tools in the union | merge (discovery to listed) | one full `tools/list` (wall) | mesh CPU per full list | per tool listed |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    `| ${f.members} | ${f.toolsPerMember} | ${f.tools} | ${fmt(f.mergeMs, 0)} ms | ${fmt(f.listWallMs, 1)} ms | ${fmt(f.listMeshCpuMs, 1)} ms | ${fmt((f.listMeshCpuMs * 1000) / Math.max(1, f.tools), 2)} µs |`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const figure = await meshCatalog({ members: argInt('members', 50), tools: argInt('tools', 100), lists: argInt('lists', 50), rounds: argInt('rounds', 3) });
  console.log(meshCatalogMarkdown(figure));
  emitResult(figure);
}
