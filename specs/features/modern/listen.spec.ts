/**
 * Modern era (2026-07-28): `subscriptions/listen` (FEATURES #69-#71). The acknowledgement comes first and
 * names what the server will honour; every notification of the stream carries the listen's id as
 * `subscriptionId`; only what the filter asked for is sent; the stream ends with a complete result when the
 * server closes, and ends silently when the client cancels it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { TestClock } from '../../support/test-clock.ts';
import { META, type Message, type ModernHarness, type ModernPeer, type WireResponse, delay, errorOf, isNotification, metaOf, modernServer, resultOf, settle, warmUp } from './modern-peer.ts';

before(warmUp);

const ACK = 'notifications/subscriptions/acknowledged';

function withCatalog(harness: ModernHarness): ModernHarness {
  harness.server.tool({ name: 'base' }, () => 'base');
  harness.server.resource({ uri: 'memo://a', name: 'a' }, () => 'A');
  harness.server.resource({ uri: 'memo://b', name: 'b' }, () => 'B');
  harness.server.prompt({ name: 'p' }, () => ({ messages: [] }));
  return harness;
}

const subscriptionOf = (message: Message): unknown => metaOf(message['params'])[META.subscriptionId];
const forListen = (id: string) => (message: Message): boolean => 'method' in message && !('id' in message) && subscriptionOf(message) === id;

/**
 * Opens a listen and waits for its acknowledgement. Registrations made before are announced a few microtasks
 * later; they are let through first, so a listen opened after them does not hear of them.
 */
async function listen(peer: ModernPeer, notifications: JsonObject): Promise<{ id: string; ack: Message; response: Promise<WireResponse> }> {
  await settle();
  const { id, response } = peer.start('subscriptions/listen', { notifications });
  const ack = await peer.next((message) => message['method'] === ACK && subscriptionOf(message) === id);
  return { id, ack, response };
}

describe('subscriptions/listen: acknowledgement', () => {
  test('the acknowledgement is the first message of the stream and carries its id', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const { id, ack } = await listen(peer, { toolsListChanged: true });
    assert.equal(peer.received[0], ack);
    assert.deepEqual(ack['params'], { notifications: { toolsListChanged: true }, _meta: { [META.subscriptionId]: id } });
    harness.assertClean();
  });

  test('it names only what the server will honour: false flags, undeclared features and duplicate URIs are dropped', async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'only-tools' }, () => 'x');
    const peer = harness.connect();
    const { ack } = await listen(peer, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ['memo://a'],
    });
    assert.deepEqual((ack['params'] as JsonObject)['notifications'], { toolsListChanged: true });
    harness.assertClean();
  });

  test('a full filter on a server with every feature is honoured in full, URIs deduplicated', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const { ack } = await listen(peer, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['memo://a', 'memo://b', 'memo://a'],
    });
    assert.deepEqual((ack['params'] as JsonObject)['notifications'], {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['memo://a', 'memo://b'],
    });
    harness.assertClean();
  });

  test('an empty filter is acknowledged as empty', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const { ack } = await listen(peer, {});
    assert.deepEqual((ack['params'] as JsonObject)['notifications'], {});
    harness.assertClean();
  });

  test('a malformed filter is -32602 and opens nothing', async () => {
    await using harness = withCatalog(modernServer({ modern: { maxResourceSubscriptions: 2 } }));
    const peer = harness.connect();
    for (const params of [
      {},
      { notifications: true },
      { notifications: { toolsListChanged: 'yes' } },
      { notifications: { resourceSubscriptions: 'memo://a' } },
      { notifications: { resourceSubscriptions: ['memo://a', 3] } },
      { notifications: { resourceSubscriptions: ['memo://a', 'memo://b', 'memo://c'] } },
    ]) {
      errorOf(await peer.request('subscriptions/listen', params), -32602);
    }
    assert.equal(peer.all(isNotification(ACK)).length, 0);
    harness.assertClean();
  });
});

describe('subscriptions/listen: notifications', () => {
  test('list changes reach the listener with its subscriptionId, and only the kinds it asked for', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const tools = await listen(peer, { toolsListChanged: true });
    const prompts = await listen(peer, { promptsListChanged: true });
    harness.server.tool({ name: 'added' }, () => 'added');
    harness.server.prompt({ name: 'added' }, () => ({ messages: [] }));
    const toolChange = await peer.next((message) => message['method'] === 'notifications/tools/list_changed');
    assert.deepEqual(toolChange['params'], { _meta: { [META.subscriptionId]: tools.id } });
    const promptChange = await peer.next((message) => message['method'] === 'notifications/prompts/list_changed');
    assert.deepEqual(promptChange['params'], { _meta: { [META.subscriptionId]: prompts.id } });
    await delay(10);
    assert.deepEqual(peer.all(forListen(prompts.id)).map((message) => message['method']), [ACK, 'notifications/prompts/list_changed'], 'the prompts listener got no tool change');
    assert.deepEqual(peer.all(forListen(tools.id)).map((message) => message['method']), [ACK, 'notifications/tools/list_changed']);
    harness.assertClean();
  });

  test('removing a tool is a change too', async () => {
    await using harness = withCatalog(modernServer());
    const extra = harness.server.tool({ name: 'extra' }, () => 'x');
    const peer = harness.connect();
    const tools = await listen(peer, { toolsListChanged: true });
    extra.remove();
    const change = await peer.next(isNotification('notifications/tools/list_changed'));
    assert.equal(subscriptionOf(change), tools.id);
    harness.assertClean();
  });

  test('resource and template registrations in one burst give one resources/list_changed', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const resources = await listen(peer, { resourcesListChanged: true });
    harness.server.resource({ uri: 'memo://c', name: 'c' }, () => 'C');
    harness.server.resourceTemplate({ uriTemplate: 'memo://t/{x}', name: 't' }, () => 'T');
    await peer.next(isNotification('notifications/resources/list_changed'));
    await delay(10);
    assert.deepEqual(peer.all(forListen(resources.id)).map((message) => message['method']), [ACK, 'notifications/resources/list_changed']);
    harness.assertClean();
  });

  test('notifyResourceUpdated reaches the listens watching that URI, with the URI', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const watchA = await listen(peer, { resourceSubscriptions: ['memo://a'] });
    const watchB = await listen(peer, { resourceSubscriptions: ['memo://b'] });
    harness.server.notifyResourceUpdated('memo://a');
    const updated = await peer.next(isNotification('notifications/resources/updated'));
    assert.deepEqual(updated['params'], { uri: 'memo://a', _meta: { [META.subscriptionId]: watchA.id } });
    harness.server.notifyResourceUpdated('memo://elsewhere');
    await delay(10);
    assert.deepEqual(peer.all(forListen(watchB.id)).map((message) => message['method']), [ACK]);
    assert.equal(peer.all(isNotification('notifications/resources/updated')).length, 1);
    harness.assertClean();
  });

  test('each connection gets the notifications of its own listens only', async () => {
    await using harness = withCatalog(modernServer());
    const first = harness.connect();
    const second = harness.connect();
    const one = await listen(first, { toolsListChanged: true });
    await listen(second, { promptsListChanged: true });
    harness.server.tool({ name: 'added' }, () => 'added');
    await first.next(isNotification('notifications/tools/list_changed'));
    await delay(10);
    assert.equal(second.all(isNotification('notifications/tools/list_changed')).length, 0);
    assert.deepEqual(first.all(isNotification('notifications/tools/list_changed')).map(subscriptionOf), [one.id]);
    harness.assertClean();
  });

  test('a listen is not a timed request: it outlives the handler time limit', async () => {
    const clock = new TestClock(0);
    await using harness = withCatalog(modernServer({ session: { clock, limits: { handlerTimeoutMs: 1000 } } }));
    const peer = harness.connect();
    const tools = await listen(peer, { toolsListChanged: true });
    clock.advance(5000);
    await delay(5);
    assert.equal(peer.all((message) => message['id'] === tools.id).length, 0, 'no answer (timeout error) for the listen');
    harness.server.tool({ name: 'later' }, () => 'later');
    assert.equal(subscriptionOf(await peer.next(isNotification('notifications/tools/list_changed'))), tools.id);
    harness.assertClean();
  });
});

describe('subscriptions/listen: ending', () => {
  test('server.close() ends every open listen with a complete result carrying its subscriptionId', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const tools = await listen(peer, { toolsListChanged: true });
    const resources = await listen(peer, { resourceSubscriptions: ['memo://a'] });
    await harness.server.close();
    for (const { id, response } of [tools, resources]) {
      const result = resultOf(await response);
      assert.equal(result['resultType'], 'complete');
      assert.equal(metaOf(result)[META.subscriptionId], id);
      assert.deepEqual(metaOf(result)[META.serverInfo], { name: 'modern-spec-server', version: '1.2.3' });
      assert.deepEqual(Object.keys(result).sort(), ['_meta', 'resultType']);
    }
    harness.assertClean();
  });

  test('cancelling a listen stops its notifications and it is never answered; other listens go on', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const cancelled = await listen(peer, { toolsListChanged: true, resourceSubscriptions: ['memo://a'] });
    const kept = await listen(peer, { toolsListChanged: true });
    peer.notify('notifications/cancelled', { requestId: cancelled.id });
    await delay(5);
    harness.server.tool({ name: 'added' }, () => 'added');
    harness.server.notifyResourceUpdated('memo://a');
    await peer.next((message) => message['method'] === 'notifications/tools/list_changed' && subscriptionOf(message) === kept.id);
    await delay(10);
    assert.deepEqual(peer.all(forListen(cancelled.id)).map((message) => message['method']), [ACK]);
    await harness.server.close();
    assert.equal(metaOf(resultOf(await kept.response))[META.subscriptionId], kept.id);
    assert.equal(peer.all((message) => message['id'] === cancelled.id).length, 0, 'the cancelled listen got no result');
    harness.assertClean();
  });

  test('progress and log messages never travel on a listen', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const { id } = peer.start('subscriptions/listen', { notifications: { toolsListChanged: true }, _meta: { progressToken: 'listen-token' } }, { logLevel: 'debug' });
    await peer.next(isNotification(ACK));
    harness.server.tool({ name: 'added' }, () => 'added');
    harness.server.log('emergency', 'broadcast');
    await peer.next(isNotification('notifications/tools/list_changed'));
    await delay(10);
    assert.deepEqual(peer.all(forListen(id)).map((message) => message['method']), [ACK, 'notifications/tools/list_changed']);
    assert.equal(peer.all((message) => message['method'] === 'notifications/progress' || message['method'] === 'notifications/message').length, 0);
    harness.assertClean();
  });
});
