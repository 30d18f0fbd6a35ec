/**
 * Modern era (2026-07-28), server side: the per-request envelope (FEATURES #9, #26, 4.2), the methods the era
 * removed, `resultType` and `serverInfo` on every result (#10, #11), capability gating, and the era's
 * resource-not-found code. A hand-written client over the memory transport; the schema oracle checks every
 * message the server sends against 2026-07-28.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { CLIENT_INFO, META, MODERN, type ModernHarness, OVER_NATS, envelope, errorOf, medium, metaOf, modernServer, resultOf, toolText, warmUp } from './modern-peer.ts';

before(warmUp);

function withCatalog(harness: ModernHarness): ModernHarness {
  harness.server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: JsonObject) => `echo ${String(args['text'])}`);
  harness.server.tool({ name: 'whoami' }, (_args, ctx) =>
    JSON.stringify({ revision: ctx.session.revision, peerInfo: ctx.session.peerInfo ?? null, peerCapabilities: ctx.session.peerCapabilities }),
  );
  harness.server.resource({ uri: 'memo://a', name: 'a', mimeType: 'text/plain' }, () => 'A');
  harness.server.prompt({ name: 'greet' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
  return harness;
}

describe('modern envelope: required fields', () => {
  test('a request without params is -32602', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const response = await peer.raw('tools/list');
    assert.match(errorOf(response, -32602).message, /params/);
    harness.assertClean();
  });

  test('params without _meta, and _meta that is not an object, are -32602', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    errorOf(await peer.raw('tools/list', {}), -32602);
    errorOf(await peer.raw('tools/list', { _meta: 'nope' }), -32602);
    errorOf(await peer.raw('tools/list', { _meta: [] }), -32602);
    harness.assertClean();
  });

  test('a missing or non-string protocolVersion is -32602 (not -32022)', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const { [META.protocolVersion]: _dropped, ...noVersion } = envelope();
    const missing = errorOf(await peer.raw('tools/list', { _meta: noVersion }), -32602);
    assert.ok(missing.message.includes(META.protocolVersion), missing.message);
    errorOf(await peer.raw('tools/list', { _meta: { ...noVersion, [META.protocolVersion]: 20260728 } }), -32602);
    harness.assertClean();
  });

  test('a missing or non-object clientCapabilities is -32602', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const { [META.clientCapabilities]: _dropped, ...noCapabilities } = envelope();
    const missing = errorOf(await peer.raw('tools/list', { _meta: noCapabilities }), -32602);
    assert.ok(missing.message.includes(META.clientCapabilities), missing.message);
    errorOf(await peer.raw('tools/list', { _meta: { ...noCapabilities, [META.clientCapabilities]: null } }), -32602);
    errorOf(await peer.raw('tools/list', { _meta: { ...noCapabilities, [META.clientCapabilities]: ['roots'] } }), -32602);
    harness.assertClean();
  });

  test('a malformed clientInfo is -32602; an absent one is fine', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    errorOf(await peer.request('tools/list', {}, { clientInfo: {} }), -32602);
    for (const clientInfo of [{ name: 'x' }, { version: '1' }, { name: 1, version: '1' }, 'client', null]) {
      const bad = await peer.raw('tools/list', { _meta: { ...envelope({ clientInfo: null }), [META.clientInfo]: clientInfo } });
      assert.ok(errorOf(bad, -32602).message.includes(META.clientInfo), `clientInfo ${JSON.stringify(clientInfo)}`);
    }
    const anonymous = await peer.request('tools/call', { name: 'whoami', arguments: {} }, { clientInfo: null });
    assert.deepEqual(JSON.parse(toolText(anonymous)), { revision: MODERN, peerInfo: null, peerCapabilities: {} });
    harness.assertClean();
  });

  test('a logLevel that is not a logging level is -32602', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    for (const level of ['verbose', 'INFO', 3, '']) {
      const response = await peer.raw('tools/list', { _meta: { ...envelope(), [META.logLevel]: level } });
      assert.ok(errorOf(response, -32602).message.includes(META.logLevel), `logLevel ${JSON.stringify(level)}`);
    }
    resultOf(await peer.request('tools/list', {}, { logLevel: 'emergency' }));
    harness.assertClean();
  });

  test('the handler sees exactly what this request declared, never what an earlier one did', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const first = await peer.request('tools/call', { name: 'whoami', arguments: {} }, { capabilities: { roots: {} }, clientInfo: { name: 'a', version: '1' } });
    assert.deepEqual(JSON.parse(toolText(first)), { revision: MODERN, peerInfo: { name: 'a', version: '1' }, peerCapabilities: { roots: {} } });
    const second = await peer.request('tools/call', { name: 'whoami', arguments: {} }, { capabilities: {}, clientInfo: null });
    assert.deepEqual(JSON.parse(toolText(second)), { revision: MODERN, peerInfo: null, peerCapabilities: {} });
    harness.assertClean();
  });

  test('an unsupported version is -32022 with data.supported and data.requested', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    for (const requested of ['2099-01-01', '2025-11-25', 'latest']) {
      const error = errorOf(await peer.request('tools/list', {}, { version: requested }), -32022);
      assert.deepEqual(error.data, { supported: [MODERN], requested });
    }
    harness.assertClean();
  });

  test('the error of a bad envelope echoes the request id', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const response = await peer.raw('tools/list', { _meta: {} }, 'my-id-7');
    assert.equal(response.id, 'my-id-7');
    errorOf(response, -32602);
    const numeric = await peer.raw('tools/list', { _meta: envelope({ version: '1999-01-01' }) }, 42);
    assert.equal(numeric.id, 42);
    errorOf(numeric, -32022);
    harness.assertClean();
  });
});

describe('modern envelope: removed and unknown methods are -32601', () => {
  test('initialize on a connection that is already modern', { skip: medium === 'nats' && OVER_NATS.eraBySubject }, async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    resultOf(await peer.request('tools/list'));
    const response = await peer.raw('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
    const error = errorOf(response, -32601);
    assert.deepEqual(error.data, { supported: [MODERN] });
    harness.assertClean();
  });

  test('ping with an envelope, logging/setLevel, resources/subscribe, resources/unsubscribe, an unknown method', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const removed: Array<[string, JsonObject]> = [
      ['ping', {}],
      ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: 'memo://a' }],
      ['resources/unsubscribe', { uri: 'memo://a' }],
      ['tasks/list', {}],
      ['no/such-method', {}],
    ];
    for (const [method, params] of removed) {
      const error = errorOf(await peer.request(method, params), -32601);
      assert.ok(error.message.includes(method), error.message);
    }
    // The connection still serves the era's methods afterwards.
    resultOf(await peer.request('tools/list'));
    harness.assertClean();
  });

  test('a removed method stays -32601 even with a broken envelope (the method is judged first)', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    resultOf(await peer.request('prompts/list'));
    errorOf(await peer.raw('logging/setLevel', { level: 'debug' }), -32601);
    harness.assertClean();
  });
});

describe('modern results: resultType and serverInfo', () => {
  test('every complete result carries resultType "complete" and _meta serverInfo', async () => {
    await using harness = withCatalog(modernServer({ title: 'Modern Spec', websiteUrl: 'https://example.com' }));
    const peer = harness.connect();
    const serverInfo = { name: 'modern-spec-server', version: '1.2.3', title: 'Modern Spec', websiteUrl: 'https://example.com' };
    const calls: Array<[string, JsonObject]> = [
      ['server/discover', {}],
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: { text: 'x' } }],
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['resources/read', { uri: 'memo://a' }],
      ['prompts/list', {}],
      ['prompts/get', { name: 'greet' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'x', value: '' } }],
    ];
    for (const [method, params] of calls) {
      const result = resultOf(await peer.request(method, params));
      assert.equal(result['resultType'], 'complete', method);
      assert.deepEqual(metaOf(result)[META.serverInfo], serverInfo, method);
    }
    harness.assertClean();
  });

  test("a handler's own _meta is kept beside serverInfo, which it cannot override", async () => {
    await using harness = modernServer();
    harness.server.tool({ name: 'meta' }, () => ({
      content: [{ type: 'text', text: 'm' }],
      _meta: { 'example.com/own': 1, [META.serverInfo]: { name: 'spoof', version: '0' } },
    }));
    const peer = harness.connect();
    const meta = metaOf(resultOf(await peer.request('tools/call', { name: 'meta', arguments: {} })));
    assert.equal(meta['example.com/own'], 1);
    assert.deepEqual(meta[META.serverInfo], { name: 'modern-spec-server', version: '1.2.3' });
    harness.assertClean();
  });
});

describe('modern capability gating and errors', () => {
  test('the methods of a feature the server does not offer are -32601', async () => {
    await using harness = modernServer();
    harness.server.prompt({ name: 'only' }, () => ({ messages: [] }));
    const peer = harness.connect();
    for (const [method, params] of [
      ['tools/list', {}],
      ['tools/call', { name: 'echo', arguments: {} }],
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['resources/read', { uri: 'memo://a' }],
    ] as Array<[string, JsonObject]>) {
      errorOf(await peer.request(method, params), -32601);
    }
    resultOf(await peer.request('prompts/list'));
    harness.assertClean();

    await using toolsOnly = modernServer();
    toolsOnly.server.tool({ name: 'only' }, () => 'only');
    const other = toolsOnly.connect();
    errorOf(await other.request('prompts/list'), -32601);
    errorOf(await other.request('prompts/get', { name: 'only' }), -32601);
    errorOf(await other.request('completion/complete', { ref: { type: 'ref/prompt', name: 'only' }, argument: { name: 'x', value: '' } }), -32601);
    toolsOnly.assertClean();
  });

  test('a feature becomes callable as soon as it is registered, and -32601 again once removed', async () => {
    await using harness = modernServer();
    harness.server.prompt({ name: 'only' }, () => ({ messages: [] }));
    const peer = harness.connect();
    errorOf(await peer.request('tools/list'), -32601);
    const registration = harness.server.tool({ name: 'late' }, () => 'late');
    assert.equal(toolText(await peer.request('tools/call', { name: 'late', arguments: {} })), 'late');
    registration.remove();
    errorOf(await peer.request('tools/list'), -32601);
    harness.assertClean();
  });

  test('an unknown resource is -32602 with data.uri (not the legacy -32002)', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const error = errorOf(await peer.request('resources/read', { uri: 'memo://missing' }), -32602);
    assert.deepEqual(error.data, { uri: 'memo://missing' });
    harness.assertClean();
  });

  test('an unknown tool is -32602', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    errorOf(await peer.request('tools/call', { name: 'nope', arguments: {} }), -32602);
    harness.assertClean();
  });
});

describe('modern request ids', () => {
  test(
    'a request reusing the id of a running request is refused with an id-less -32600; the running one still gets its answer',
    async () => {
      await using harness = modernServer();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      harness.server.tool({ name: 'slow' }, async () => (await gate, 'slow'));
      const peer = harness.connect();
      peer.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: envelope() } });
      await peer.expectNone(() => true, 10);
      peer.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: envelope() } });
      const refusal = await peer.next((message) => 'error' in message);
      assert.equal((refusal['error'] as { code: number }).code, -32600);
      assert.equal('id' in refusal, false, `the refusal must not carry the running request's id: ${JSON.stringify(refusal)}`);
      release();
      const answer = await peer.next((message) => message['id'] === 'dup' && 'result' in message);
      assert.equal((answer['result'] as { resultType?: unknown }).resultType, 'complete');
      harness.assertClean();
    },
  );

  test('ids are per request: the same id may be used again once its request was answered', async () => {
    await using harness = withCatalog(modernServer());
    const peer = harness.connect();
    const first = await peer.raw('tools/call', { name: 'echo', arguments: { text: 'one' }, _meta: envelope() }, 'again');
    const second = await peer.raw('tools/call', { name: 'echo', arguments: { text: 'two' }, _meta: envelope() }, 'again');
    assert.equal(toolText(first), 'echo one');
    assert.equal(toolText(second), 'echo two');
    harness.assertClean();
  });
});
