/**
 * server/change-fan-out.ts: a change reaches every session that should hear of it, the modern listens and, when
 * made here, the change feed; a session no longer open or operating hears nothing, nor one whose caller may not
 * read the updated resource (decided as the update is sent).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ServerCatalog } from '../../actors/features/catalog.ts';
import type { ServerChange } from '../../core/server-change.ts';
import type { McpSession } from '../../session/session-core.ts';
import { catalogRegistrar } from '../../server/catalog-registrar.ts';
import { ChangeFanOut } from '../../server/change-fan-out.ts';
import { ResourceSubscriptions } from '../../server/subscriptions.ts';
import { fakeSession } from './fakes.ts';

const EVERY_LIST = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true } };

function setup() {
  const sessions = new Set<McpSession>();
  const subscriptions = new ResourceSubscriptions(10);
  const fanOut = new ChangeFanOut(sessions, subscriptions);
  const heard: ServerChange[] = [];
  const local: ServerChange[] = [];
  fanOut.changes$.subscribe((change) => heard.push(change));
  fanOut.feed.local$.subscribe((change) => local.push(change));
  return { sessions, subscriptions, fanOut, heard, local };
}

const microtasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('server change fan-out', () => {
  test('a list change reaches every operating session promised it, and nothing else', () => {
    const { sessions, fanOut } = setup();
    const a = fakeSession(EVERY_LIST);
    const b = fakeSession(EVERY_LIST);
    const toolsOnly = fakeSession({ tools: { listChanged: true } });
    const closing = fakeSession(EVERY_LIST);
    closing.close();
    for (const fake of [a, b, toolsOnly, closing]) sessions.add(fake.session);
    fanOut.changeHere({ type: 'tools' });
    fanOut.changeHere({ type: 'prompts' });
    fanOut.changeHere({ type: 'resources' });
    const all = ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'];
    assert.deepEqual(a.sent.map((sent) => sent.method), all);
    assert.deepEqual(b.sent.map((sent) => sent.method), all);
    assert.deepEqual(toolsOnly.sent.map((sent) => sent.method), ['notifications/tools/list_changed']);
    assert.deepEqual(closing.sent, []);
  });

  test('a resource update reaches its subscribers only; none once they closed', () => {
    const { sessions, subscriptions, fanOut } = setup();
    const a = fakeSession(EVERY_LIST);
    const b = fakeSession(EVERY_LIST);
    const other = fakeSession(EVERY_LIST);
    for (const fake of [a, b, other]) sessions.add(fake.session);
    subscriptions.subscribe(a.session, 'file:///x');
    subscriptions.subscribe(b.session, 'file:///x');
    fanOut.changeHere({ type: 'resource-updated', uri: 'file:///x' });
    const updated = { method: 'notifications/resources/updated', params: { uri: 'file:///x' } };
    assert.deepEqual(a.sent, [updated]);
    assert.deepEqual(b.sent, [updated]);
    assert.equal(other.sent.length, 0);
    // One closes (as open-sessions.ts does it: out of the set, its subscriptions forgotten), the other is closing.
    sessions.delete(a.session);
    subscriptions.sessionClosed(a.session);
    b.close();
    fanOut.changeHere({ type: 'resource-updated', uri: 'file:///x' });
    fanOut.changeHere({ type: 'tools' });
    assert.deepEqual(a.sent, [updated]);
    assert.deepEqual(b.sent, [updated]);
    assert.deepEqual(other.sent.map((sent) => sent.method), ['notifications/tools/list_changed']);
  });

  test('a resource update reaches only the subscribers that may read the resource as it is sent, wherever it was made', () => {
    const { sessions, subscriptions, fanOut } = setup();
    const catalog = new ServerCatalog();
    fanOut.follow(catalog);
    const register = catalogRegistrar(catalog);
    const reader = fakeSession(EVERY_LIST, '2025-11-25', { principal: 'r', scopes: ['docs:read'], claims: {} });
    const outsider = fakeSession(EVERY_LIST, '2025-11-25', { principal: 'o', scopes: [], claims: {} });
    const anonymous = fakeSession(EVERY_LIST);
    for (const fake of [reader, outsider, anonymous]) {
      sessions.add(fake.session);
      subscriptions.subscribe(fake.session, 'doc://a');
      subscriptions.subscribe(fake.session, 'doc://t/1');
    }
    // Subscribed while nothing guarded them; guarded since: the rule of now decides.
    register.resource({ uri: 'doc://a', name: 'a', requires: ['docs:read'] }, () => 'a');
    register.resourceTemplate({ uriTemplate: 'doc://t/{n}', name: 't', requires: (auth) => auth?.principal === 'o' }, () => 't');
    fanOut.changeHere({ type: 'resource-updated', uri: 'doc://a' });
    fanOut.feed.apply({ type: 'resource-updated', uri: 'doc://t/1' });
    assert.deepEqual(reader.sent.map((sent) => sent.params?.['uri']), ['doc://a']);
    assert.deepEqual(outsider.sent.map((sent) => sent.params?.['uri']), ['doc://t/1']);
    assert.deepEqual(anonymous.sent, []);
    // Modern listens ask the same question of the same change.
    assert.equal(fanOut.mayHear({ type: 'resource-updated', uri: 'doc://a' }, undefined), false);
    assert.equal(fanOut.mayHear({ type: 'resource-updated', uri: 'doc://free' }, undefined), true);
    assert.equal(fanOut.mayHear({ type: 'tools' }, undefined), true);
  });

  test('modern listens hear every change; the feed offers only the ones made here', () => {
    const { fanOut, heard, local } = setup();
    fanOut.changeHere({ type: 'tools' });
    fanOut.feed.apply({ type: 'resource-updated', uri: 'file:///elsewhere' });
    assert.deepEqual(heard, [{ type: 'tools' }, { type: 'resource-updated', uri: 'file:///elsewhere' }]);
    assert.deepEqual(local, [{ type: 'tools' }]);
  });

  test('following a catalog: one change per list per burst, resources and templates being one list', async () => {
    const { fanOut, local } = setup();
    const catalog = new ServerCatalog();
    fanOut.follow(catalog);
    const register = catalogRegistrar(catalog);
    register.tool({ name: 'a' }, () => 'ok');
    register.tool({ name: 'b' }, () => 'ok');
    register.resource({ uri: 'file:///a', name: 'a' }, () => 'a');
    register.resourceTemplate({ uriTemplate: 'file:///{n}', name: 'n' }, () => 'n');
    await microtasks();
    assert.deepEqual(local.map((change) => change.type).toSorted(), ['resources', 'tools']);
    register.prompt({ name: 'p' }, () => 'x');
    await microtasks();
    assert.deepEqual(local.map((change) => change.type).toSorted(), ['prompts', 'resources', 'tools']);
  });
});
