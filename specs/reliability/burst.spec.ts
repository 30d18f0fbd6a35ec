/**
 * Every request answered under a burst far past the server's in-flight cap, on every medium a client reaches the
 * server through: memory, Streamable HTTP (both eras, real sockets), NATS (both eras, a real nats-server) and the
 * gateway (HTTP in front of NATS). Each call settles exactly once, with its result or the refusal that names the
 * bound and its value; the client hears no answer twice; and once the load falls the same session serves again.
 * (stdio, where the burst once hung the process, has its own spec with a real child: stdio-burst.spec.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ClientSession } from '../../client/session-api.ts';
import { createServer, type McpServer } from '../../server/create-server.ts';
import { createGateway } from '../../cli/gateway/gateway.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';
import { createNatsClientTransport, serveNats } from '../../transports/nats/index.ts';
import { type Tally, burstCalls, withClient } from '../support/burst.ts';
import { type NatsServerProcess, startNatsServer } from '../support/nats-server.ts';

const CAP = 32;
const CALLS = 400;
const SLOW_MS = 300;

function burstServer(): McpServer {
  const server = createServer({ name: 'burst', version: '1.0.0', session: { limits: { maxIncomingInFlight: CAP } } });
  server.tool({ name: 'slow' }, () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), SLOW_MS)));
  return server;
}

const burst = (client: ClientSession): Promise<Tally> => burstCalls(client, { calls: CALLS, cap: CAP });

test('burst - memory: 400 calls at once against a cap of 32, every one answered exactly once, then served again', async () => {
  const server = burstServer();
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  await withClient(clientEnd, 'legacy', async (client) => {
    const tally = await burst(client);
    assert.ok(tally.refusals > 0, 'the cap was hit and named');
  });
  await server.close();
});

describe('burst - Streamable HTTP on real sockets', () => {
  const server = burstServer();
  const http = createStreamableHttpServer({ server, path: '/mcp' });
  let url = '';
  before(async () => {
    url = (await http.listen(0, '127.0.0.1')).url;
  });
  after(async () => {
    await http.close();
    await server.close();
  });

  test('legacy era: one session, every call answered exactly once, the cap named, then served again', async () => {
    await withClient(createStreamableHttpClientTransport(url), 'legacy', async (client) => {
      const tally = await burst(client);
      assert.ok(tally.refusals > 0, 'the cap was hit and named');
    });
  });

  test('2026-07-28 era: every call answered exactly once, then served again', async () => {
    await withClient(createStreamableHttpClientTransport(url), 'modern', async (client) => {
      assert.equal(client.session.era, 'modern');
      await burst(client);
    });
  });
});

describe('burst - NATS with a real nats-server', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const server = burstServer();
  let stopServing: (() => Promise<void>) | undefined;
  const open = async (): Promise<NatsConnection> => {
    const connection = await connect({ servers: nats.url });
    connections.push(connection);
    return connection;
  };

  before(async () => {
    nats = await startNatsServer();
    const serving = await serveNats(server, { connection: await open(), name: 'burst', lanes: { limits: { maxIncomingInFlight: CAP } } });
    stopServing = () => serving.close();
  });
  after(async () => {
    await stopServing?.();
    await server.close();
    for (const connection of connections) await connection.close();
    await nats.dispose();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`${era} era: every call answered exactly once, the cap named, then served again`, async () => {
      await withClient(createNatsClientTransport({ connection: await open(), name: 'burst' }), era, async (client) => {
        assert.equal(client.session.era, era);
        const tally = await burst(client);
        assert.ok(tally.refusals > 0, 'the cap was hit and named');
      });
    });
  }

  test('gateway: HTTP in front of NATS, every call answered exactly once, then served again', async () => {
    const gateway = await createGateway({ connection: await open(), name: 'burst' });
    try {
      const listening = await gateway.http.listen(0, '127.0.0.1');
      await withClient(createStreamableHttpClientTransport(listening.url), 'legacy', async (client) => {
        const tally = await burst(client);
        assert.ok(tally.refusals > 0, 'the cap was hit and named');
      });
    } finally {
      await gateway.close();
    }
  });
});
