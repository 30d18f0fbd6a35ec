/**
 * The server processes of bench/nats-calls.ts, each with its own NATS connection, run as child processes:
 *
 *   node --import tsx bench/nats-programs.ts --url=nats://127.0.0.1:<port> --impl=rxmcp --name=<server name>
 *   node --import tsx bench/nats-programs.ts --url=nats://127.0.0.1:<port> --impl=floor --subject=<subject>
 *        [--serve] [--source-maps=<file>]
 *
 * rxmcp: `createServer()` (both eras) with the echo tool of bench/echo-tool.ts (JSON Schema), served by
 * `serveNats(server, { connection, name })`: every process started with the same name joins the one queue group.
 * floor: the raw nats.js request/reply echo, `nc.subscribe(subject, { queue, callback: m => m.respond(m.data) })`
 * (no decoding, no checks).
 *
 * Prints `@@ {"pid":...,"serving":bool}` once connected (serving at once with `--serve`), and takes one-word
 * commands on stdin, each answered by an `@@` line once the NATS server has seen the change (a flush):
 * `serve` (join the queue group), `pause` (leave it: `serving.close('end')` / unsubscribe). When stdin ends it
 * stops serving, closes its connection, writes its source maps (`--source-maps`, for CPU profiles) and exits.
 */
import { createInterface } from 'node:readline';
import { type NatsConnection, type Subscription, connect } from '@nats-io/transport-node';
import { argValue, hasFlag } from './lib.ts';
import { dumpSourceMaps } from './source-maps.ts';
import { echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';

const url = argValue('url');
const impl = argValue('impl');
if (url === undefined) throw new RangeError('--url=nats://... is required');
if (impl !== 'rxmcp' && impl !== 'floor') throw new RangeError(`--impl must be rxmcp or floor, got ${String(impl)}`);

interface Server {
  serve(): Promise<void>;
  pause(): Promise<void>;
  readonly serving: boolean;
}

async function rxmcpServer(nc: NatsConnection): Promise<Server> {
  const { createServer } = await import('../index.ts');
  const { serveNats } = await import('../transports/nats/index.ts');
  const name = argValue('name') ?? 'bench';
  const server = createServer(serverInfo);
  server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
  let serving: Awaited<ReturnType<typeof serveNats>> | undefined;
  return {
    get serving() {
      return serving !== undefined;
    },
    async serve() {
      serving ??= await serveNats(server, { connection: nc, name });
    },
    async pause() {
      const was = serving;
      serving = undefined;
      await was?.close('end');
    },
  };
}

function floorServer(nc: NatsConnection): Server {
  const subject = argValue('subject') ?? 'bench.floor.echo';
  let subscription: Subscription | undefined;
  return {
    get serving() {
      return subscription !== undefined;
    },
    async serve() {
      subscription ??= nc.subscribe(subject, { queue: 'floor', callback: (error, m) => void (error === null && m.respond(m.data)) });
      await nc.flush();
    },
    async pause() {
      subscription?.unsubscribe();
      subscription = undefined;
      await nc.flush();
    },
  };
}

const nc = await connect({ servers: url, name: `bench-${impl}-${process.pid}` });
const server = impl === 'rxmcp' ? await rxmcpServer(nc) : floorServer(nc);
if (hasFlag('serve')) await server.serve();
const say = (): void => void process.stdout.write(`@@ ${JSON.stringify({ pid: process.pid, serving: server.serving })}\n`);
say();

// One command at a time, in order.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const word = line.trim();
  queue = queue.then(async () => {
    if (word === 'serve') await server.serve();
    else if (word === 'pause') await server.pause();
    else throw new RangeError(`unknown command ${JSON.stringify(word)}`);
    say();
  });
});
lines.once('close', () => {
  queue = queue.then(async () => {
    await server.pause();
    await nc.close();
    const maps = argValue('source-maps');
    if (maps !== undefined) dumpSourceMaps(maps);
    process.exit(0);
  });
});
