/**
 * Serving legacy sessions with their records (the default) on a nats-server without JetStream: serveNats fails
 * once its budget is spent, saying JetStream does not answer and what to check, instead of nats.js's bare "503";
 * without records (`sessionRecords: false`) the same server serves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';

let nats: NatsServerProcess;
let connection: NatsConnection;

describe('NATS: serving on a nats-server without JetStream', { timeout: 30_000 }, () => {
  before(async () => {
    nats = await startNatsServer({ jetstream: false });
    connection = await connect({ servers: nats.url, name: 'no-jetstream' });
  });

  after(async () => {
    await connection?.close();
    await nats?.dispose();
  });

  test('session records: a clear error naming JetStream; without records: served', async () => {
    const server = createServer({ name: 'no-js', version: '1.0.0' });
    await assert.rejects(serveNats(server, { connection, name: 'no-js', sessionRecords: { electionRetryMs: 500 } }), /JetStream did not answer for 500 ms .*start nats-server with -js/);
    const serving = await serveNats(server, { connection, name: 'no-js', sessionRecords: false });
    assert.equal(serving.counts().sessions, 0);
    await serving.close('end');
  });
});
