/**
 * Modern era (2026-07-28): `server/discover` (FEATURES #25) and the caching hints `ttlMs` / `cacheScope` (#36):
 * required on complete results of discovery, the four lists and `resources/read`, absent everywhere else
 * (calls, prompts, completions, input_required results), and configurable with `modern.cache`.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { ALL_INPUT_CAPABILITIES, META, MODERN, type ModernHarness, errorOf, metaOf, modernServer, resultOf, warmUp } from './modern-peer.ts';

before(warmUp);

const LEGACY = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

const CACHEABLE: ReadonlyArray<readonly [string, JsonObject]> = [
  ['server/discover', {}],
  ['tools/list', {}],
  ['prompts/list', {}],
  ['resources/list', {}],
  ['resources/templates/list', {}],
  ['resources/read', { uri: 'memo://a' }],
];

function withCatalog(harness: ModernHarness): ModernHarness {
  harness.server.tool({ name: 'echo' }, () => 'echo');
  harness.server.resource({ uri: 'memo://a', name: 'a', mimeType: 'text/plain' }, () => 'A');
  harness.server.resourceTemplate({ uriTemplate: 'memo://items/{id}', name: 'item' }, (uri) => `item ${uri}`);
  harness.server.prompt({ name: 'greet', arguments: [{ name: 'who' }] }, () => ({ messages: [] }));
  return harness;
}

describe('server/discover', () => {
  test('a dual-era server lists every revision it speaks, its capabilities and instructions, and serverInfo', async () => {
    await using harness = withCatalog(modernServer({ instructions: 'Use the echo tool.' }));
    const peer = harness.connect();
    const result = resultOf(await peer.request('server/discover'));
    assert.deepEqual(result['supportedVersions'], [...LEGACY, MODERN]);
    assert.deepEqual(result['capabilities'], {
      logging: {},
      completions: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
    });
    assert.equal(result['instructions'], 'Use the echo tool.');
    assert.equal(result['resultType'], 'complete');
    assert.equal(result['ttlMs'], 0);
    assert.equal(result['cacheScope'], 'private');
    assert.deepEqual(metaOf(result)[META.serverInfo], { name: 'modern-spec-server', version: '1.2.3' });
    harness.assertClean();
  });

  test('a modern-only server lists only 2026-07-28; no instructions member when none were given', async () => {
    await using harness = withCatalog(modernServer({ eras: 'modern' }));
    const peer = harness.connect();
    const result = resultOf(await peer.request('server/discover'));
    assert.deepEqual(result['supportedVersions'], [MODERN]);
    assert.equal('instructions' in result, false);
    harness.assertClean();
  });

  test('a narrowed legacy list is what discovery reports beside 2026-07-28', async () => {
    await using harness = withCatalog(modernServer({ supportedVersions: ['2025-11-25'] }));
    const peer = harness.connect();
    assert.deepEqual(resultOf(await peer.request('server/discover'))['supportedVersions'], ['2025-11-25', MODERN]);
    harness.assertClean();
  });

  test('discovery follows the catalog: capabilities appear and disappear with registrations', async () => {
    await using harness = modernServer();
    const peer = harness.connect();
    assert.deepEqual(resultOf(await peer.request('server/discover'))['capabilities'], { logging: {} });
    const tool = harness.server.tool({ name: 't' }, () => 't');
    assert.deepEqual(resultOf(await peer.request('server/discover'))['capabilities'], { logging: {}, tools: { listChanged: true } });
    tool.remove();
    assert.deepEqual(resultOf(await peer.request('server/discover'))['capabilities'], { logging: {} });
    harness.assertClean();
  });

  test('the 2025-11-25 tasks capability is not declared in the modern era', async () => {
    await using harness = withCatalog(modernServer({ tasks: {} }));
    const peer = harness.connect();
    const capabilities = resultOf(await peer.request('server/discover'))['capabilities'] as JsonObject;
    assert.equal('tasks' in capabilities, false);
    assert.deepEqual(capabilities['tools'], { listChanged: true });
    harness.assertClean();
  });

  test('discover needs a valid envelope like any other request', async () => {
    await using harness = modernServer();
    const peer = harness.connect();
    errorOf(await peer.raw('server/discover', {}), -32602);
    const error = errorOf(await peer.request('server/discover', {}, { version: '2025-06-18' }), -32022);
    assert.deepEqual(error.data, { supported: [MODERN], requested: '2025-06-18' });
    harness.assertClean();
  });
});

describe('modern listings', () => {
  // The only member the 2026-07-28 schema drops from a Tool is `execution` (2025-11-25 tasks); the tasks extension
  // brings back `execution.taskSupport`, for requests that declare it only.
  test('tools/list carries only the 2026-07-28 Tool fields: no 2025-11-25 execution.taskSupport', async () => {
    await using harness = modernServer({ tasks: {} });
    harness.server.tool({ name: 'taskable', execution: { taskSupport: 'optional' } }, () => 'x');
    const peer = harness.connect();
    const tools = resultOf(await peer.request('tools/list'))['tools'] as JsonObject[];
    assert.deepEqual(tools.map((tool) => Object.keys(tool).sort()), [['inputSchema', 'name']]);
    harness.assertClean();
  });

  test('a task-augmented tools/call is served as a plain call in the modern era', async () => {
    await using harness = modernServer({ tasks: {} });
    harness.server.tool({ name: 'taskable', execution: { taskSupport: 'optional' } }, () => 'plain');
    const peer = harness.connect();
    const result = resultOf(await peer.request('tools/call', { name: 'taskable', arguments: {}, task: { ttl: 1000 } }));
    assert.equal(result['resultType'], 'complete');
    assert.deepEqual(result['content'], [{ type: 'text', text: 'plain' }]);
    assert.equal('task' in result, false);
    errorOf(await peer.request('tasks/get', { taskId: 'any' }), -32601);
    harness.assertClean();
  });
});

describe('caching hints', () => {
  test('discover, the four lists and resources/read carry ttlMs 0 and cacheScope "private" by default', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    for (const [method, params] of CACHEABLE) {
      const result = resultOf(await peer.request(method, params));
      assert.equal(result['ttlMs'], 0, method);
      assert.equal(result['cacheScope'], 'private', method);
    }
    harness.assertClean();
  });

  test('modern.cache sets both hints on every cacheable result', async () => {
    await using harness = withCatalog(modernServer({ modern: { cache: { ttlMs: 60_000, cacheScope: 'public' } } }));
    const peer = harness.connect();
    for (const [method, params] of CACHEABLE) {
      const result = resultOf(await peer.request(method, params));
      assert.equal(result['ttlMs'], 60_000, method);
      assert.equal(result['cacheScope'], 'public', method);
    }
    harness.assertClean();
  });

  test('a partial modern.cache keeps the default for the other hint', async () => {
    await using ttlOnly = withCatalog(modernServer({ modern: { cache: { ttlMs: 5000 } } }));
    const first = resultOf(await ttlOnly.connect().request('tools/list'));
    assert.equal(first['ttlMs'], 5000);
    assert.equal(first['cacheScope'], 'private');
    ttlOnly.assertClean();

    await using scopeOnly = withCatalog(modernServer({ modern: { cache: { cacheScope: 'public' } } }));
    const second = resultOf(await scopeOnly.connect().request('resources/read', { uri: 'memo://items/7' }));
    assert.equal(second['ttlMs'], 0);
    assert.equal(second['cacheScope'], 'public');
    scopeOnly.assertClean();
  });

  test('every page of a paginated list carries the same hints', async () => {
    await using harness = modernServer({ pageSize: 1, modern: { cache: { ttlMs: 10, cacheScope: 'public' } } });
    harness.server.tool({ name: 'a' }, () => 'a');
    harness.server.tool({ name: 'b' }, () => 'b');
    const peer = harness.connect();
    const first = resultOf(await peer.request('tools/list'));
    assert.equal(typeof first['nextCursor'], 'string');
    const second = resultOf(await peer.request('tools/list', { cursor: first['nextCursor'] as string }));
    for (const page of [first, second]) {
      assert.equal(page['ttlMs'], 10);
      assert.equal(page['cacheScope'], 'public');
    }
    harness.assertClean();
  });

  test('calls, prompts, completions and listen results carry no caching hints', async () => {
    await using harness = withCatalog(modernServer({ modern: { cache: { ttlMs: 1000, cacheScope: 'public' } } }));
    const peer = harness.connect();
    const uncached: Array<[string, JsonObject]> = [
      ['tools/call', { name: 'echo', arguments: {} }],
      ['prompts/get', { name: 'greet', arguments: { who: 'x' } }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: '' } }],
    ];
    for (const [method, params] of uncached) {
      const result = resultOf(await peer.request(method, params));
      assert.equal('ttlMs' in result, false, method);
      assert.equal('cacheScope' in result, false, method);
    }
    const listen = peer.start('subscriptions/listen', { notifications: { toolsListChanged: true } });
    await peer.next((message) => message['method'] === 'notifications/subscriptions/acknowledged');
    await harness.server.close();
    const ended = resultOf(await listen.response);
    assert.equal('ttlMs' in ended, false);
    harness.assertClean();
  });

  test('an input_required answer to resources/read carries no caching hints; its complete retry does', async () => {
    await using harness = modernServer({ modern: { cache: { ttlMs: 1000, cacheScope: 'public' } } });
    harness.server.resource({ uri: 'memo://secret', name: 'secret' }, async (_uri, ctx) => {
      const answer = await ctx.elicit({ message: 'Password?', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } });
      return `secret for ${String(answer.content?.['password'])}`;
    });
    const peer = harness.connect();
    const asked = resultOf(await peer.request('resources/read', { uri: 'memo://secret' }, { capabilities: ALL_INPUT_CAPABILITIES }));
    assert.equal(asked['resultType'], 'input_required');
    assert.equal('ttlMs' in asked, false);
    assert.equal('cacheScope' in asked, false);
    const done = resultOf(
      await peer.request(
        'resources/read',
        { uri: 'memo://secret', requestState: asked['requestState'] as string, inputResponses: { 'elicitation-1': { action: 'accept', content: { password: 'pw' } } } },
        { capabilities: ALL_INPUT_CAPABILITIES },
      ),
    );
    assert.equal(done['resultType'], 'complete');
    assert.deepEqual(done['contents'], [{ uri: 'memo://secret', text: 'secret for pw' }]);
    assert.equal(done['ttlMs'], 1000);
    assert.equal(done['cacheScope'], 'public');
    harness.assertClean();
  });
});
