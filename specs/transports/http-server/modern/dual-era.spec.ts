/**
 * Both eras on one Streamable HTTP endpoint (FEATURES N1, N12, 4.2.6), real 127.0.0.1 sockets: legacy
 * sessions (initialize, Mcp-Session-Id, GET stream, DELETE) keep working beside modern POSTs, and neither era
 * hears the other's traffic. A modern-only endpoint refuses the legacy shape.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createServer } from '../../../../server/create-server.ts';
import { eventually } from '../../../support/harness.ts';
import { ACCEPT_BOTH, RawMcp, asBody, asStream, rawRequest } from '../../../support/http-raw-client.ts';
import { demoServer, nextMessage, resultText, serve } from '../fixtures.ts';
import { type Json, META, ModernHttp, assertErrorReply, serveModern, streamMessages, warmUp } from './modern-http.ts';

before(warmUp);

const isMethod = (method: string) => (message: Json): boolean => message['method'] === method;

describe('dual-era endpoint: legacy sessions beside modern POSTs', () => {
  test('GET and DELETE still serve a legacy session', async () => {
    await using served = await serveModern();
    const legacy = new RawMcp(served.url);
    await legacy.initialize('2025-11-25');
    assert.ok(legacy.sessionId !== undefined);
    const stream = asStream(await legacy.get());
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['mcp-session-id'], legacy.sessionId);
    const modern = new ModernHttp(served.url);
    assert.equal((await modern.call('tools/list')).reply.status, 200, 'a modern POST while the GET stream is open');
    const deleted = await legacy.delete();
    assert.equal(deleted.status, 200);
    assert.equal(await stream.done, 'ended');
    assert.equal((await legacy.post({ jsonrpc: '2.0', id: 99, method: 'ping' })).status, 404);
    legacy.assertClean();
    modern.assertClean();
  });

  test('legacy session traffic and modern POSTs interleave on the same endpoint, each in its own era', async () => {
    await using served = await serveModern();
    const legacy = new RawMcp(served.url);
    await legacy.initialize('2025-06-18', {});
    const modern = new ModernHttp(served.url);

    const modernList = await modern.call('tools/list');
    const legacyList = await legacy.call('tools/list');
    const modernCall = await modern.call('tools/call', { name: 'echo', arguments: { text: 'modern' } });
    const legacyCall = await legacy.call('tools/call', { name: 'echo', arguments: { text: 'legacy' } });

    assert.equal(resultText(legacyCall.response), 'echo: legacy');
    assert.equal(resultText(modernCall.response), 'echo: modern');
    assert.equal((modernList.response['result'] as Json)['resultType'], 'complete');
    assert.equal('resultType' in (legacyList.response['result'] as Json), false, 'the legacy session keeps 2025-06-18 results');
    assert.equal(legacyList.reply.headers['mcp-session-id'], legacy.sessionId);
    assert.equal(modernList.reply.headers['mcp-session-id'], undefined, 'modern answers never carry a session id');
    assert.equal(served.http.sessionCount, 1, 'modern POSTs open no HTTP session');
    // Legacy semantics stay with the session: ping works there and not in the modern era.
    assert.deepEqual((await legacy.call('ping')).response['result'], {});
    assertErrorReply(await modern.post('ping', {}, { id: 'p' }), 404, -32601, 'p');
    legacy.assertClean();
    modern.assertClean();
  });

  test('legacy broadcasts reach the GET stream only; a modern listen gets only its own, tagged notifications', async () => {
    await using served = await serveModern();
    const legacy = new RawMcp(served.url);
    await legacy.initialize('2025-11-25');
    await legacy.call('logging/setLevel', { level: 'debug' });
    const standalone = asStream(await legacy.get());
    const modern = new ModernHttp(served.url);
    const listen = asStream(await modern.post('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'L', logLevel: 'debug' }));
    await nextMessage(listen, isMethod('notifications/subscriptions/acknowledged'));

    served.server.log('warning', { to: 'legacy' });
    served.server.tool({ name: 'added' }, () => 'added');

    const log = await nextMessage(standalone, isMethod('notifications/message'));
    assert.deepEqual(log['params'], { level: 'warning', data: { to: 'legacy' } });
    const legacyChange = await nextMessage(standalone, isMethod('notifications/tools/list_changed'));
    assert.equal(legacyChange['params'] === undefined || !('_meta' in (legacyChange['params'] as Json)), true, 'no subscriptionId on the legacy stream');
    const modernChange = await nextMessage(listen, isMethod('notifications/tools/list_changed'));
    assert.deepEqual(modernChange['params'], { _meta: { [META.subscriptionId]: 'L' } });

    // A further change proves each stream has delivered everything sent before it.
    served.server.prompt({ name: 'fence' }, () => ({ messages: [] }));
    await nextMessage(standalone, isMethod('notifications/prompts/list_changed'));
    served.server.tool({ name: 'fence' }, () => 'fence');
    await eventually(() => streamMessages(listen).filter(isMethod('notifications/tools/list_changed')).length === 2, 1000, 'the second tool change on the listen');

    const onListen = streamMessages(listen);
    assert.equal(onListen.filter(isMethod('notifications/message')).length, 0, 'server.log reached the modern listen');
    assert.equal(onListen.filter(isMethod('notifications/prompts/list_changed')).length, 0, 'the listen did not ask for prompts');
    assert.ok(onListen.every((message) => ((message['params'] as Json)['_meta'] as Json)[META.subscriptionId] === 'L'));
    const onStandalone = standalone.messages() as Json[];
    assert.equal(onStandalone.filter(isMethod('notifications/tools/list_changed')).length, 2, 'one per tool change: the modern listen did not reach the legacy session');
    assert.ok(onStandalone.every((message) => !JSON.stringify(message).includes(META.subscriptionId)));
    standalone.close();
    listen.close();
    legacy.assertClean();
    modern.assertClean();
  });

  test('an initialize POSTed with a 2026-07-28 header is 404 -32601 and mints no session', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = await client.send(
      { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mixed', version: '1' } } },
      { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'initialize' },
    );
    assertErrorReply(reply, 404, -32601, 'init');
    assert.equal(reply.headers['mcp-session-id'], undefined);
    assert.equal(served.http.sessionCount, 0);
    client.assertClean();
  });

  test('a legacy POST without a session id is still refused the legacy way (400, id-less -32600)', async () => {
    await using served = await serveModern();
    const reply = asBody(
      await rawRequest(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
    );
    assert.equal(reply.status, 400);
    assert.deepEqual(Object.keys(reply.json as Json).sort(), ['error', 'jsonrpc']);
    assert.equal(((reply.json as Json)['error'] as Json)['code'], -32600);
  });
});

describe('modern-only endpoint', () => {
  async function serveModernOnly(): Promise<Awaited<ReturnType<typeof serve>>> {
    const server = createServer({ name: 'modern-only', version: '1.0.0', eras: 'modern' });
    server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Json) => `echo: ${String(args['text'])}`);
    return serve({}, { server, gates: demoServer().gates });
  }

  test('initialize is 404 -32601 naming the supported versions; modern requests are served', async () => {
    await using served = await serveModernOnly();
    const client = new ModernHttp(served.url);
    const reply = await client.send(
      { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
      { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'initialize' },
    );
    const error = assertErrorReply(reply, 404, -32601, 'init');
    assert.deepEqual(error['data'], { supported: ['2026-07-28'] });
    assert.equal(resultText((await client.call('tools/call', { name: 'echo', arguments: { text: 'ok' } })).response), 'echo: ok');
    assert.equal(served.http.sessionCount, 0);
    client.assertClean();
  });

  test(
    'GET and DELETE are 405',
    async () => {
      await using served = await serveModernOnly();
      for (const method of ['GET', 'DELETE']) {
        const reply = await rawRequest(served.url, { method, headers: { accept: 'text/event-stream' } });
        assert.equal(reply.status, 405, method);
        const withSession = await rawRequest(served.url, { method, headers: { accept: 'text/event-stream', 'mcp-session-id': 'stale' } });
        assert.equal(withSession.status, 405, `${method} with a session id`);
      }
    },
  );
});
