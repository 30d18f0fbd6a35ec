/**
 * Run-time catalog changes (FEATURES rows 43, 46, 55, 59, 65, 68): one `notifications/{tools,prompts,resources}/
 * list_changed` per microtask burst to each operating session that negotiated the capability, and list pages
 * built once and shared by every session.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLocalError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ListChange } from '../../client/session-api.ts';
import type { McpServer, Registration } from '../../server/create-server.ts';
import { type Connection, featureServer, isRecord, settle } from '../support/feature-pair.ts';

const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';

function record(connection: Connection): ListChange[] {
  const changes: ListChange[] = [];
  connection.client.listChanged$.subscribe((change) => changes.push(change));
  return changes;
}

async function settleAll(connections: readonly Connection[]): Promise<void> {
  await Promise.all(connections.map((connection) => connection.settle()));
}

const counts = (connection: Connection): [number, number, number] => [
  connection.serverSent(TOOLS).length,
  connection.serverSent(PROMPTS).length,
  connection.serverSent(RESOURCES).length,
];

function seed(server: McpServer): void {
  server.tool({ name: 'seed' }, () => 'ok');
  server.prompt({ name: 'seed' }, () => 'ok');
  server.resource({ uri: 'file:///seed', name: 'seed' }, () => 'ok');
}

describe('server list_changed', () => {
  test('list_changed - a burst of tool registrations and removals sends exactly one notification per burst to each session', async () => {
    await using h = featureServer();
    seed(h.server);
    const a = await h.connect();
    const b = await h.connect({ protocolVersion: '2024-11-05' });
    assert.deepEqual(a.client.serverCapabilities?.tools, { listChanged: true });
    const seenA = record(a);
    const added: Registration[] = [];
    for (let i = 0; i < 3; i++) added.push(h.server.tool({ name: `t${i}` }, () => 'ok'));
    await settleAll([a, b]);
    assert.deepEqual(counts(a), [1, 0, 0]);
    assert.deepEqual(counts(b), [1, 0, 0]);
    assert.deepEqual(seenA, ['tools']);
    for (const registration of added) registration.remove();
    h.server.tool({ name: 'late' }, () => 'ok');
    await settleAll([a, b]);
    assert.deepEqual(counts(a), [2, 0, 0]);
    assert.deepEqual(counts(b), [2, 0, 0]);
    assert.deepEqual((await a.client.listTools()).map((tool) => tool.name), ['seed', 'late']);
    await settleAll([a, b]);
    assert.deepEqual(counts(a), [2, 0, 0], 'nothing without a change');
    h.assertClean();
  });

  test('list_changed - prompts and resources announce their own changes, once per burst each', async () => {
    await using h = featureServer();
    seed(h.server);
    const a = await h.connect({ protocolVersion: '2025-03-26' });
    const seen = record(a);
    const prompt = h.server.prompt({ name: 'p2' }, () => 'x');
    h.server.prompt({ name: 'p3' }, () => 'x');
    const resource = h.server.resource({ uri: 'file:///r2', name: 'r2' }, () => 'x');
    h.server.resource({ uri: 'file:///r3', name: 'r3' }, () => 'x');
    await a.settle();
    assert.deepEqual(counts(a), [0, 1, 1]);
    assert.deepEqual(seen.toSorted(), ['prompts', 'resources']);
    prompt.remove();
    resource.remove();
    await a.settle();
    assert.deepEqual(counts(a), [0, 2, 2]);
    resource.remove(); // already removed: no change, no notification
    await a.settle();
    assert.deepEqual(counts(a), [0, 2, 2]);
    h.assertClean();
  });

  test('list_changed - a resource and a template changed in one burst give one resources/list_changed', async () => {
    await using h = featureServer();
    seed(h.server);
    const a = await h.connect();
    h.server.resource({ uri: 'file:///r2', name: 'r2' }, () => 'x');
    h.server.resourceTemplate({ uriTemplate: 't://{id}', name: 't' }, () => 'x');
    await a.settle();
    assert.deepEqual(counts(a), [0, 0, 1]);
    h.assertClean();
  });

  test('list_changed - a closed session gets nothing; the others still do', async () => {
    await using h = featureServer();
    seed(h.server);
    const a = await h.connect();
    const b = await h.connect();
    await a.client.close();
    await settle(); // the server hears of the close (over NATS, one message later)
    h.server.tool({ name: 'after-close' }, () => 'ok');
    await b.settle();
    assert.equal(a.serverSent(TOOLS).length, 0);
    assert.deepEqual(a.serverWire.sentAfterClose(), []);
    assert.equal(b.serverSent(TOOLS).length, 1);
    h.assertClean();
  });

  test('list_changed - a session opened before any tool existed did not negotiate tools and is never told of them', async () => {
    await using h = featureServer();
    h.server.prompt({ name: 'only-prompts' }, () => 'x');
    const early = await h.connect();
    assert.equal(early.client.serverCapabilities?.tools, undefined);
    h.server.tool({ name: 'new' }, () => 'ok');
    const late = await h.connect();
    await settleAll([early, late]);
    assert.deepEqual(late.client.serverCapabilities?.tools, { listChanged: true });
    assert.equal(early.serverSent(TOOLS).length, 0, 'no tools/list_changed without the tools capability');
    await assert.rejects(early.client.listTools(), (error) => isLocalError(error, 'CapabilityNotNegotiated'));
    const raw = h.connectRaw();
    await raw.initialize('2025-11-25');
    assert.equal((await raw.call('tools/list')).error, undefined, 'a session opened now has tools');
    h.server.tool({ name: 'newer' }, () => 'ok');
    await settleAll([early, late]);
    assert.equal(early.serverSent(TOOLS).length, 0);
    assert.equal(late.serverSent(TOOLS).length, 1);
    h.assertClean();
  });
});

/** The `result` objects of `method` responses the server handed to its transport on `connection`. */
function resultsSent(connection: Connection, method: string): JsonObject[] {
  const ids = new Set(connection.clientSent(method).map((request) => request['id']));
  return connection.serverWire.sent.flatMap((payload) =>
    isRecord(payload) && ids.has(payload['id']) && isRecord(payload['result']) ? [payload['result'] as JsonObject] : [],
  );
}

describe('server list pages are shared', () => {
  test('list_changed - 500 tools: every session is served the same cached page objects until the list changes', async () => {
    await using h = featureServer();
    for (let i = 0; i < 500; i++) h.server.tool({ name: `tool-${String(i).padStart(3, '0')}` }, () => 'ok');
    const a = await h.connect();
    const b = await h.connect({ protocolVersion: '2025-06-18' });
    const all = await a.client.listTools();
    assert.equal(all.length, 500);
    await b.client.listTools();
    const pagesA = resultsSent(a, 'tools/list');
    const pagesB = resultsSent(b, 'tools/list');
    assert.equal(pagesA.length, 5, 'default page size 100');
    assert.equal(pagesB.length, 5);
    pagesA.forEach((page, index) => {
      assert.ok(Object.is(page, pagesB[index]), `page ${index + 1} is one object for both sessions`);
      assert.ok(Object.isFrozen(page));
    });
    await a.client.listTools();
    assert.ok(Object.is(resultsSent(a, 'tools/list')[5], pagesA[0]), 'and for the same session asking again');

    h.server.tool({ name: 'tool-500' }, () => 'ok');
    await settleAll([a, b]);
    await b.client.listTools();
    const rebuilt = resultsSent(b, 'tools/list').slice(5);
    assert.equal(rebuilt.length, 6);
    assert.ok(!Object.is(rebuilt[0], pagesA[0]), 'a change rebuilds the pages');
    assert.deepEqual((rebuilt[5]?.['tools'] as JsonObject[]).map((tool) => tool['name']), ['tool-500']);
    await a.client.listTools();
    assert.ok(Object.is(resultsSent(a, 'tools/list')[10], rebuilt[0]), 'the rebuilt page is shared again');
    h.assertClean();
  });
});
