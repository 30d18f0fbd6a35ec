/**
 * The message tap: `session.messages$` and `server.messages$` see every frame in and out, in order, with the
 * session's clock; nothing is tapped while nobody observes, and unsubscribing takes the tap out again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import { type Clock, systemClock } from '../../core/clock.ts';
import type { McpSession } from '../../session/session-core.ts';
import type { SessionMessage } from '../../session/message-tap.ts';
import { createServer } from '../../server/create-server.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { eventually } from '../support/harness.ts';

/** A clock whose `now` counts up by one per reading: the tap's times must come from it. */
function countingClock(): Clock & { readonly readings: number } {
  let tick = 1000;
  return {
    now: () => ++tick,
    setTimeout: systemClock.setTimeout,
    setInterval: systemClock.setInterval,
    get readings() {
      return tick - 1000;
    },
  };
}

function echoServer(clock?: Clock) {
  const server = createServer({ name: 'tapped', version: '1', ...(clock === undefined ? {} : { session: { clock } }) });
  server.tool({ name: 'echo', inputSchema: { type: 'object' } }, (args) => JSON.stringify(args));
  return server;
}

/** `direction method-or-answer` for each message, batches spelled out. */
function describeMessages(messages: readonly SessionMessage<McpSession>[]): string[] {
  return messages.map(({ direction, payload }) => {
    const record = payload as { method?: string; id?: unknown; result?: unknown; error?: unknown };
    const what = record.method ?? (record.error !== undefined ? "error" : "result");
    return `${direction} ${what}`;
  });
}

/** Whether the session holds a tap (the one field its hot paths check, in its writer). */
function tapped(session: McpSession): boolean {
  return (session as unknown as { writer: { tap?: unknown } }).writer.tap !== undefined;
}

describe('session.messages$', () => {
  test('memory: every frame in and out, in order, with times from the session clock; unsubscribing releases the tap', async () => {
    const clock = countingClock();
    const server = echoServer(clock);
    const [clientEnd, serverEnd] = createMemoryPair();
    const serverSession = server.accept(serverEnd);
    assert.equal(tapped(serverSession), false, 'nothing before anyone subscribes');
    const seen: SessionMessage<McpSession>[] = [];
    const subscription = serverSession.messages$.subscribe((message) => seen.push(message));
    assert.equal(tapped(serverSession), true);
    const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(clientEnd);
    await client.callTool('echo', { a: 1 });
    await eventually(() => seen.length === 5, 1000, 'five frames');
    assert.deepEqual(describeMessages(seen), [
      'in initialize',
      'out result',
      'in notifications/initialized',
      'in tools/call',
      'out result',
    ]);
    assert.ok(seen.every((message) => message.session === serverSession));
    const times = seen.map((message) => message.at);
    assert.ok(times.every((at, index) => at > 1000 && at <= 1000 + clock.readings && (index === 0 || at > (times[index - 1] as number))), `clock times in order: ${times.join(',')}`);
    assert.deepEqual((seen[3]?.payload as { params?: unknown }).params, { name: 'echo', arguments: { a: 1 } });

    subscription.unsubscribe();
    assert.equal(tapped(serverSession), false, 'the last unsubscription takes the tap out');
    await client.callTool('echo', { a: 2 });
    assert.equal(seen.length, 5, 'nothing after unsubscribing');

    // Two observers share one tap; the session closing completes both and releases it.
    const first: string[] = [];
    let completed = 0;
    serverSession.messages$.subscribe({ next: (message) => first.push(message.direction), complete: () => completed++ });
    serverSession.messages$.subscribe({ complete: () => completed++ });
    await client.callTool('echo', { a: 3 });
    await eventually(() => first.length === 2, 1000, 'two more frames');
    await client.close();
    await eventually(() => completed === 2, 1000, 'both observers completed');
    assert.equal(tapped(serverSession), false);
    let late = false;
    serverSession.messages$.subscribe({ complete: () => (late = true) });
    assert.equal(late, true, 'a closed session completes at once');
    await server.close();
  });

  test('the client side taps its own session: out before in', async () => {
    const server = echoServer();
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(clientEnd);
    const seen: SessionMessage<McpSession>[] = [];
    const subscription = client.session.messages$.subscribe((message) => seen.push(message));
    await client.callTool('echo', {});
    assert.deepEqual(describeMessages(seen), ['out tools/call', 'in result']);
    subscription.unsubscribe();
    await client.close();
    await server.close();
  });
});

describe('session.messages$ and batches', () => {
  test('a batch (2025-03-26) passes as one payload each way', async () => {
    const server = echoServer();
    const [clientEnd, serverEnd] = createMemoryPair();
    const session = server.accept(serverEnd);
    const seen: SessionMessage<McpSession>[] = [];
    const subscription = session.messages$.subscribe((message) => seen.push(message));
    const answers: unknown[] = [];
    clientEnd.incoming$.subscribe((frame) => {
      if (frame.type === 'message') answers.push(frame.payload);
    });
    const initialize = { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '0' } };
    await clientEnd.send({ payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize } });
    await eventually(() => answers.length === 1, 1000, 'initialized');
    await clientEnd.send({ payload: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    const batch = [
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ] as const;
    await clientEnd.send({ payload: batch });
    await eventually(() => answers.length === 2, 1000, 'the batch answered');
    const last = seen.slice(-2);
    assert.deepEqual(last.map((message) => [message.direction, Array.isArray(message.payload)]), [['in', true], ['out', true]]);
    assert.deepEqual(last[0]?.payload, batch);
    assert.deepEqual(last[1]?.payload, answers[1]);
    subscription.unsubscribe();
    await clientEnd.close();
    await server.close();
  });
});

describe('server.messages$', () => {
  test('memory: merges the sessions open when subscribed and those accepted later; unsubscribing untaps them all', async () => {
    const server = echoServer();
    const connect = async () => {
      const [clientEnd, serverEnd] = createMemoryPair();
      const session = server.accept(serverEnd);
      return { session, client: await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(clientEnd) };
    };
    const early = await connect();
    assert.equal(tapped(early.session), false);
    const seen: SessionMessage<McpSession>[] = [];
    const subscription = server.messages$.subscribe((message) => seen.push(message));
    assert.equal(tapped(early.session), true);
    const late = await connect();
    await early.client.callTool('echo', { from: 'early' });
    await late.client.callTool('echo', { from: 'late' });
    const bySession = (session: McpSession) => describeMessages(seen.filter((message) => message.session === session));
    assert.deepEqual(bySession(early.session), ['in tools/call', 'out result']);
    assert.deepEqual(bySession(late.session), ['in initialize', 'out result', 'in notifications/initialized', 'in tools/call', 'out result']);
    subscription.unsubscribe();
    assert.equal(tapped(early.session), false);
    assert.equal(tapped(late.session), false);
    const count = seen.length;
    await early.client.callTool('echo', {});
    assert.equal(seen.length, count, 'nothing after unsubscribing');
    // Observed again: taps again.
    const again: string[] = [];
    const second = server.messages$.subscribe((message) => again.push(message.direction));
    await late.client.callTool('echo', {});
    assert.deepEqual(again, ['in', 'out']);
    second.unsubscribe();
    await early.client.close();
    await late.client.close();
    await server.close();
  });

  test('memory, modern era: the requests of a connection without a handshake, each with its answer', async () => {
    const server = echoServer();
    const seen: SessionMessage<McpSession>[] = [];
    const subscription = server.messages$.subscribe((message) => seen.push(message));
    const [clientEnd, serverEnd] = createMemoryPair();
    server.accept(serverEnd);
    const client = await createClient({ name: 'c', version: '1', era: 'modern' }).connect(clientEnd);
    const before = seen.length;
    await client.callTool('echo', { era: 'modern' });
    await eventually(() => seen.length === before + 2, 1000, 'the call and its answer');
    assert.deepEqual(describeMessages(seen.slice(before)), ['in tools/call', 'out result']);
    assert.ok(seen.every((message) => message.session.era === 'modern'));
    subscription.unsubscribe();
    await client.close();
    await server.close();
  });

  test('Streamable HTTP (a real socket), legacy era: the server sees every frame of the session in order', async () => {
    const server = echoServer();
    const http = createStreamableHttpServer({ server });
    const { url } = await http.listen();
    const seen: SessionMessage<McpSession>[] = [];
    const subscription = server.messages$.subscribe((message) => seen.push(message));
    try {
      const client = await createClient({ name: 'c', version: '1', era: 'legacy' }).connect(createStreamableHttpClientTransport(url));
      await client.callTool('echo', { over: 'http' });
      await eventually(() => seen.length === 5, 1000, 'five frames');
      assert.deepEqual(describeMessages(seen), ['in initialize', 'out result', 'in notifications/initialized', 'in tools/call', 'out result']);
      assert.equal(new Set(seen.map((message) => message.session)).size, 1);
      await client.close();
    } finally {
      subscription.unsubscribe();
      await http.close();
      await server.close();
    }
  });
});
