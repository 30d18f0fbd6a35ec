/**
 * A server process of bench/task-notices.ts: a modern-era `createServer()` whose tasks live in a JetStream KV task
 * store shared with the other processes of the run (`createJetStreamTaskStore`, memory storage), served by
 * `serveNats(server, { connection, name })`. Each process serves a name of its own, so the bench knows which
 * process runs a task and which serves a listen; the store is what joins them. A benchmark program.
 *
 *   node --import tsx bench/task-notices-server.ts --url=nats://127.0.0.1:<port> --name=<server name> --bucket=<bucket>
 *
 * Tool `emit` (runs only as a task): waits for the `go` command, then logs `count` info messages (its argument),
 * each a task notice (`notifications/message`) for the listens following the task, then completes.
 *
 * Prints `@@ {"pid":...}` once serving; then one-word commands on stdin, each answered by an `@@` line: `go` (the
 * waiting `emit` tasks start logging; answered once they have all logged). Stdin closed: stops, exits.
 */
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { createServer } from '../index.ts';
import { createJetStreamTaskStore, serveNats } from '../transports/nats/index.ts';
import { argValue } from './lib.ts';

const url = argValue('url');
const name = argValue('name');
const bucket = argValue('bucket');
if (url === undefined || name === undefined || bucket === undefined) throw new RangeError('--url=nats://..., --name=... and --bucket=... are required');

const nc = await connect({ servers: url, name: `task-notices-${name}` });
const store = await createJetStreamTaskStore({ connection: nc, bucket, storage: 'memory' });
const server = createServer({ name: 'task-notices-bench', version: '1.0.0', eras: 'modern', modern: { tasks: { store } } });
let waiting: Array<() => void> = [];
let logging: Array<Promise<void>> = [];
server.tool(
  { name: 'emit', inputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] }, execution: { taskSupport: 'required' } },
  async (args, ctx) => {
    await new Promise<void>((resolve) => waiting.push(resolve));
    const count = Number((args as { count?: unknown }).count);
    let done!: () => void;
    logging.push(new Promise<void>((resolve) => (done = resolve)));
    for (let i = 0; i < count; i++) {
      ctx.log('info', { i });
      // A breath every 256 messages: the connection's writes go out as they would under a real handler.
      if (i % 256 === 255) await new Promise((resolve) => setImmediate(resolve));
    }
    done();
    return `logged ${count}`;
  },
);
const serving = await serveNats(server, { connection: nc, name });
const say = (value: object): void => void process.stdout.write(`@@ ${JSON.stringify(value)}\n`);
say({ pid: process.pid, runnerId: store.runnerId });

let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const word = line.trim();
  queue = queue.then(async () => {
    if (word === 'go') {
      const released = waiting;
      waiting = [];
      for (const resolve of released) resolve();
      // The handlers start on the next turn: wait for each to be under way, then for all to have logged.
      await new Promise((resolve) => setImmediate(resolve));
      const started = logging;
      logging = [];
      await Promise.all(started);
      await nc.flush();
      say({ released: released.length });
    } else {
      say({ error: `unknown command ${word}` });
    }
  });
});
lines.once('close', () => {
  queue = queue.then(async () => {
    await serving.close('end', { drainMs: 1_000 });
    store.close();
    await nc.close();
    process.exit(0);
  });
});
