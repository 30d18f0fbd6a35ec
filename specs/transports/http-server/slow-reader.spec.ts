/**
 * The slow reader: a client that reads nothing while a tool streams 1 GiB of notifications (16,384 logging
 * messages of 64 KiB, each a fresh string) over Streamable HTTP on real sockets. The server's memory stays
 * bounded (sampled while the tool runs) and the session ends as its host's backpressure policy says:
 * - `close`: dropped with a SlowConsumer error once its outbound queue overflows;
 * - `pause`: the tool is held (it awaits `whenWritable`) and, the client still reading nothing, the session
 *   is dropped once it stalled for `stallTimeoutMs`; a client that does read gets the whole gibibyte, in order.
 * Another session on the same server keeps working throughout.
 *
 * Bounded means: the peak growth of the heap plus external memory is a small fraction of what the tool offered,
 * set by the queue bound (frames x 64 KiB), the event store's per-session bound and the socket buffers.
 *
 * @own-process: measures the process's retained memory while 1 GiB streams
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { type TestContext, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BackpressureOptions } from '../../../core/backpressure.ts';
import { isLocalError } from '../../../core/errors.ts';
import { createServer } from '../../../server/create-server.ts';
import { type HostEvent, createSessionHost } from '../../../server/session-host.ts';
import type { McpSession } from '../../../session/session-core.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { eventually } from '../../support/harness.ts';
import { RawMcp } from '../../support/http-raw-client.ts';

const CHUNK = 64 * 1024;
const GIB = 1024 ** 3;
const CHUNKS = GIB / CHUNK;
const MIB = 1024 ** 2;
/** Raw sockets the tests opened, destroyed when each test ends (whether it passed or not). */
const sockets = new Set<Socket>();

// What is retained, not garbage a lazy collector has not reclaimed yet: each sample follows a full collection.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function memoryNow(): number {
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
}

/**
 * Peak growth of retained memory over a baseline, sampled every 250 ms until stopped, and stopped when the test
 * ends whatever its outcome: each sample is a full collection, and one left running after a failed test would keep
 * the process alive (and busy) for ever. Sampling more often spends the test's time collecting, not streaming.
 */
function sampleMemory(t: TestContext): { stop(): number } {
  const baseline = memoryNow();
  let peak = baseline;
  const timer = setInterval(() => (peak = Math.max(peak, memoryNow())), 250);
  timer.unref();
  t.after(() => clearInterval(timer));
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, memoryNow()) - baseline;
    },
  };
}

async function setUp(t: TestContext, backpressure: BackpressureOptions, maxOutboundQueue: number) {
  const server = createServer({ name: 'firehose', version: '1' });
  const progress = { offered: 0 };
  server.tool({ name: 'firehose', inputSchema: { type: 'object' } }, async (_args, context) => {
    for (let i = 0; i < CHUNKS && !context.signal.aborted; i++) {
      if (backpressure.policy === 'pause') await context.whenWritable();
      else if (i % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
      // A fresh 64 KiB string each time: nothing shared that would make a queue look cheaper than it is.
      context.log('info', { chunk: i, data: String.fromCharCode(97 + (i % 26)).repeat(CHUNK) });
      progress.offered += CHUNK;
    }
    return { content: [{ type: 'text', text: `offered ${progress.offered} bytes` }] };
  });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => ({ content: [{ type: 'text', text: String(args.text) }] }));
  const host = createSessionHost(server, { backpressure, session: { limits: { maxOutboundQueue } } });
  const events: HostEvent[] = [];
  host.events$.subscribe((event) => events.push(event));
  const http = createStreamableHttpServer({ server: host });
  const listening = await http.listen(0, '127.0.0.1');
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await http.close();
    await listening.close();
    await host.close();
  });
  return { host, listening, progress, events };
}

/** Opens a session, sets the log level, and sends the tools/call on a raw socket it does not read. */
async function slowClient(url: string): Promise<{ socket: Socket; session: RawMcp }> {
  const session = new RawMcp(url);
  await session.initialize();
  await session.call('logging/setLevel', { level: 'info' });
  const target = new URL(url);
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  sockets.add(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'firehose', arguments: {} } });
  const headers = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Mcp-Session-Id: ${session.sessionId ?? ''}`,
    `MCP-Protocol-Version: ${session.revision ?? ''}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
  return { socket, session };
}

async function echoWorks(url: string): Promise<void> {
  const other = new RawMcp(url);
  await other.initialize();
  const { response } = await other.call('tools/call', { name: 'echo', arguments: { text: 'still here' } });
  assert.deepEqual((response['result'] as { content: unknown }).content, [{ type: 'text', text: 'still here' }]);
}

function hostSession(host: { sessions: ReadonlySet<McpSession> }, except: ReadonlySet<McpSession>): McpSession | undefined {
  return [...host.sessions].find((s) => !except.has(s));
}

test('slow reader, policy close - 1 GiB offered to a client reading nothing: memory stays bounded and the session is dropped (SlowConsumer)', { timeout: 60_000 }, async (t) => {
  const { listening, progress, events } = await setUp(t, { policy: 'close', slowAfterFrames: 32 }, 256);
  const memory = sampleMemory(t);
  await slowClient(listening.url);
  await eventually(() => events.some((e) => e.type === 'dropped'), 30_000, 'the slow session to be dropped');
  const growth = memory.stop();
  t.diagnostic(`peak retained growth ${(growth / MIB).toFixed(1)} MiB; ${(progress.offered / MIB).toFixed(0)} MiB offered before the drop`);
  const dropped = events.find((e) => e.type === 'dropped') as Extract<HostEvent, { type: 'dropped' }>;
  assert.ok(isLocalError(dropped.reason, 'SlowConsumer'));
  assert.match(dropped.reason.message, /outbound queue is full \(maxOutboundQueue: 256 frames\)/);
  assert.ok(progress.offered < GIB / 4, `the tool stopped early: ${(progress.offered / MIB).toFixed(0)} MiB offered of 1024`);
  // 256 queued frames x 64 KiB = 16 MiB, the event store's 4 Mi characters, socket buffers: well under 128 MiB.
  assert.ok(growth < 128 * MIB, `peak memory growth ${(growth / MIB).toFixed(1)} MiB`);
  assert.ok(events.some((e) => e.type === 'slow'), 'a slow-consumer event came first');
  await echoWorks(listening.url);
});

test('slow reader, policy pause - the tool is held while nothing is read, and the stalled session is dropped after stallTimeoutMs', { timeout: 60_000 }, async (t) => {
  const { listening, progress, events } = await setUp(t, { policy: 'pause', slowAfterFrames: 32, stallTimeoutMs: 1_500 }, 256);
  const memory = sampleMemory(t);
  await slowClient(listening.url);
  await eventually(() => events.some((e) => e.type === 'slow'), 10_000, 'the session to turn slow');
  const heldAt = progress.offered;
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(progress.offered, heldAt, 'the producer is held');
  assert.ok(progress.offered < 64 * MIB, `held early: ${(progress.offered / MIB).toFixed(0)} MiB offered`);
  await echoWorks(listening.url);
  await eventually(() => events.some((e) => e.type === 'dropped'), 10_000, 'the stalled session to be dropped');
  const growth = memory.stop();
  t.diagnostic(`peak retained growth ${(growth / MIB).toFixed(1)} MiB; ${(progress.offered / MIB).toFixed(0)} MiB offered while held`);
  const dropped = events.find((e) => e.type === 'dropped') as Extract<HostEvent, { type: 'dropped' }>;
  assert.match(dropped.reason.message, /read nothing for 1500 ms/);
  assert.ok(growth < 96 * MIB, `peak memory growth ${(growth / MIB).toFixed(1)} MiB`);
});

test('slow reader, policy pause - a client that reads late gets the whole gibibyte in order, with memory bounded all along', { timeout: 120_000 }, async (t) => {
  const { host, listening, progress } = await setUp(t, { policy: 'pause', slowAfterFrames: 32, stallTimeoutMs: 30_000 }, 256);
  const before = new Set(host.sessions);
  const memory = sampleMemory(t);
  const { socket } = await slowClient(listening.url);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(progress.offered < 64 * MIB, `held while unread: ${(progress.offered / MIB).toFixed(0)} MiB offered`);
  assert.ok(hostSession(host, before)?.isSlow, 'the session counts as a slow consumer');

  // Now read everything: count the chunks' events in order and wait for the answer.
  let received = 0;
  let expected = 0;
  let outOfOrder = 0;
  let answered = false;
  let pending = '';
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => {
    received += text.length;
    pending += text;
    const cut = pending.lastIndexOf('\n\n');
    if (cut < 0) return;
    const complete = pending.slice(0, cut);
    pending = pending.slice(cut + 2);
    for (const match of complete.matchAll(/"chunk":(\d+)/g)) {
      if (Number(match[1]) !== expected) outOfOrder += 1;
      expected += 1;
    }
    if (complete.includes('"id":99')) answered = true;
  });
  socket.resume();
  const started = Date.now();
  await eventually(() => answered, 100_000, 'the tool to finish');
  const growth = memory.stop();
  t.diagnostic(`1 GiB read in ${Date.now() - started} ms; peak retained growth ${(growth / MIB).toFixed(1)} MiB`);
  assert.equal(expected, CHUNKS, 'every chunk arrived');
  assert.equal(outOfOrder, 0, 'in order');
  assert.ok(received > GIB, `a gibibyte and its framing crossed the socket: ${(received / MIB).toFixed(0)} MiB`);
  assert.ok(growth < 128 * MIB, `peak memory growth ${(growth / MIB).toFixed(1)} MiB while 1 GiB went through`);
});
