/**
 * Backpressure: a client that stops reading never makes the server's memory grow without bound. The outbound
 * queue is bounded; the session reports a slow consumer; the policy decides between dropping the session
 * (`close`) and holding the producer back (`pause`, with progress merged), and a stalled peer is dropped either way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Observable, type Subscription } from 'rxjs';
import type { BackpressureOptions, FlowStatus } from '../../core/backpressure.ts';
import { isLocalError } from '../../core/errors.ts';
import type { InboundFrame } from '../../core/transport.ts';
import { createServer } from '../../server/create-server.ts';
import type { McpServer } from '../../server/create-server.ts';
import type { McpSession } from '../../session/session-core.ts';
import { type MemoryTransport, createMemoryPair } from '../../transports/memory/index.ts';
import { eventually } from '../support/harness.ts';
import { TestClock } from '../support/test-clock.ts';

interface RawPeer {
  readonly end: MemoryTransport;
  readonly session: McpSession;
  readonly frames: unknown[];
  pause(): void;
  resume(): void;
}

/** A raw client: the handshake, then reading only when told to. */
async function rawPeer(server: McpServer, backpressure: BackpressureOptions, extra: { clock?: TestClock; maxOutboundQueue?: number } = {}): Promise<RawPeer> {
  const [end, serverEnd] = createMemoryPair({ highWaterMark: 4 });
  const session = server.accept(serverEnd, {
    backpressure,
    ...(extra.clock === undefined ? {} : { clock: extra.clock }),
    ...(extra.maxOutboundQueue === undefined ? {} : { limits: { maxOutboundQueue: extra.maxOutboundQueue } }),
  });
  const frames: unknown[] = [];
  let reading: Subscription | undefined;
  const resume = (): void => {
    reading ??= end.incoming$.subscribe((frame: InboundFrame) => {
      if (frame.type === 'message') frames.push(frame.payload);
    });
  };
  resume();
  await end.send({ payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } } });
  await eventually(() => frames.length === 1, 1_000, 'the initialize answer');
  await end.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  await eventually(() => session.state === 'operating', 1_000, 'the session to operate');
  await end.send({ payload: { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } } });
  await eventually(() => frames.length === 2, 1_000, 'the setLevel answer');
  frames.length = 0;
  return {
    end,
    session,
    frames,
    pause: () => {
      reading?.unsubscribe();
      reading = undefined;
    },
    resume,
  };
}

const callTool = (peer: RawPeer, name: string, progressToken?: string): Promise<void> | void =>
  peer.end.send({ payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {}, ...(progressToken === undefined ? {} : { _meta: { progressToken } }) } } });

const methodOf = (payload: unknown): string | undefined => (payload as { method?: string }).method;
const isAnswer = (payload: unknown): boolean => (payload as { id?: unknown }).id === 7;

test('backpressure close - a client that reads nothing while a tool floods: the session is dropped (SlowConsumer), the queue never passes its bound', async () => {
  const server = createServer({ name: 'bp', version: '1' });
  let signal: AbortSignal | undefined;
  let sent = 0;
  let maxQueued = 0;
  const box: { session?: McpSession } = {};
  server.tool({ name: 'flood', inputSchema: { type: 'object' } }, async (_args, context) => {
    signal = context.signal;
    for (let i = 0; i < 100_000 && !context.signal.aborted; i++) {
      context.log('info', { line: i, text: 'x'.repeat(100) });
      sent += 1;
      maxQueued = Math.max(maxQueued, box.session?.queuedFrames ?? 0);
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    return { content: [] };
  });
  const peer = await rawPeer(server, { policy: 'close', slowAfterFrames: 16 }, { maxOutboundQueue: 200 });
  box.session = peer.session;
  const flow: FlowStatus[] = [];
  peer.session.flow$.subscribe((status) => flow.push(status));
  peer.pause();
  void callTool(peer, 'flood');
  const reason = await peer.session.closed;
  assert.ok(isLocalError(reason, 'SlowConsumer'), `closed for a slow consumer: ${String(reason)}`);
  assert.match(reason.message, /outbound queue is full \(maxOutboundQueue: 200 frames\)/);
  assert.ok(maxQueued <= 200, `queued at most the bound: ${maxQueued}`);
  assert.equal(flow[0]?.type, 'slow');
  await eventually(() => signal?.aborted === true, 1_000, 'the handler to be aborted');
  const sentAtClose = sent;
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(sent - sentAtClose <= 1, 'the producer stopped with the session');
  assert.ok(sent < 100_000, `the flood was cut short: ${sent} lines`);
});

test('backpressure pause - a producer awaiting whenWritable is held while the client reads nothing and resumes when it reads; every line arrives in order', async () => {
  const server = createServer({ name: 'bp', version: '1' });
  let produced = 0;
  let maxQueued = 0;
  const box: { session?: McpSession } = {};
  const lines = 3_000;
  server.tool({ name: 'stream', inputSchema: { type: 'object' } }, async (_args, context) => {
    for (let i = 0; i < lines; i++) {
      await context.whenWritable();
      context.log('info', { line: i });
      produced += 1;
      maxQueued = Math.max(maxQueued, box.session?.queuedFrames ?? 0);
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const peer = await rawPeer(server, { policy: 'pause', slowAfterFrames: 16, stallTimeoutMs: Infinity });
  box.session = peer.session;
  const flow: string[] = [];
  peer.session.flow$.subscribe((status) => flow.push(status.type));
  peer.pause();
  void callTool(peer, 'stream');
  await eventually(() => flow.includes('slow'), 1_000, 'the session to report a slow consumer');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const heldAt = produced;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(produced, heldAt, 'the producer is held while nothing is read');
  assert.ok(produced < lines, `held before the end: ${produced}`);
  assert.ok(peer.session.queuedFrames <= 16, `the queue stays at the slow mark: ${peer.session.queuedFrames}`);

  peer.resume();
  await eventually(() => peer.frames.some(isAnswer), 5_000, 'the tool to finish');
  assert.equal(produced, lines);
  assert.ok(maxQueued <= 16, `the queue never held more than the slow mark: ${maxQueued}`);
  const logged = peer.frames.filter((f) => methodOf(f) === 'notifications/message').map((f) => ((f as { params: { data: { line: number } } }).params.data.line));
  assert.deepEqual(logged, Array.from({ length: lines }, (_, i) => i), 'every line, in order');
  assert.ok(flow.includes('flowing'), 'the session reported it flows again');
  assert.equal(peer.session.state, 'operating');
  await peer.session.close();
});

test('backpressure pause - progress from an Observable handler is merged while the client is behind: fewer reports, increasing, the last one kept', async () => {
  const server = createServer({ name: 'bp', version: '1' });
  const steps = 5_000;
  server.tool({ name: 'count', inputSchema: { type: 'object' } }, () => new Observable((subscriber) => {
    for (let i = 1; i <= steps; i++) subscriber.next({ progress: i, total: steps });
    subscriber.next({ content: [{ type: 'text', text: 'counted' }] });
    subscriber.complete();
  }));
  const peer = await rawPeer(server, { policy: 'pause', slowAfterFrames: 8, stallTimeoutMs: Infinity });
  peer.pause();
  void callTool(peer, 'count', 'tok');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(peer.session.queuedFrames <= 10, `progress did not pile up: ${peer.session.queuedFrames} frames queued`);
  peer.resume();
  await eventually(() => peer.frames.some(isAnswer), 2_000, 'the answer');
  const progress = peer.frames.filter((f) => methodOf(f) === 'notifications/progress').map((f) => (f as { params: { progress: number } }).params.progress);
  assert.ok(progress.length < steps, `merged: ${progress.length} reports for ${steps} steps`);
  assert.ok(progress.every((p, i) => i === 0 || p > (progress[i - 1] as number)), 'still increasing');
  assert.equal(progress.at(-1), steps, 'the latest report survived');
  assert.ok(peer.frames.findIndex(isAnswer) > peer.frames.findLastIndex((f) => methodOf(f) === 'notifications/progress'), 'the result comes after every report');
  await peer.session.close();
});

test('backpressure pause - a client that stays stalled past stallTimeoutMs gets the session dropped; the waiting producer learns why', async () => {
  const clock = new TestClock();
  const server = createServer({ name: 'bp', version: '1' });
  let failure: unknown;
  server.tool({ name: 'stream', inputSchema: { type: 'object' } }, async (_args, context) => {
    try {
      for (let i = 0; ; i++) {
        await context.whenWritable();
        context.log('info', { line: i });
      }
    } catch (error) {
      failure = error;
      throw error;
    }
  });
  const peer = await rawPeer(server, { policy: 'pause', slowAfterFrames: 8, stallTimeoutMs: 5_000 }, { clock });
  peer.pause();
  void callTool(peer, 'stream');
  await eventually(() => peer.session.isSlow, 1_000, 'the session to turn slow');
  await clock.advanceAsync(4_000);
  assert.equal(peer.session.state, 'operating', 'not yet');
  await clock.advanceAsync(1_500);
  const reason = await peer.session.closed;
  assert.ok(isLocalError(reason, 'SlowConsumer'));
  assert.match(reason.message, /read nothing for 5000 ms/);
  await eventually(() => failure !== undefined, 1_000, 'the producer to be told');
  assert.ok(isLocalError(failure), `whenWritable rejected with the reason: ${String(failure)}`);
});

test('backpressure - a slow reader that keeps reading is not dropped: the stall clock restarts whenever it reads', async () => {
  const clock = new TestClock();
  const server = createServer({ name: 'bp', version: '1' });
  const lines = 400;
  server.tool({ name: 'stream', inputSchema: { type: 'object' } }, async (_args, context) => {
    for (let i = 0; i < lines; i++) {
      await context.whenWritable();
      context.log('info', { line: i });
    }
    return { content: [] };
  });
  const peer = await rawPeer(server, { policy: 'pause', slowAfterFrames: 8, stallTimeoutMs: 1_000 }, { clock });
  peer.pause();
  void callTool(peer, 'stream');
  // Read a little every 900 ms of simulated time: always under the stall timeout.
  for (let round = 0; round < 200 && !peer.frames.some(isAnswer); round++) {
    await clock.advanceAsync(900);
    peer.resume();
    await new Promise((resolve) => setImmediate(resolve));
    peer.pause();
  }
  peer.resume();
  await eventually(() => peer.frames.some(isAnswer), 2_000, 'the answer');
  assert.equal(peer.session.state, 'operating');
  await peer.session.close();
});
