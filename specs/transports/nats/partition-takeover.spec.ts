/**
 * A legacy session's owner is cut off from NATS for a moment (not dead: its connection reconnects). While it
 * is away the client's next request finds no responders, and another process takes the session over (the
 * owner's ping subject has no responders either). When the old owner's connection comes back, nats.js
 * restores its subscription to the session subject: unless it learns that it lost the session, two processes
 * serve one session (each with its own session state), and a close reaches only one of them.
 *
 * This happens for real when nats-server restarts and the processes reconnect in some order (see
 * server-restart.spec.ts); here a TCP proxy in front of the owner's connection cuts it off deterministically.
 * Two serveNats instances in this process, each with its own NATS connection and its own server.
 *
 * The binding fences: from the disconnection until it has re-read its sessions' records after the reconnection,
 * the old owner holds their messages; a session now owned elsewhere is let go and what was held goes on to it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startNatsServer } from '../../support/nats-server.ts';
import { InProcessOwners, whoami } from './in-process-owners.ts';
import { awaitGoneFromNats, until } from './nats-processes.ts';

const NAME = 'partition';

let owners: InProcessOwners;

describe('NATS: a legacy session taken over while its owner was cut off', { timeout: 30_000 }, () => {
  before(async () => {
    owners = new InProcessOwners(await startNatsServer());
  });

  after(async () => {
    await owners.dispose();
  });

  test(
    'once the old owner is back, one process serves the session',
    async (t) => {
      const proxy = await owners.proxy();
      const a = await owners.serve(NAME, 1, proxy.url);
      const { client, connection: clientConnection } = await owners.legacyClient(NAME);
      await owners.serve(NAME, 2, owners.url);

      // A is cut off: the session's next request is taken over by B.
      proxy.cut();
      await awaitGoneFromNats(clientConnection, NAME, a.serving.processId);
      assert.equal(await whoami(client), 2, 'B took the session over');

      // A comes back (its connection reconnects through the proxy and restores its subscriptions).
      proxy.restore();
      await until(() => a.reconnections() > 0, 'A reconnected', 5000);
      await a.connection.flush();
      t.diagnostic(`A still holds ${a.serving.counts().sessions} legacy session(s) after it reconnected`);

      const answeredBy: number[] = [];
      for (let i = 0; i < 20; i++) answeredBy.push(await whoami(client));
      t.diagnostic(`after A reconnected, answered by ${answeredBy.join(',')}`);
      assert.deepEqual([...new Set(answeredBy)], [2], 'only the new owner (B) serves the session');
      assert.equal(a.serving.counts().sessions, 0, 'A let the session go');
    },
  );
});
