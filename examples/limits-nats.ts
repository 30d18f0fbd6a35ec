/**
 * Rate limits shared by replicas (`rxmcp/limits/nats`): two server replicas (here two NATS connections in one
 * process; in production, processes anywhere) keep their token buckets in one JetStream KV bucket, so a caller's
 * limit holds across them: three calls at once per caller, whichever replica serves them.
 *
 * Needs a nats-server with JetStream: NATS_URL (default nats://127.0.0.1:4222), for example
 * `nats-server -js -p 4222`. Run: node limits-nats.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { createClient, createServer, isWireError, type McpServer } from 'rxmcp';
import { createMemoryPair } from 'rxmcp/testing';
import { rateLimit } from 'rxmcp/limits';
import { KvBucketStore } from 'rxmcp/limits/nats';

const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const bucket = `limits_example_${process.pid}`; // a bucket of its own, so runs sharing a nats-server do not meet

async function replica(): Promise<{ readonly server: McpServer; close(): Promise<void> }> {
  const connection = await connect({ servers: natsUrl });
  const store = await KvBucketStore.open(connection, { bucket, ttlMs: 60_000 });
  const server = createServer({ name: 'search', version: '1.0.0' });
  server.tool({ name: 'search' }, () => 'found');
  // The caller's name stands in for its principal here (with authorization: `by: 'principal'`).
  server.use(rateLimit({ store, limits: [{ name: 'per caller', by: (request) => request.session.peerInfo?.name, capacity: 3, refillPerSecond: 0.05 }] }));
  return {
    server,
    async close() {
      await server.close();
      await connection.drain();
    },
  };
}

const replicas = [await replica(), await replica()];
const client = createClient({ name: 'alice', version: '1.0.0', era: 'legacy' });
const sessions = await Promise.all(
  replicas.map((target) => {
    const [near, far] = createMemoryPair();
    target.server.accept(far);
    return client.connect(near);
  }),
);
try {
  // Alice's first three calls go to both replicas; the fourth is refused by either, since they share her bucket.
  await sessions[0]!.callTool('search', {});
  await sessions[1]!.callTool('search', {});
  await sessions[0]!.callTool('search', {});
  for (const session of sessions) {
    const refused: unknown = await session.callTool('search', {}).then(() => undefined, (error: unknown) => error);
    assert.ok(isWireError(refused), 'a fourth call is refused on either replica');
    assert.equal(refused.code, -32029);
  }
  console.log('three calls admitted across two replicas, the fourth refused on both (-32029)');
} finally {
  for (const session of sessions) await session.close();
  for (const target of replicas) await target.close();
}
