/**
 * The two ways to get a NATS client transport, after the naming rule (docs/design.md, "Naming"):
 * `createNatsClientTransport` on a connection the caller made and keeps owning (no I/O of its own), and
 * `connectNatsClientTransport`, which connects with `connect`, owns that connection and drains it on close.
 * Both of rxmcp/nats and of rxmcp/nats/client (the browser entry, without the object store: no claim-check).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createClient } from '../../../client/create-client.ts';
import * as browserEntry from '../../../transports/nats/client/index.ts';
import { connectNatsClientTransport } from '../../../transports/nats/index.ts';
import { type NatsFixture, SERVER_NAME, natsFixture } from './nats-fixture.ts';

describe('NATS client transport: created on a connection, or connected', () => {
  let fixture: NatsFixture;

  before(async () => {
    fixture = await natsFixture();
    await fixture.serve();
  });
  after(async () => fixture[Symbol.asyncDispose]());

  for (const [entry, connectTransport] of [['rxmcp/nats', connectNatsClientTransport], ['rxmcp/nats/client', browserEntry.connectNatsClientTransport]] as const) {
    test(`${entry}: connectNatsClientTransport connects, serves a session, and drains the connection it owns on close`, async () => {
      let made: NatsConnection | undefined;
      const transport = await connectTransport({
        connect: async () => (made = await connect({ servers: fixture.nats.url })),
        name: SERVER_NAME,
      });
      assert.ok(made !== undefined && !made.isClosed(), 'connected before the transport was handed over');
      const session = await createClient({ name: 'owned', version: '0.0.0', era: 'legacy' }).connect(transport);
      const result = await session.callTool('echo', { text: 'owned' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'owned' }]);
      await session.close();
      await made.closed();
      assert.equal(made.isClosed(), true, 'the transport drained the connection it made');
    });
  }

  test('rxmcp/nats/client: createNatsClientTransport leaves the caller\'s connection open when it closes', async () => {
    const connection = await fixture.connection();
    const session = await createClient({ name: 'borrowed', version: '0.0.0', era: 'legacy' }).connect(
      browserEntry.createNatsClientTransport({ connection, name: SERVER_NAME }),
    );
    await session.close();
    assert.equal(connection.isClosed(), false, 'the connection is the caller\'s');
  });

  test('rxmcp/nats/client refuses claim-check before any I/O: created at once, connected without calling connect', async () => {
    const connection = await fixture.connection();
    assert.throws(() => browserEntry.createNatsClientTransport({ connection, name: SERVER_NAME, claimCheck: true }), /claimCheck needs the JetStream object store/);
    let dialled = false;
    await assert.rejects(
      browserEntry.connectNatsClientTransport({
        connect: () => {
          dialled = true;
          return connect({ servers: fixture.nats.url });
        },
        name: SERVER_NAME,
        claimCheck: true,
      }),
      /claimCheck needs the JetStream object store/,
    );
    assert.equal(dialled, false, 'no connection was made');
  });
});
