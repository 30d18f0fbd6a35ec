/**
 * A request log and a message tap, in one process (an in-memory transport pair).
 *
 * - `requestLog({ logger })` is an interceptor: one structured entry per request when it ends (method, target,
 *   ids, era, principal, duration, outcome). Any logger with pino's `logger.info(entry, message)` shape fits:
 *   here a pino logger writing JSON lines (to a stream read back below; in production, stdout or a transport);
 *   `console` fits too (`requestLog({ logger: console })` prints each entry as an object and its message).
 * - `server.messages$` taps every frame in and out of every session while observed, for audit and debugging;
 *   unobserved it costs nothing.
 *
 * Run: node request-log.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createClient, createServer, requestLog } from 'rxmcp';
import { createMemoryPair } from 'rxmcp/testing';

const server = createServer({ name: 'request-log-example', version: '1.0.0' });
server.tool({ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, (args) =>
  String(Number(args['a']) + Number(args['b'])),
);

// pino writing JSON lines; here to a stream this example reads back.
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
server.use(requestLog({ logger: pino({ base: { service: 'calculator' } }, sink) }));

// The message tap: every frame in and out, with its direction and time.
const frames: string[] = [];
const tap = server.messages$.subscribe(({ direction, payload }) => {
  const message = payload as { method?: string; result?: unknown };
  frames.push(`${direction} ${message.method ?? (message.result !== undefined ? 'result' : 'error')}`);
});

const [clientEnd, serverEnd] = createMemoryPair();
server.accept(serverEnd);
const session = await createClient({ name: 'example-client', version: '1.0.0', era: 'legacy' }).connect(clientEnd);
const result = await session.callTool('add', { a: 2, b: 3 });
assert.equal((result.content[0] as { text: string }).text, '5');

const entry = JSON.parse(lines[0] as string) as Record<string, unknown>;
console.log('request log:', lines[0]);
assert.equal(entry['msg'], 'tools/call add');
assert.equal(entry['outcome'], 'ok');
assert.equal(entry['service'], 'calculator');
assert.equal(typeof entry['durationMs'], 'number');

console.log('frames:', frames.join(', '));
assert.deepEqual(frames, ['in initialize', 'out result', 'in notifications/initialized', 'in tools/call', 'out result']);

tap.unsubscribe();
await session.close();
await server.close();
