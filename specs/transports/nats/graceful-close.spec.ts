/**
 * Graceful close of `serveNats` with real processes on a real nats-server: the closing process answers the
 * requests it runs (and only those), another process takes the new calls and the legacy session over.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type NatsClient, answerOf, connectClient, natsConnection, startServerProcess, stopAll } from './nats-processes.ts';

const NAME = 'graceful';
const SILENCE_MS = 3000;

let nats: NatsServerProcess;
const connections: NatsConnection[] = [];
const clients: NatsClient[] = [];

describe('NATS graceful close: in-flight requests answered, new work and the legacy session move on', { timeout: 90_000 }, () => {
  before(async () => {
    nats = await startNatsServer({ jetstream: true });
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await stopAll();
    await nats[Symbol.asyncDispose]();
  });

  test('a process closing gracefully answers its 5 running calls; a second process takes new calls and the session', async () => {
    const first = await startServerProcess(nats.url, NAME);
    const connection = await natsConnection(nats.url, 'graceful-client');
    connections.push(connection);
    // Only the first process serves yet: the legacy session is its own.
    const legacy = await connectClient(connection, NAME, 'legacy', SILENCE_MS);
    clients.push(legacy);
    const modern = await connectClient(connection, NAME, 'modern', SILENCE_MS);
    clients.push(modern);
    assert.equal(answerOf(await legacy.session.callTool('whoami', {})).pid, first.pid);
    const second = await startServerProcess(nats.url, NAME);

    const running = Array.from({ length: 5 }, (_, index) => legacy.session.callTool('slow', { ms: 600 + index * 50 }));
    // All five reached the first process (they are running there) before it is told to stop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const stopping = first.command('shutdown 10000', 15_000);
    const answers = await Promise.all(running);
    for (const [index, result] of answers.entries()) {
      assert.deepEqual(answerOf(result), { pid: first.pid, slept: 600 + index * 50 }, `call ${index} was answered by the process that ran it`);
    }
    // New modern calls meanwhile go to the other process.
    assert.equal(answerOf(await modern.session.callTool('whoami', {})).pid, second.pid);
    await stopping;
    await first.exited;
    assert.ok(Date.now() - started < 10_000, 'the close ended once the calls were answered, not at the deadline');
    // The legacy session lives on: the second process takes it over at its next request, without a new initialize.
    const initializes = legacy.sent.filter((method) => method === 'initialize').length;
    assert.equal(answerOf(await legacy.session.callTool('whoami', {})).pid, second.pid);
    assert.equal(legacy.sent.filter((method) => method === 'initialize').length, initializes, 'no new initialize');
  });

  test('a call outlasting the deadline gets the shutdown error, not silence', async () => {
    const first = await startServerProcess(nats.url, `${NAME}-deadline`);
    const connection = await natsConnection(nats.url, 'graceful-deadline-client');
    connections.push(connection);
    const legacy = await connectClient(connection, `${NAME}-deadline`, 'legacy', SILENCE_MS);
    clients.push(legacy);
    const call = legacy.session.callTool('slow', { ms: 60_000 }).then(
      () => assert.fail('the call cannot succeed'),
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await first.command('shutdown 300', 15_000);
    const error = (await call) as { code?: unknown; message?: unknown };
    assert.equal(error.code, -32603);
    assert.match(String(error.message), /^The server shut down before tools\/call \(request \d+\) finished: the shutdown deadline of 300 ms passed$/);
  });
});
