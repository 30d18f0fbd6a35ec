/**
 * server/create-server.ts, the wiring: a change reaches every open session of a real server, and none that
 * closed; a closed session leaves the server and its subscriptions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { featureServer, settle } from '../support/feature-pair.ts';

describe('createServer wiring', () => {
  test('list changes, resource updates and logs reach every open session, none once it closed', async () => {
    await using h = featureServer();
    h.server.resource({ uri: 'file:///watched', name: 'watched' }, () => 'w');
    h.server.tool({ name: 'seed' }, () => 'ok');
    const connections = await Promise.all([h.connect(), h.connect({ protocolVersion: '2025-03-26' }), h.connect({ protocolVersion: '2024-11-05' })]);
    for (const { client } of connections) await client.session.request('resources/subscribe', { uri: 'file:///watched' });
    const counts = () =>
      connections.map((c) => [
        c.serverSent('notifications/tools/list_changed').length,
        c.serverSent('notifications/resources/updated').length,
        c.serverSent('notifications/message').length,
      ]);
    h.server.tool({ name: 'late' }, () => 'ok');
    h.server.notifyResourceUpdated('file:///watched');
    h.server.log('info', 'hello');
    await Promise.all(connections.map((c) => c.settle()));
    assert.deepEqual(counts(), [[1, 1, 1], [1, 1, 1], [1, 1, 1]]);

    const [gone, ...open] = connections;
    assert.ok(gone);
    await gone.client.close();
    await settle();
    assert.equal(h.server.sessions.has(gone.session), false);
    assert.equal(h.server.sessions.size, 2);
    h.server.tool({ name: 'later' }, () => 'ok');
    h.server.notifyResourceUpdated('file:///watched');
    h.server.log('info', 'again');
    await Promise.all(open.map((c) => c.settle()));
    assert.deepEqual(counts(), [[1, 1, 1], [2, 2, 2], [2, 2, 2]]);
    assert.deepEqual(gone.serverWire.sentAfterClose(), []);
    h.assertClean();
  });
});
