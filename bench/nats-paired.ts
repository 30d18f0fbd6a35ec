/**
 * CPU per `tools/call` over NATS of two copies of rxmcp side by side, paired: for comparing a change on a machine too
 * busy for bench/nats-calls.ts (whose calls/s swing with the load). One process and one nats-server; each copy gets
 * its own `createServer` + `serveNats` and `createClient` + `createNatsClientTransport`, on NATS connections of its own, and
 * the samples alternate between the copies (the order flips every round), so both see the same load. A sample is
 * `--calls` echo calls with `--width` in flight; its figure is this process's CPU (`process.cpuUsage()`: client and
 * server together) per call, and its calls/s.
 *
 *   git archive <base commit> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   node --import tsx bench/nats-paired.ts --base=/tmp/base [--era=legacy|modern] [--encoding=json|msgpack]
 *        [--rounds=10] [--calls=4000] [--width=64]
 *
 * A benchmark, not a test: it reports medians, it never fails on a figure.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { startNatsServer } from '../specs/support/nats-server.ts';
import { callArgs, clientInfo, echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';
import { type Op, windowed } from './harness.ts';
import { argInt, argValue, fmt, median, repoRoot } from './lib.ts';

type Era = 'legacy' | 'modern';
type Encoding = 'json' | 'msgpack';

interface Copy {
  readonly name: string;
  readonly op: Op;
  close(): Promise<void>;
}

/** What the benchmark needs of a copy's `index.ts` and `transports/nats/index.ts` (both copies' own types differ). */
interface CopyModules {
  readonly createServer: (info: typeof serverInfo) => {
    tool(definition: { name: string; inputSchema: object }, handler: (args: unknown) => unknown): unknown;
  };
  readonly createClient: (options: typeof clientInfo & { era: Era }) => {
    connect(transport: unknown): Promise<{ callTool(name: string, args: object): Promise<unknown>; close(): Promise<void> }>;
  };
}
interface CopyNats {
  readonly serveNats: (server: unknown, options: { connection: unknown; name: string }) => Promise<{ close(mode: 'end'): Promise<void> }>;
  readonly createNatsClientTransport: (options: { connection: unknown; name: string; encoding: Encoding }) => unknown;
}

async function startCopy(root: string, name: string, url: string, era: Era, encoding: Encoding): Promise<Copy> {
  const core = (await import(pathToFileURL(resolve(root, 'index.ts')).href)) as CopyModules;
  const nats = (await import(pathToFileURL(resolve(root, 'transports/nats/index.ts')).href)) as CopyNats;
  const serverConnection = await connect({ servers: url, name: `paired-server-${name}` });
  const clientConnection = await connect({ servers: url, name: `paired-client-${name}` });
  const server = core.createServer(serverInfo);
  server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (args) => echo(args as EchoArgs));
  const serving = await nats.serveNats(server, { connection: serverConnection, name });
  const client = await core.createClient({ ...clientInfo, era }).connect(nats.createNatsClientTransport({ connection: clientConnection, name, encoding }));
  return {
    name,
    op: { name, label: name, run: () => client.callTool('echo', callArgs) },
    close: async () => {
      await client.close();
      await serving.close('end');
      await clientConnection.close();
      await serverConnection.close();
    },
  };
}

const base = argValue('base');
if (base === undefined) throw new RangeError('--base=<directory of the other copy> is required (see the header of this file)');
const era = (argValue('era') ?? 'modern') as Era;
const encoding = (argValue('encoding') ?? 'json') as Encoding;
if (era !== 'legacy' && era !== 'modern') throw new RangeError(`--era must be legacy or modern, got ${era}`);
if (encoding !== 'json' && encoding !== 'msgpack') throw new RangeError(`--encoding must be json or msgpack, got ${encoding}`);
const rounds = argInt('rounds', 10);
const calls = argInt('calls', 4000);
const width = argInt('width', 64);

await using natsServer = await startNatsServer({ jetstream: true });
const copies = [await startCopy(base, 'base', natsServer.url, era, encoding), await startCopy(repoRoot, 'this', natsServer.url, era, encoding)];
try {
  for (const copy of copies) await windowed(copy.op, 3000, width);
  const cpu: Record<string, number[]> = { base: [], this: [] };
  const rate: Record<string, number[]> = { base: [], this: [] };
  for (let round = 0; round < rounds; round++) {
    for (const copy of round % 2 === 0 ? copies : [...copies].reverse()) {
      const before = process.cpuUsage();
      const start = performance.now();
      await windowed(copy.op, calls, width);
      const used = process.cpuUsage(before);
      rate[copy.name]?.push((calls * 1000) / (performance.now() - start));
      cpu[copy.name]?.push((used.user + used.system) / calls);
    }
  }
  for (const name of ['base', 'this']) {
    console.log(`${era} ${encoding} ${name}: CPU µs/call (client + server) median ${fmt(median(cpu[name] ?? []))} [${(cpu[name] ?? []).map((v) => fmt(v, 0)).join(' ')}]; calls/s median ${fmt(median(rate[name] ?? []), 0)}`);
  }
} finally {
  for (const copy of copies) await copy.close();
}
