/**
 * The gateway's readiness follows its NATS connection (a real nats-server with JetStream on a free port): 200
 * while connected, 503 naming the NATS connection while the server is stopped (liveness stays 200), 200 again
 * once the client reconnected, and 503 once the connection is closed. An operator's own check still applies
 * while NATS is up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { type Gateway, createGateway } from '../../../cli/gateway/gateway.ts';
import type { ListeningServer } from '../../../transports/http/index.ts';
import { type RawReply, asBody, rawRequest } from '../../support/http-raw-client.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';

const NAME = 'gw-readiness';

function probe(url: string): Promise<RawReply> {
  return rawRequest(url).then(asBody);
}

/** Polls the probe until its status is `status`; returns that answer. */
async function probeUntil(url: string, status: number, ms = 10_000): Promise<RawReply> {
  const deadline = Date.now() + ms;
  for (;;) {
    const reply = await probe(url);
    if (reply.status === status) return reply;
    if (Date.now() > deadline) assert.fail(`${url} did not answer ${status} within ${ms} ms; last: ${reply.status} ${reply.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('gateway readiness', () => {
  let nats: NatsServerProcess;
  let connection: NatsConnection;
  let gateway: Gateway;
  let listening: ListeningServer;
  let origin: string;
  let extraReason: string | undefined;

  before(async () => {
    nats = await startNatsServer();
    connection = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    gateway = await createGateway({ connection, name: NAME, http: { health: { readiness: () => extraReason } } });
    listening = await gateway.http.listen(0, '127.0.0.1');
    origin = new URL(listening.url).origin;
  });

  after(async () => {
    await listening?.close();
    await gateway?.close({ drainMs: 0 });
    if (connection !== undefined && !connection.isClosed()) await connection.close();
    await nats?.dispose();
  });

  test('gateway - ready while NATS is up; 503 naming the NATS connection while it is down; ready again after the reconnect', async () => {
    const ready = await probe(`${origin}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json, { status: 'ready' });

    await nats.kill();
    const down = await probeUntil(`${origin}/readyz`, 503);
    assert.deepEqual(down.json, { status: 'unavailable', reason: 'the NATS connection is down (reconnecting)' });
    const live = await probe(`${origin}/healthz`);
    assert.equal(live.status, 200, 'the process is alive: an orchestrator must not restart it for a NATS outage');

    await nats.start();
    const back = await probeUntil(`${origin}/readyz`, 200);
    assert.deepEqual(back.json, { status: 'ready' });
  });

  test("gateway - the operator's readiness check applies on top of the NATS connection's", async () => {
    extraReason = 'maintenance window';
    try {
      const reply = await probe(`${origin}/readyz`);
      assert.equal(reply.status, 503);
      assert.deepEqual(reply.json, { status: 'unavailable', reason: 'maintenance window' });
    } finally {
      extraReason = undefined;
    }
    assert.equal((await probe(`${origin}/readyz`)).status, 200);
  });

  test('gateway - a closed NATS connection is not ready', async () => {
    await connection.close();
    const closed = await probe(`${origin}/readyz`);
    assert.equal(closed.status, 503);
    assert.deepEqual(closed.json, { status: 'unavailable', reason: 'the NATS connection is closed' });
  });
});
