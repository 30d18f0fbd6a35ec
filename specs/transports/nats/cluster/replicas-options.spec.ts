/**
 * The replicas options on a real 3-node JetStream cluster: each bucket and stream the NATS binding, the
 * claim-check and the gateway create gets the copies asked for (and one copy when nothing is asked); the CLI's
 * `--js-replicas` and comma-separated `--nats` lists reach them.
 *
 * @serial: a 3-node JetStream cluster, whose Raft elections and JetStream API timeouts need the cores in time
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { parseGatewayArgs } from '../../../../cli/gateway/command.ts';
import { createGateway } from '../../../../cli/gateway/gateway.ts';
import { connectNats } from '../../../../cli/bridge/connect.ts';
import { parseServeArgs } from '../../../../cli/serve.ts';
import { createServer } from '../../../../server/create-server.ts';
import { serveNats } from '../../../../transports/nats/index.ts';
import { type NatsCluster, startNatsCluster } from '../../../support/nats-cluster.ts';

let cluster: NatsCluster;
const connections: NatsConnection[] = [];

async function replicasOf(connection: NatsConnection, stream: string): Promise<number> {
  return (await (await jetstreamManager(connection)).streams.info(stream)).config.num_replicas;
}

describe('NATS cluster: replicas of the JetStream buckets and streams', { timeout: 60_000 }, () => {
  before(async () => {
    cluster = await startNatsCluster();
  });

  after(async () => {
    await Promise.allSettled(connections.map((made) => made.close()));
    await cluster.dispose();
  });

  test('serveNats: the session records and the claim-check bucket get their replicas; one copy by default', async () => {
    const connection = await connect({ servers: [...cluster.urls] });
    connections.push(connection);
    const server = createServer({ name: 'replicas', version: '1.0.0' });
    const three = await serveNats(server, { connection, name: 'three', sessionRecords: { replicas: 3 }, claimCheck: { bucket: 'claims_three', replicas: 3 } });
    const one = await serveNats(createServer({ name: 'replicas', version: '1.0.0' }), { connection, name: 'one', claimCheck: { bucket: 'claims_one' } });
    try {
      assert.equal(await replicasOf(connection, 'KV_mcp_sessions_three'), 3);
      assert.equal(await replicasOf(connection, 'OBJ_claims_three'), 3);
      assert.equal(await replicasOf(connection, 'KV_mcp_sessions_one'), 1);
      assert.equal(await replicasOf(connection, 'OBJ_claims_one'), 1);
    } finally {
      await three.close('end', { drainMs: 0 });
      await one.close('end', { drainMs: 0 });
    }
  });

  test('the gateway: its session bucket and event stream get `replicas`; the CLI flags reach it', async () => {
    const args = parseGatewayArgs(['--name', 'gw', '--nats', cluster.urls.join(','), '--js-replicas', '3', '--port', '0']);
    assert.equal(args?.replicas, 3);
    assert.throws(() => parseGatewayArgs(['--name', 'gw', '--js-replicas', 'three']), /--js-replicas must be a positive integer/);
    assert.equal(parseServeArgs(['--nats', cluster.urls.join(','), '--js-replicas', '3'])?.nats?.replicas, 3);
    assert.throws(() => parseServeArgs(['--js-replicas', '3']), /is for serving on NATS/);
    // The comma-separated list is the cluster's nodes (taken whole, it is no URL at all).
    const connection = await connectNats(args?.nats.url ?? '', 'replicas-spec');
    connections.push(connection);
    assert.ok(cluster.nodes.some((node) => node.name === connection.info?.server_name), `connected to a node of the list (${String(connection.info?.server_name)})`);
    const gateway = await createGateway({ connection, name: 'gw', replicas: args?.replicas ?? 1 });
    try {
      assert.equal(await replicasOf(connection, 'KV_mcp_gateway_gw'), 3);
      assert.equal(await replicasOf(connection, 'MCP_GATEWAY_EVENTS_gw'), 3);
    } finally {
      await gateway.close({ drainMs: 0 });
    }
  });
});
