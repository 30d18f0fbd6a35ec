/**
 * Both eras on one server (FEATURES #28, 4.2.6): a connection takes the era of its first request. A legacy
 * session (opened by `initialize`) and a modern connection side by side never hear each other's traffic:
 * legacy broadcasts (`server.log`, list changes, resource updates) reach legacy sessions only, a modern
 * listen reaches its own connection only. `eras: 'legacy'` and `eras: 'modern'` servers refuse the other era.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import {
  CLIENT_INFO,
  META,
  MODERN,
  type Message,
  type ModernHarness,
  type ModernPeer,
  OVER_NATS,
  delay,
  envelope,
  errorOf,
  isNotification,
  medium,
  metaOf,
  modernServer,
  resultOf,
  warmUp,
} from './modern-peer.ts';

before(warmUp);

function withCatalog(harness: ModernHarness): ModernHarness {
  harness.server.tool({ name: 'base' }, () => 'base');
  harness.server.resource({ uri: 'memo://a', name: 'a' }, () => 'A');
  return harness;
}

/** A raw legacy session: initialize (2025-11-25) and notifications/initialized. */
async function legacySession(harness: ModernHarness, capabilities: JsonObject = {}): Promise<ModernPeer> {
  const peer = harness.connect({ oracleRevision: null });
  const init = resultOf(await peer.raw('initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: CLIENT_INFO }));
  assert.equal(init['protocolVersion'], '2025-11-25');
  peer.notify('notifications/initialized');
  return peer;
}

const hasSubscriptionId = (message: Message): boolean => {
  const params = message['params'];
  return typeof params === 'object' && params !== null && '_meta' in params;
};

describe('dual era: a legacy session and a modern connection on one server', () => {
  test('legacy broadcasts never reach the modern connection; the modern listen never reaches the legacy session', async () => {
    await using harness = withCatalog(modernServer());
    const legacy = await legacySession(harness);
    resultOf(await legacy.raw('logging/setLevel', { level: 'debug' }));
    resultOf(await legacy.raw('resources/subscribe', { uri: 'memo://a' }));
    const modern = harness.connect();
    const { id: listenId } = modern.start('subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['memo://a'] } }, { logLevel: 'debug' });
    await modern.next(isNotification('notifications/subscriptions/acknowledged'));

    harness.server.log('info', { hello: 'legacy' });
    harness.server.tool({ name: 'added' }, () => 'added');
    harness.server.notifyResourceUpdated('memo://a');

    const log = await legacy.next(isNotification('notifications/message'));
    assert.deepEqual(log['params'], { level: 'info', data: { hello: 'legacy' } });
    const legacyTools = await legacy.next(isNotification('notifications/tools/list_changed'));
    assert.equal(hasSubscriptionId(legacyTools), false);
    const legacyUpdate = await legacy.next(isNotification('notifications/resources/updated'));
    assert.deepEqual(legacyUpdate['params'], { uri: 'memo://a' });

    const modernTools = await modern.next(isNotification('notifications/tools/list_changed'));
    assert.equal(metaOf(modernTools['params'])[META.subscriptionId], listenId);
    const modernUpdate = await modern.next(isNotification('notifications/resources/updated'));
    assert.deepEqual(modernUpdate['params'], { uri: 'memo://a', _meta: { [META.subscriptionId]: listenId } });

    await delay(15);
    assert.equal(modern.all(isNotification('notifications/message')).length, 0, 'server.log reached the modern connection');
    assert.equal(modern.all(isNotification('notifications/tools/list_changed')).length, 1);
    assert.equal(modern.all(isNotification('notifications/resources/updated')).length, 1);
    assert.equal(modern.all((message) => 'method' in message && !hasSubscriptionId(message)).length, 0, 'every notification on the modern connection belongs to its listen');
    assert.equal(legacy.all(isNotification('notifications/tools/list_changed')).length, 1, 'the listen reached the legacy session');
    assert.equal(legacy.all(isNotification('notifications/resources/updated')).length, 1);
    assert.equal(legacy.all(hasSubscriptionId).length, 0);
    assert.equal(legacy.session.state, 'operating');
    assert.equal(modern.session.state, 'stateless');
    harness.assertClean();
  });

  test('each connection keeps its era’s semantics: result shape and the resource-not-found code', async () => {
    await using harness = withCatalog(modernServer());
    const legacy = await legacySession(harness);
    const modern = harness.connect();
    const legacyList = resultOf(await legacy.raw('tools/list', {}));
    assert.equal('resultType' in legacyList, false);
    assert.equal('ttlMs' in legacyList, false);
    const modernList = resultOf(await modern.request('tools/list'));
    assert.equal(modernList['resultType'], 'complete');
    assert.equal(modernList['ttlMs'], 0);
    errorOf(await legacy.raw('resources/read', { uri: 'memo://missing' }), -32002);
    errorOf(await modern.request('resources/read', { uri: 'memo://missing' }), -32602);
    // Legacy methods keep working on the legacy session only.
    resultOf(await legacy.raw('ping'));
    errorOf(await modern.request('ping'), -32601);
    harness.assertClean();
  });

  test('a request carrying a 2026 envelope on a legacy session is served with legacy semantics', async () => {
    await using harness = withCatalog(modernServer());
    const legacy = await legacySession(harness);
    const list = resultOf(await legacy.raw('tools/list', { _meta: envelope() }));
    assert.equal('resultType' in list, false);
    errorOf(await legacy.raw('server/discover', { _meta: envelope() }), -32601);
    harness.assertClean();
  });

  test('a legacy ping before initialize (no envelope) keeps the connection legacy', { skip: medium === 'nats' && OVER_NATS.eraBySubject }, async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect({ oracleRevision: null });
    assert.deepEqual(resultOf(await peer.raw('ping')), {});
    const init = resultOf(await peer.raw('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO }));
    assert.equal(init['protocolVersion'], '2025-06-18');
    assert.equal(peer.session.state, 'awaitingInitialized');
    harness.assertClean();
  });

  test('a first request that is not initialize makes the connection modern for good', { skip: medium === 'nats' && OVER_NATS.eraBySubject }, async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    resultOf(await peer.request('server/discover'));
    assert.equal(peer.session.state, 'stateless');
    const refused = errorOf(await peer.raw('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO }), -32601);
    assert.deepEqual(refused.data, { supported: [MODERN] });
    errorOf(await peer.raw('tools/list', {}), -32602);
    harness.assertClean();
  });
});

describe("eras: 'legacy'", () => {
  test('a modern request is taken as a legacy one before initialize: -32600 (not initialized)', { skip: medium === 'nats' && OVER_NATS.legacyOnlyRefusedByBinding }, async () => {
    await using harness = withCatalog(modernServer({ eras: 'legacy' }));
    assert.equal(harness.server.eras, 'legacy');
    const peer = harness.connect({ oracleRevision: null });
    for (const method of ['tools/list', 'server/discover', 'subscriptions/listen']) {
      const error = errorOf(await peer.request(method, method === 'subscriptions/listen' ? { notifications: {} } : {}), -32600);
      assert.match(error.message, /not initialized/);
    }
    assert.equal(peer.session.state, 'awaitingInitialize');
    harness.assertClean();
  });

  test('after initialize, the modern-only methods do not exist', async () => {
    await using harness = withCatalog(modernServer({ eras: 'legacy' }));
    const peer = await legacySession(harness);
    errorOf(await peer.raw('server/discover', { _meta: envelope() }), -32601);
    errorOf(await peer.raw('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: envelope() }), -32601);
    const list = resultOf(await peer.raw('tools/list', { _meta: envelope() }));
    assert.equal('resultType' in list, false);
    harness.assertClean();
  });
});

describe("eras: 'modern'", () => {
  test('initialize is -32601 with data.supported naming 2026-07-28', async () => {
    await using harness = withCatalog(modernServer({ eras: 'modern' }));
    assert.equal(harness.server.eras, 'modern');
    const peer = harness.connect();
    const error = errorOf(await peer.raw('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO }), -32601);
    assert.deepEqual(error.data, { supported: [MODERN] });
    // The connection serves modern requests right after.
    assert.equal(resultOf(await peer.request('tools/list'))['resultType'], 'complete');
    harness.assertClean();
  });

  test('a legacy ping without an envelope is -32601, not a legacy pong', async () => {
    await using harness = withCatalog(modernServer({ eras: 'modern' }));
    const peer = harness.connect();
    errorOf(await peer.raw('ping'), -32601);
    assert.equal(peer.session.state, 'stateless');
    harness.assertClean();
  });
});
