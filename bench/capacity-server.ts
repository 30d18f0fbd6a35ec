/**
 * The server process of bench/capacity.ts: `createServer()` (both eras) with the echo tool and one subscribable
 * resource (`mem://doc`), served by `serveNats(server, { connection, name })` with its defaults (legacy session
 * records in JetStream KV on). A benchmark program.
 *
 *   node --expose-gc --import tsx bench/capacity-server.ts --url=nats://127.0.0.1:<port> --name=<server name>
 *
 * Prints `@@ {"pid":...,"processId":...}` once serving; then one-word commands on stdin, each answered by an `@@`
 * line: `measure` (settle, gc twice: heapUsed, rss, the binding's counts), `handover` (`serving.close('handover')`:
 * it stops serving and leaves its legacy sessions' records for another process to take over). Stdin closed: stops
 * (`close('end')` unless handed over), closes its connection, exits.
 */
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { createServer } from '../index.ts';
import { serveNats } from '../transports/nats/index.ts';
import { echo, type EchoArgs, echoJsonSchema, serverInfo } from './echo-tool.ts';
import { argValue } from './lib.ts';
import { gcTwice, settleLong } from './scale-lib.ts';

export const DOC_URI = 'mem://doc';

const url = argValue('url');
if (url === undefined) throw new RangeError('--url=nats://... is required');
const nc = await connect({ servers: url, name: `capacity-server-${process.pid}` });
const server = createServer(serverInfo);
server.tool({ name: 'echo', inputSchema: echoJsonSchema() }, (a) => echo(a as unknown as EchoArgs));
server.resource({ uri: DOC_URI, name: 'doc', mimeType: 'text/plain' }, () => 'doc');
const serving = await serveNats(server, { connection: nc, name: argValue('name') ?? 'capacity' });
let handedOver = false;
const say = (value: object): void => void process.stdout.write(`@@ ${JSON.stringify(value)}\n`);
say({ pid: process.pid, processId: serving.processId });

let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const word = line.trim();
  queue = queue.then(async () => {
    if (word === 'measure') {
      await settleLong();
      gcTwice();
      const { heapUsed, rss } = process.memoryUsage();
      say({ heapUsed, rss, ...serving.counts(), serverSessions: server.sessions.size });
    } else if (word === 'handover') {
      handedOver = true;
      await serving.close('handover', { drainMs: 1_000 });
      await nc.flush();
      say({ handedOver: true });
    } else {
      say({ error: `unknown command ${word}` });
    }
  });
});
lines.once('close', () => {
  queue = queue.then(async () => {
    if (!handedOver) await serving.close('end', { drainMs: 1_000 });
    await nc.close();
    process.exit(0);
  });
});
