/**
 * A real modern-era MCP server process whose tasks live in a JetStream KV task store, for the specs of tasks
 * across processes. Run as
 *   node --import tsx task-server-process.ts <nats url> <server name> <bucket>
 *
 * Tool `ask` (runs only as a task): elicits a name with the message `name? <pid>` (so whoever sees the input
 * request knows which process runs the task), then answers `{"pid","name"}`.
 *
 * With NATS_USER and NATS_PASSWORD in its environment it connects as that user (specs of permissions).
 *
 * stdout: `ready <pid> <binding process id> <task runner id>` once serving; `ok <command>` per command done.
 * stdin: `leave` stops serving the binding (this process leaves the queue group: the others get every request
 * from now on) but keeps running its tasks and answering for them. The process exits when its stdin closes.
 */
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { createJetStreamTaskStore, serveNats } from '../../../transports/nats/index.ts';

const [url, name, bucket] = process.argv.slice(2);
if (url === undefined || name === undefined || bucket === undefined) {
  console.error('usage: task-server-process.ts <nats url> <server name> <bucket>');
  process.exit(2);
}

const user = process.env['NATS_USER'];
const pass = process.env['NATS_PASSWORD'];
const connection = await connect({ servers: url, name: `task-fixture-${process.pid}`, ...(user === undefined || pass === undefined ? {} : { user, pass }) });
const store = await createJetStreamTaskStore({ connection, bucket, storage: 'memory', recheckMs: 300, forwardTimeoutMs: 5000 });
const server = createServer({ name: 'task-fixture', version: '1.0.0', eras: 'modern', modern: { tasks: { store, pollIntervalMs: 200 } } });
server.tool({ name: 'ask', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
  ctx.signal.addEventListener('abort', () => console.log('aborted'), { once: true });
  const answer = await ctx.elicit({ message: `name? ${process.pid}`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
  return JSON.stringify({ pid: process.pid, name: answer.content?.['name'] ?? null });
});
const serving = await serveNats(server, { connection, name });
console.log(`ready ${process.pid} ${serving.processId} ${store.runnerId}`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'leave') {
    void serving.close('handover', { drainMs: 0 }).then(() => console.log('ok leave'));
  } else {
    console.error(`unknown command: ${line}`);
  }
});
lines.on('close', () => process.exit(0));
