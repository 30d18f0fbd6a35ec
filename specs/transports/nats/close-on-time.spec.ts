/**
 * `serveNats(...).close()` ends on time against a real nats-server: within 1 s with nothing in flight (a
 * legacy session and a modern lane open), within `drainMs` and 1 s more with a call outlasting the drain
 * (answered with the error naming the deadline), and the same once the NATS server is killed: the connection
 * reconnecting forever no longer holds the close (a subscription's drain waited for a flush nats.js fails only
 * at its next reconnection attempt, 2 s later by default).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type NatsClient, connectClient, until } from './nats-processes.ts';

const NAME = 'close-on-time';
const DRAIN_MS = 1000;

interface Setup extends AsyncDisposable {
  readonly nats: NatsServerProcess;
  readonly serving: NatsServing;
  readonly serverConnection: NatsConnection;
  readonly clients: readonly NatsClient[];
  /** Whether `wait` runs (its handler started and is not done). */
  running(): number;
}

async function setup(): Promise<Setup> {
  const nats = await startNatsServer();
  const server = createServer({ name: NAME, version: '1.0.0' });
  let running = 0;
  server.tool({ name: 'wait', inputSchema: { type: 'object' } }, (_args, context) => {
    running++;
    return new Promise<string>((_resolve, reject) => context.signal.addEventListener('abort', () => {
      running--;
      reject(context.signal.reason);
    }));
  });
  // nats.js's own pause between reconnection attempts (2 s): what a flush waits for while the server is gone.
  const serverConnection = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 2000 });
  const serving = await serveNats(server, { connection: serverConnection, name: NAME });
  const clientConnections = await Promise.all([0, 1].map(() => connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 })));
  const clients = [await connectClient(clientConnections[0] as NatsConnection, NAME, 'legacy', 10_000), await connectClient(clientConnections[1] as NatsConnection, NAME, 'modern', 10_000)];
  return {
    nats,
    serving,
    serverConnection,
    clients,
    running: () => running,
    async [Symbol.asyncDispose]() {
      await Promise.allSettled(clients.map((client) => client.session.close()));
      await serving.close('end', { drainMs: 0 });
      await Promise.allSettled([serverConnection, ...clientConnections].map((connection) => connection.close()));
      await nats.dispose();
    },
  };
}

async function timedClose(serving: NatsServing, drainMs: number): Promise<number> {
  const started = performance.now();
  await serving.close('end', { drainMs });
  return performance.now() - started;
}

const settle = (promise: Promise<unknown>): Promise<string> => promise.then((result) => JSON.stringify(result), (error: unknown) => String(error));

describe('NATS server: close() ends on time', { timeout: 60_000 }, () => {
  test('nothing in flight, a legacy session and a modern lane open: within 1 s', async (t) => {
    await using served = await setup();
    for (const client of served.clients) await client.session.listTools();
    const ms = await timedClose(served.serving, 10_000);
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < 1000, `closed in ${Math.round(ms)} ms`);
  });

  test('calls outlasting drainMs, in both eras: answered with the deadline error, within the drain + 1 s', async (t) => {
    await using served = await setup();
    const calls = served.clients.map((client) => settle(client.session.callTool('wait', {}, { timeoutMs: 20_000 })));
    await until(() => served.running() === 2, 'both calls running', 5000);
    const ms = await timedClose(served.serving, DRAIN_MS);
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < DRAIN_MS + 1000, `closed in ${Math.round(ms)} ms`);
    for (const outcome of await Promise.all(calls)) assert.match(outcome, /1000 ms/, 'the error names the deadline');
  });

  test('the NATS server killed, nothing in flight: within 1 s', async (t) => {
    await using served = await setup();
    for (const client of served.clients) await client.session.listTools();
    await served.nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ms = await timedClose(served.serving, 10_000);
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < 1000, `closed in ${Math.round(ms)} ms`);
  });

  test('the NATS server killed with calls in flight: within the drain + 1 s, and nothing is left waiting', async (t) => {
    await using served = await setup();
    for (const client of served.clients) void settle(client.session.callTool('wait', {}, { timeoutMs: 20_000 }));
    await until(() => served.running() === 2, 'both calls running', 5000);
    await served.nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ms = await timedClose(served.serving, DRAIN_MS);
    t.diagnostic(`closed in ${Math.round(ms)} ms`);
    assert.ok(ms < DRAIN_MS + 1000, `closed in ${Math.round(ms)} ms`);
    assert.deepEqual(served.serving.counts(), { sessions: 0, lanes: 0, inFlight: 0, held: 0 });
  });
});
