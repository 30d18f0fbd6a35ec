/**
 * A client whose NATS connection is down for a moment (nats.js reconnecting) loses nothing it sends meanwhile:
 * its requests wait for the connection (bounded by `reconnectWaitMs`) and are answered once it is back; one that
 * waited longer fails saying it was not sent; with `reconnectWaitMs: 0` it fails at once. In both eras, with a
 * real nats-server and a proxy in front of the client's connection that cuts it off (the server's stays up).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { type NatsServing, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type CuttableProxy, cuttableProxy } from './cuttable-proxy.ts';
import { type NatsClient, answerOf, connectClient, until } from './nats-processes.ts';

const NAME = 'reconnect-wait';

let nats: NatsServerProcess;
let serving: NatsServing;
const connections: NatsConnection[] = [];
const clients: NatsClient[] = [];
const proxies: CuttableProxy[] = [];

/** A client of `era` whose connection goes through a proxy, and whether that connection is down now. */
async function cuttableClient(era: 'legacy' | 'modern', reconnectWaitMs?: number): Promise<{ readonly client: NatsClient; readonly proxy: CuttableProxy; readonly down: () => boolean }> {
  const proxy = await cuttableProxy(nats.port);
  proxies.push(proxy);
  const connection = await connect({ servers: proxy.url, name: `${NAME}-${era}`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(connection);
  let down = false;
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') down = true;
      if (status.type === 'reconnect') down = false;
    }
  })();
  const client = await connectClient(connection, NAME, era, 10_000, reconnectWaitMs);
  clients.push(client);
  return { client, proxy, down: () => down };
}

/** A client of `era` that was answered, then cut off: its connection is down now. */
async function cutOffClient(era: 'legacy' | 'modern', reconnectWaitMs?: number): ReturnType<typeof cuttableClient> {
  const cut = await cuttableClient(era, reconnectWaitMs);
  assert.equal(await echo(cut.client, 'before'), 'before');
  cut.proxy.cut();
  await until(cut.down, 'the client saw its connection drop', 5000);
  return cut;
}

async function echo(client: NatsClient, text: string): Promise<string> {
  return String(answerOf(await client.session.callTool('echo', { text }, { timeoutMs: 10_000 }))['text']);
}

describe('NATS client: requests sent while its connection is reconnecting', { timeout: 60_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
    const server = createServer({ name: NAME, version: '1.0.0' });
    server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => JSON.stringify({ pid: process.pid, text }));
    const connection = await connect({ servers: nats.url, name: `${NAME}-server` });
    connections.push(connection);
    serving = await serveNats(server, { connection, name: NAME });
  });

  after(async () => {
    await Promise.allSettled(clients.map((client) => client.session.close()));
    await serving?.close('end', { drainMs: 0 });
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await Promise.allSettled(proxies.map((proxy) => proxy.close()));
    await nats?.dispose();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era}: what is sent while the connection is down waits, and is answered once it is back, in order`, async () => {
      const { client, proxy } = await cutOffClient(era);
      const settled: string[] = [];
      const calls = ['one', 'two', 'three'].map((text) => echo(client, text).then((answer) => void settled.push(answer)));
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(settled, [], 'nothing is answered (nor failed) while the connection is down');
      proxy.restore();
      await Promise.all(calls);
      assert.deepEqual(settled, ['one', 'two', 'three'], 'every request waited and was answered, in order');
      assert.equal(await echo(client, 'after'), 'after');
    });
  }

  test('a request that waits longer than reconnectWaitMs fails saying it was not sent; the session goes on', async () => {
    const { client, proxy, down } = await cutOffClient('legacy', 300);
    const started = Date.now();
    await assert.rejects(echo(client, 'lost'), (error: Error) => {
      assert.match(error.message, /NATS connection is down \(reconnecting\): the tools\/call request was not sent \(it waited 300 ms/);
      return true;
    });
    const waited = Date.now() - started;
    assert.ok(waited >= 290 && waited < 3000, `it failed after its wait (${waited} ms)`);
    proxy.restore();
    await until(() => !down(), 'the client reconnected', 5000);
    assert.equal(await echo(client, 'after'), 'after', 'the session works once the connection is back');
  });

  test('with reconnectWaitMs 0 a request made while the connection is down fails at once', async () => {
    const { client, proxy, down } = await cutOffClient('modern', 0);
    const started = Date.now();
    await assert.rejects(echo(client, 'lost'), /NATS connection is down \(reconnecting\): the tools\/call request was not sent$/);
    assert.ok(Date.now() - started < 250, 'at once');
    proxy.restore();
    await until(() => !down(), 'the client reconnected', 5000);
    assert.equal(await echo(client, 'after'), 'after');
  });
});
