/**
 * One slow SSE reader does not hold its session's other streams (HTTP head-of-line). A Streamable HTTP session
 * transport holds back each exchange alone (`flowPerExchange`): the session's writer queues the frames of a stream
 * whose client stopped reading, in order, and sends every other stream's frames on (actors/outbound-writer.ts).
 * Real sockets on 127.0.0.1; the client stops reading one POST's stream, or the standalone GET stream, while a
 * tool fills it with far more than the socket buffers hold.
 *
 * Every queue stays bounded, and a stream that stays full ends, saying why, within a bound: a legacy stream is cut
 * off after `sse.drainTimeoutMs` (its queue is bounded by the session's `maxOutboundQueue` meanwhile); a modern
 * answer stream, whose writes nothing waits for, once `sse.maxBufferedBytes` wait for its client. The session's
 * diagnostics say it (`stream-cut`), and the session goes on.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SessionDiagnostic } from '../../../actors/session-context.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { createSessionHost } from '../../../server/session-host.ts';
import type { McpSession } from '../../../session/session-core.ts';
import { type StreamableHttpServerOptions, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { deferred, eventually } from '../../support/harness.ts';
import { RawMcp, type SseReply, asStream } from '../../support/http-raw-client.ts';
import { ModernHttp } from './modern/modern-http.ts';

const CHUNK = 64 * 1024;
/** 600 x 64 KiB: far more than loopback socket buffers hold, fewer frames than the outbound queue's 1024. */
const FLOOD = 600;
const chunk = (index: number): string => String.fromCharCode(97 + (index % 26)).repeat(CHUNK);

interface Setup {
  readonly url: string;
  readonly sessions: () => McpSession[];
  readonly diagnostics: SessionDiagnostic[];
  /** Resolves with the abort reason of the `firehose` tool's run. */
  readonly firehoseAborted: Promise<unknown>;
  readonly dropped: () => number;
}

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers.splice(0)) await close();
});

/** `flood {count}` logs `count` chunks at once; `firehose` logs a chunk per turn until aborted; `echo`. */
function floodingServer(firehoseAborted: (reason: unknown) => void): McpServer {
  const server = createServer({ name: 'stream-isolation', version: '1.0.0' });
  server.tool({ name: 'flood', inputSchema: { type: 'object', properties: { count: { type: 'integer' } } } }, (args, ctx) => {
    for (let index = 0; index < Number(args['count']); index++) ctx.log('info', { index, data: chunk(index) });
    return 'flooded';
  });
  server.tool({ name: 'firehose' }, async (_args, ctx) => {
    for (let index = 0; !ctx.signal.aborted; index++) {
      ctx.log('info', { index, data: chunk(index) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    firehoseAborted(ctx.signal.reason);
    return 'stopped';
  });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => `echo: ${String(args['text'])}`);
  return server;
}

async function setUp(options: Partial<StreamableHttpServerOptions> = {}): Promise<Setup> {
  const aborted = deferred<unknown>();
  const server = floodingServer((reason) => aborted.resolve(reason));
  const host = createSessionHost(server);
  const diagnostics: SessionDiagnostic[] = [];
  const watching = server.sessions$.subscribe((event) => {
    if (event.type === 'opened') event.session.diagnostics$.subscribe((diagnostic) => diagnostics.push(diagnostic));
  });
  const http = createStreamableHttpServer({ server: host, ...options });
  const listening = await http.listen(0);
  closers.push(async () => {
    watching.unsubscribe();
    await listening.close();
    await http.close();
    await host.close({ drainMs: 0 });
  });
  return { url: listening.url, sessions: () => [...host.sessions], diagnostics, firehoseAborted: aborted.promise, dropped: () => host.metrics().dropped };
}

async function legacySession(url: string): Promise<RawMcp> {
  const mcp = new RawMcp(url);
  await mcp.initialize();
  await mcp.call('logging/setLevel', { level: 'info' });
  return mcp;
}

function only(sessions: McpSession[]): McpSession {
  assert.equal(sessions.length, 1, 'one session');
  return sessions[0] as McpSession;
}

async function echo(mcp: RawMcp, text: string): Promise<string> {
  const { response } = await mcp.call('tools/call', { name: 'echo', arguments: { text } });
  return String((response['result'] as { content: Array<{ text: string }> }).content[0]?.text);
}

/** The `index` of every log message a stream carried, in the order they came. */
function logIndexes(stream: SseReply): number[] {
  return stream.messages().flatMap((message) => {
    const params = (message as { method?: string; params?: { data?: { index?: number } } }).params;
    return (message as { method?: string }).method === 'notifications/message' && typeof params?.data?.index === 'number' ? [params.data.index] : [];
  });
}

describe('http server: a stream its client does not read holds back no other stream of its session', () => {
  test('a POST stream left unread: another request of the session is answered meanwhile; read later, the flood arrives whole and in order', { timeout: 60_000 }, async () => {
    const setup = await setUp({ sse: { drainTimeoutMs: 30_000 } });
    const mcp = await legacySession(setup.url);
    const session = only(setup.sessions());
    const id = mcp.id();
    const flooded = asStream(await mcp.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'flood', arguments: { count: FLOOD } } }));
    flooded.pause();
    await eventually(() => session.queuedFrames > 0, 10_000, 'the unread stream to hold frames back');
    assert.equal(await echo(mcp, 'meanwhile'), 'echo: meanwhile');
    assert.ok(session.queuedFrames > 0, 'answered while the unread stream still held frames back');
    flooded.resume();
    await flooded.done;
    assert.deepEqual(logIndexes(flooded), Array.from({ length: FLOOD }, (_, index) => index), 'every log message, in order');
    assert.ok(flooded.messages().some((message) => (message as { id?: unknown }).id === id), 'then the answer');
    assert.equal(setup.dropped(), 0);
    assert.deepEqual(setup.diagnostics.filter((diagnostic) => diagnostic.type === 'stream-cut'), []);
  });

  test('the standalone GET stream left unread: a request of the session is answered meanwhile', { timeout: 60_000 }, async () => {
    const setup = await setUp({ sse: { drainTimeoutMs: 30_000 } });
    const mcp = await legacySession(setup.url);
    const session = only(setup.sessions());
    const standalone = asStream(await mcp.get());
    standalone.pause();
    for (let index = 0; index < FLOOD; index++) session.notify('notifications/message', { level: 'info', data: { index, data: chunk(index) } });
    await eventually(() => session.queuedFrames > 0, 10_000, 'the unread GET stream to hold frames back');
    assert.equal(await echo(mcp, 'meanwhile'), 'echo: meanwhile');
    assert.ok(session.queuedFrames > 0, 'answered while the GET stream still held frames back');
    standalone.resume();
    await eventually(() => logIndexes(standalone).length === FLOOD, 20_000, 'the GET stream to deliver everything');
    assert.deepEqual(logIndexes(standalone), Array.from({ length: FLOOD }, (_, index) => index));
    standalone.close();
  });

  test('a legacy stream that stays full is cut off after sse.drainTimeoutMs, saying so; its queue drains and the session goes on', { timeout: 60_000 }, async () => {
    const setup = await setUp({ sse: { drainTimeoutMs: 300 } });
    const mcp = await legacySession(setup.url);
    const session = only(setup.sessions());
    // Two unread streams at once: their frames count against one bound (the outbound queue's 1024), so half each.
    const flooded = asStream(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'tools/call', params: { name: 'flood', arguments: { count: FLOOD / 2 } } }));
    flooded.pause();
    const standalone = asStream(await mcp.get());
    standalone.pause();
    for (let index = 0; index < FLOOD / 2; index++) session.notify('notifications/message', { level: 'info', data: { index, data: chunk(index) } });
    await eventually(() => setup.diagnostics.filter((diagnostic) => diagnostic.type === 'stream-cut').length === 2, 10_000, 'both unread streams to be cut off');
    for (const diagnostic of setup.diagnostics.filter((found) => found.type === 'stream-cut')) {
      assert.match(diagnostic.detail, /read nothing for 300 ms while its buffer was full \(sse\.drainTimeoutMs\)/);
    }
    // Read on: what reached this end before the cut comes, then the connection's end (a reset, not an ending).
    flooded.resume();
    standalone.resume();
    assert.equal(await flooded.done, 'closed');
    assert.equal(await standalone.done, 'closed');
    await eventually(() => session.queuedFrames === 0, 10_000, 'the held-back frames to drain (into the store)');
    assert.equal(await echo(mcp, 'after'), 'echo: after');
    assert.equal(setup.dropped(), 0, 'the session was not dropped');
  });

  test('a modern answer stream that stays full is cut off once sse.maxBufferedBytes wait for it: its request is cancelled, saying so', { timeout: 60_000 }, async () => {
    const setup = await setUp({ sse: { maxBufferedBytes: 1024 * 1024, drainTimeoutMs: 30_000 } });
    const modern = new ModernHttp(setup.url);
    const firehose = asStream(await modern.post('tools/call', { name: 'firehose', arguments: {} }, { logLevel: 'info' }));
    firehose.pause();
    const reason = await setup.firehoseAborted;
    assert.match(String((reason as Error).message), /client closed the request stream/, 'cancelled as a closed stream is');
    const cut = setup.diagnostics.find((diagnostic) => diagnostic.type === 'stream-cut');
    assert.match(cut?.detail ?? '', /more than 1048576 characters waited for it \(sse\.maxBufferedBytes\)/);
    const { response } = await modern.call('tools/call', { name: 'echo', arguments: { text: 'next' } });
    assert.equal((response['result'] as { content: Array<{ text: string }> }).content[0]?.text, 'echo: next');
    firehose.close();
  });
});
