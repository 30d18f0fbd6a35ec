/**
 * The processes of bench/mesh-calls.ts and bench/mesh-catalog.ts, one role each. A benchmark program.
 *
 *   node --import tsx bench/mesh-programs.ts --role=member --url=nats://... --name=<binding> [--tools=N] [--count=N]
 *   node --import tsx bench/mesh-programs.ts --role=gateway --url=nats://... --name=<binding>
 *   node --import tsx bench/mesh-programs.ts --role=mesh --url=nats://... [--members=N] [--tools=N]
 *
 * - member: an rxmcp server with the `echo` tool (and `--tools` more, `tool-<i>`) served on NATS as `--name`
 *   (announced on the services protocol, as any `serveNats` server is); `--count` of them (`--name`-<i>).
 * - gateway: `rxmcp gateway`'s engine (cli/gateway/gateway.ts) for `--name` on Streamable HTTP, 127.0.0.1, port 0.
 * - mesh: `createMesh` with its default discovery, served on Streamable HTTP, 127.0.0.1, port 0; ready once
 *   `--members` members are up and their `--members` x (`--tools` + 1) tools are in its catalog.
 *
 * Prints `@@ {"pid":..,"url":..}` once ready (url for gateway and mesh); stdin closed: stops, exits.
 */
import { connect } from '@nats-io/transport-node';
import { z } from 'zod';
import { createGateway } from '../cli/gateway/gateway.ts';
import { createClient, createServer } from '../index.ts';
import { createMemoryPair } from '../transports/memory/memory-transport.ts';
import { createMesh } from '../mesh/index.ts';
import { createStreamableHttpServer } from '../transports/http/index.ts';
import { serveNats } from '../transports/nats/index.ts';
import { argInt, argValue } from './lib.ts';

const role = argValue('role');
const url = argValue('url');
const name = argValue('name') ?? 'bench-member';
if (url === undefined || (role !== 'member' && role !== 'gateway' && role !== 'mesh')) throw new RangeError('--role=member|gateway|mesh and --url=nats://... are required');

const say = (value: object): void => void process.stdout.write(`@@ ${JSON.stringify(value)}\n`);
const nc = await connect({ servers: url, name: `mesh-bench-${role}-${name}` });
const closers: Array<() => Promise<unknown>> = [];

if (role === 'member') {
  // `--count` servers in this process (default 1), each on the one connection: `--name`, or `--name`-<i> for more.
  const count = argInt('count', 1);
  for (let m = 0; m < count; m++) {
    const binding = count === 1 ? name : `${name}-${m}`;
    const server = createServer({ name: `bench-${binding}`, version: '1.0.0' });
    server.tool({ name: 'echo', inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
    for (let i = 0; i < argInt('tools', 0); i++) server.tool({ name: `tool-${i}`, description: `Tool ${i} of ${binding}`, inputSchema: z.object({ n: z.number() }) }, ({ n }) => String(n));
    const serving = await serveNats(server, { connection: nc, name: binding, sessionRecords: false });
    closers.push(() => serving.close('end', { drainMs: 0 }), () => server.close());
  }
  say({ pid: process.pid });
} else if (role === 'gateway') {
  const gateway = await createGateway({ connection: nc, name, http: { responseMode: 'json' } });
  const listening = await gateway.http.listen(0);
  closers.push(() => listening.close(), () => gateway.close({ drainMs: 0 }));
  say({ pid: process.pid, url: listening.url });
} else {
  const members = argInt('members', 1);
  const tools = members * (argInt('tools', 0) + 1);
  const started = performance.now();
  const mesh = createMesh({ connection: nc, server: { name: 'bench-mesh', version: '1.0.0' }, discovery: { intervalMs: 1000 } });
  mesh.start();
  const http = createStreamableHttpServer({ server: mesh.server, responseMode: 'json' });
  const listening = await http.listen(0);
  closers.push(() => listening.close(), () => mesh.close());
  // Ready once every member is up and listed: a client of the mesh in this process sees every tool.
  const [clientEnd, serverEnd] = createMemoryPair();
  mesh.server.accept(serverEnd);
  const probe = await createClient({ name: 'mesh-bench-probe', version: '1.0.0', era: 'legacy' }).connect(clientEnd);
  const deadline = Date.now() + 120_000;
  let listed = 0;
  while (mesh.members.filter((member) => member.up).length < members || (listed = (await probe.listTools()).length) < tools) {
    if (Date.now() > deadline) throw new Error(`the mesh did not list ${members} members and ${tools} tools within 120 s (${mesh.members.length} members, ${listed} tools)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const mergedMs = performance.now() - started;
  await probe.close();
  say({ pid: process.pid, url: listening.url, mergedMs });
}

process.stdin.resume();
process.stdin.once('end', () => {
  void (async () => {
    for (const close of closers) await close().catch(() => undefined);
    await nc.close();
    process.exit(0);
  })();
});
