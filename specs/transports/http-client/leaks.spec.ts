/**
 * Resource hygiene under load: 64 requests in flight and 1,000 sequential ones leave no listener, timer or
 * socket behind beyond the keep-alive pool, and close releases the pool.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { Agent } from 'node:http';
import type { Socket } from 'node:net';
import { after, test } from 'node:test';
import { type Json, closeAllMockServers, startMockServer } from '../../support/http-mock-server.ts';
import { connect, finish, sumTool, textOf, until } from './helpers.ts';

after(closeAllMockServers);

/** The transport's bookkeeping (internal, read for the leak checks only). */
function bookkeeping(transport: object): { active: number; cursors: number; owed: number } {
  const inner = transport as { engine: { inFlight: number }; cursors: Set<unknown>; owed: Map<unknown, unknown> };
  return { active: inner.engine.inFlight, cursors: inner.cursors.size, owed: inner.owed.size };
}

/** Active handles and requests by type (TCPSocketWrap, Timeout, ...). */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function socketsOf(agent: Agent): Socket[] {
  const all: Socket[] = [];
  for (const group of [agent.sockets, agent.freeSockets]) for (const list of Object.values(group)) all.push(...((list ?? []) as Socket[]));
  return all;
}

const LISTENED = ['data', 'end', 'error', 'close', 'timeout', 'free', 'agentRemove'] as const;

function listenerCounts(sockets: readonly Socket[]): number[] {
  return sockets.map((socket) => LISTENED.reduce((sum, event) => sum + socket.listenerCount(event), 0));
}

test('http client - 64 requests in flight: all answered, the pool bounded, nothing left after close', async () => {
  const before = resources();
  let waiting: Array<() => void> = [];
  const mock = await startMockServer({
    answer: 'sse',
    tools: {
      barrier: async () => {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length === 64) for (const release of waiting.splice(0)) release();
        });
        return { content: [{ type: 'text', text: 'through' }] };
      },
    },
  });
  const connected = await connect(mock);
  const signal = new AbortController().signal;
  const results = await Promise.all(Array.from({ length: 64 }, () => connected.session.callTool('barrier', {}, { signal })));
  assert.ok(results.every((result) => textOf(result) === 'through'));
  assert.equal(getEventListeners(signal, 'abort').length, 0, 'no listener left on the shared signal');
  await until(() => bookkeeping(connected.transport).cursors === 0, 'every POST stream to end');
  assert.deepEqual(bookkeeping(connected.transport), { active: 0, cursors: 0, owed: 0 }, 'no request, stream or debt left');
  assert.ok(mock.connections() <= 64 + 16 + 1, `at most the pools' sockets (${mock.connections()})`);
  await connected.session.close();
  await until(() => mock.connections() === 0, 'every socket to be closed');
  waiting = [];
  await finish(mock);
  await until(() => (resources().get('TCPSocketWrap') ?? 0) <= (before.get('TCPSocketWrap') ?? 0), 'the sockets to be released');
  assert.ok((resources().get('Timeout') ?? 0) <= (before.get('Timeout') ?? 0), 'no timer left');
});

test('http client - 1,000 sequential requests reuse keep-alive sockets and leak no listener, timer or socket', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const mock = await startMockServer({ answer: 'json', tools: { add: sumTool } });
  const connected = await connect(mock, { transport: { agent, openGetStream: false } });
  const signal = new AbortController().signal;
  for (let i = 0; i < 10; i++) await connected.session.callTool('add', { a: i, b: 1 }, { signal });
  const warm = resources();
  const warmSockets = socketsOf(agent);
  const warmListeners = listenerCounts(warmSockets);
  const warmConnections = mock.connections();
  for (let i = 0; i < 1000; i++) {
    const result = await connected.session.callTool('add', { a: i, b: 1 }, { signal });
    if (i % 250 === 0) assert.equal(textOf(result), String(i + 1));
  }
  assert.equal(getEventListeners(signal, 'abort').length, 0, 'no listener left on the shared signal');
  const after = resources();
  assert.equal(after.get('TCPSocketWrap') ?? 0, warm.get('TCPSocketWrap') ?? 0, 'no socket opened beyond the pool');
  assert.ok((after.get('Timeout') ?? 0) <= (warm.get('Timeout') ?? 0), `no timer left (${after.get('Timeout') ?? 0} vs ${warm.get('Timeout') ?? 0})`);
  assert.equal(mock.connections(), warmConnections, 'the same connections, reused');
  const sockets = socketsOf(agent);
  assert.deepEqual(sockets, warmSockets, 'the same sockets');
  assert.deepEqual(listenerCounts(sockets), warmListeners, 'no listener added to a pooled socket');
  assert.ok(mock.posts('tools/call').length === 1010);
  assert.deepEqual(bookkeeping(connected.transport), { active: 0, cursors: 0, owed: 0 }, 'no request left in the bookkeeping');
  await connected.session.close();
  assert.ok(socketsOf(agent).length <= warmSockets.length, 'a caller-owned agent is left to its owner');
  agent.destroy();
  await finish(mock);
});

test('http client - close with requests still running aborts them and frees every socket', async () => {
  const mock = await startMockServer({ answer: 'sse', tools: { hang: () => new Promise<Json>(() => undefined) } });
  const connected = await connect(mock);
  const calls = Array.from({ length: 8 }, () => connected.session.callTool('hang').catch((error: unknown) => error));
  await until(() => mock.posts('tools/call').length === 8, 'the calls to arrive');
  await connected.session.close();
  for (const error of await Promise.all(calls)) assert.equal((error as { code?: string }).code, 'ConnectionClosed');
  await until(() => mock.connections() === 0, 'every socket to be closed');
  await finish(mock);
});
