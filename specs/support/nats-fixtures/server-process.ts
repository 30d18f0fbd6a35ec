/**
 * A real MCP server process on NATS for the NATS specs: `createServer` + `serveNats`. Run as
 *   node --import tsx server-process.ts <nats url[,url...]> <server name>
 * Several URLs (the nodes of a cluster) are tried in the order given, first one first, and failed over to.
 * Environment (all optional): KEEPALIVE_MS (default 200), OWNER_PING_MS (default 300), ERAS (default `both`),
 * MAX_SUBSCRIPTIONS (resource subscriptions per session, default the server's), REPLICAS (copies of the
 * session records' KV bucket in a JetStream cluster, default 1), ELECTION_RETRY_MS (how long its JetStream calls
 * keep trying while a stream has no leader, default the binding's).
 *
 * Tools (every result's text is JSON naming the process that answered):
 *   whoami            {"pid"}
 *   echo {text}       {"pid","text"}
 *   slow {ms}         waits `ms` (aborts with the request), then {"pid","slept"}
 *   ticks {count,ms}  progress 1..count, one every `ms` (aborts with the request), then {"pid","ticks"}
 * Resource `test://status` (text: this pid).
 *
 * stdout: `node <server_name>`, the nats-server node it is connected to (again after each reconnection), and
 * `ready <pid> <binding process id>` once serveNats resolved; then one `ok <command>` per command done,
 * `nats <event>` for each event of its NATS connection (`nats disconnect`, `nats reconnect`), and
 * `state-warning <kind> <session id>` for each session state warning of the binding, and `roots-changed` for each
 * `notifications/roots/list_changed` a session of this process received.
 * stdin, one command a line:
 *   add-tool <name>           registers a tool (a list change every process serving the name hears)
 *   resource-updated <uri>    announces that a resource changed
 *   log <level> <text>        `server.log(level, text)` to every session whose level lets it through
 *   shutdown <drainMs>        closes the binding gracefully (handover), prints `ok shutdown <drainMs>`, exits 0
 * The process exits when its stdin closes (so it never outlives the spec that started it).
 */
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import { interval, map, take } from 'rxjs';
import { isLoggingLevel } from '../../../core/protocol/logging.ts';
import { createServer } from '../../../server/create-server.ts';
import { serveNats } from '../../../transports/nats/index.ts';

const [url, name] = process.argv.slice(2);
if (url === undefined || name === undefined) {
  console.error('usage: server-process.ts <nats url> <server name>');
  process.exit(2);
}
const keepaliveMs = Number(process.env['KEEPALIVE_MS'] ?? 200);
const ownerPingMs = Number(process.env['OWNER_PING_MS'] ?? 300);
const eras = (process.env['ERAS'] ?? 'both') as 'both' | 'legacy' | 'modern';

const maxSubscriptions = process.env['MAX_SUBSCRIPTIONS'];
const replicas = process.env['REPLICAS'];
const electionRetryMs = process.env['ELECTION_RETRY_MS'];
const server = createServer({
  name: 'nats-fixture',
  version: '1.0.0',
  eras,
  ...(maxSubscriptions === undefined ? {} : { maxSubscriptionsPerSession: Number(maxSubscriptions) }),
  onRootsListChanged: () => console.log('roots-changed'),
});
const said = (fields: Record<string, unknown>): string => JSON.stringify({ pid: process.pid, ...fields });

server.tool({ name: 'whoami' }, () => said({}));
server.tool(
  { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  ({ text }) => said({ text }),
);
server.tool(
  { name: 'slow', inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] } },
  ({ ms }, context) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve(said({ slept: ms })), Number(ms));
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    }),
);
// A long request whose SSE stream carries events over time (numbers are progress, the last value the answer).
server.tool(
  { name: 'ticks', inputSchema: { type: 'object', properties: { count: { type: 'number' }, ms: { type: 'number' } }, required: ['count', 'ms'] } },
  ({ count, ms }) => interval(Number(ms)).pipe(take(Number(count) + 1), map((n) => (n < Number(count) ? n + 1 : said({ ticks: count })))),
);
server.resource({ uri: 'test://status', name: 'status' }, () => ({ contents: [{ uri: 'test://status', text: String(process.pid) }] }));

const servers = url.split(',');
const connection = await connect({ servers, noRandomize: servers.length > 1, name: `fixture-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
const serving = await serveNats(server, { connection, name, keepaliveMs, sessionRecords: { ...(replicas === undefined ? {} : { replicas: Number(replicas) }), ...(electionRetryMs === undefined ? {} : { electionRetryMs: Number(electionRetryMs) }) }, sessions: { ownerPingMs, onStateWarning: (warning) => console.log(`state-warning ${warning.kind} ${warning.sessionId}`) } });
console.log(`node ${connection.info?.server_name ?? ''}`);
console.log(`ready ${process.pid} ${serving.processId}`);
// Connection events (`nats disconnect`, `nats reconnect`, ...), so a spec can wait until this process is back.
void (async () => {
  for await (const status of connection.status()) {
    console.log(`nats ${status.type}`);
    if (status.type === 'reconnect') console.log(`node ${connection.info?.server_name ?? ''}`);
  }
})();

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [command, argument, text] = line.trim().split(/\s+/);
  if (command === 'add-tool' && argument !== undefined) {
    server.tool({ name: argument }, () => said({ tool: argument }));
  } else if (command === 'resource-updated' && argument !== undefined) {
    server.notifyResourceUpdated(argument);
  } else if (command === 'log' && isLoggingLevel(argument) && text !== undefined) {
    server.log(argument, text);
  } else if (command === 'shutdown' && argument !== undefined) {
    void serving.close('handover', { drainMs: Number(argument) }).then(async () => {
      await connection.drain();
      console.log(`ok ${line.trim()}`);
      process.exit(0);
    });
    return;
  } else {
    console.error(`unknown command: ${line}`);
    return;
  }
  // The change is published on NATS; flush so it has left this process before the spec is told.
  connection.flush().then(
    () => console.log(`ok ${line.trim()}`),
    (error: unknown) => console.error(`flush failed: ${String(error)}`),
  );
});
lines.on('close', () => process.exit(0));
