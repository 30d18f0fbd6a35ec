/**
 * Stateless mode: no session ids; each POST is served by a session of its own (preinitialized from the
 * MCP-Protocol-Version header, or negotiating when it is an initialize) that closes once it answered. Server
 * requests fail at once; GET and DELETE get 405.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../../support/harness.ts';
import { RawMcp, asBody, asStream } from '../../support/http-raw-client.ts';
import { isMethod, messagesOf, resultText, serve } from './fixtures.ts';

describe('http server: stateless mode', () => {
  test('initialize works but issues no session id; every later POST is served without one', async () => {
    await using served = await serve({ stateless: true });
    const mcp = new RawMcp(served.url);
    const result = await mcp.initialize('2025-06-18');
    assert.equal(result['protocolVersion'], '2025-06-18');
    assert.equal(mcp.sessionId, undefined);
    const { reply, response } = await mcp.call('tools/call', { name: 'echo', arguments: { text: 'stateless' } });
    assert.equal(reply.headers['mcp-session-id'], undefined);
    assert.equal(resultText(response), 'echo: stateless');
    const listed = await mcp.call('tools/list');
    assert.ok(Array.isArray((listed.response['result'] as { tools: unknown[] }).tools));
    await eventually(() => served.server.sessions.size === 0, 1000, 'every per-request session closed');
    assert.equal(served.http.sessionCount, 0);
    mcp.assertClean();
  });

  test('the revision comes from MCP-Protocol-Version (2025-03-26 when absent); invalid values get 400', async () => {
    await using served = await serve({ stateless: true });
    const modern = new RawMcp(served.url, { revision: '2025-11-25' });
    const { response } = await modern.call('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 1 } });
    assert.equal(resultText(response), 'counted');
    modern.assertClean();

    const old = new RawMcp(served.url, { revision: '2025-03-26' });
    const batch = await old.post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    const answers = (await old.responseOf(batch)) as Array<{ id: number }>;
    assert.deepEqual(answers.map((answer) => answer.id).sort(), [1, 2], 'batches follow the header revision');
    old.assertClean();

    const bad = new RawMcp(served.url, { revision: '2030-01-01' });
    assert.equal((await bad.post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status, 400);
  });

  test('server-to-client requests fail at once: the preinitialized client declared no capabilities', async () => {
    await using served = await serve({ stateless: true });
    const mcp = new RawMcp(served.url, { revision: '2025-11-25' });
    const started = Date.now();
    const { reply, response } = await mcp.call('tools/call', { name: 'ask', arguments: {} });
    assert.ok(Date.now() - started < 1000);
    assert.equal((response['result'] as { isError?: boolean }).isError, true);
    assert.match(resultText(response), /elicitation/);
    assert.equal(messagesOf(asStream(reply), isMethod('elicitation/create')).length, 0, 'nothing was sent that could not be answered');
    mcp.assertClean();
  });

  test('related notifications still stream before the answer; JSON mode answers with a body', async () => {
    await using served = await serve({ stateless: true });
    const mcp = new RawMcp(served.url, { revision: '2025-11-25' });
    const { reply } = await mcp.call('tools/call', { name: 'log', arguments: {} });
    const stream = asStream(reply);
    assert.equal(await stream.done, 'ended');
    assert.equal(messagesOf(stream, isMethod('notifications/message')).length, 3);
    assert.ok(stream.events.every((event) => event.id === undefined), 'no resumability without sessions');
    mcp.assertClean();

    await using json = await serve({ stateless: true, responseMode: 'json' });
    const plain = new RawMcp(json.url, { revision: '2025-11-25' });
    const answer = await plain.call('ping');
    assert.equal(asBody(answer.reply).status, 200);
    assert.deepEqual(answer.response['result'], {});
    plain.assertClean();
  });

  test('GET and DELETE get 405; notifications and responses get 202', async () => {
    await using served = await serve({ stateless: true });
    const mcp = new RawMcp(served.url, { revision: '2025-11-25' });
    for (const reply of [await mcp.get(), await mcp.delete()]) {
      assert.equal(reply.status, 405);
      assert.equal(asBody(reply).headers['allow'], 'POST');
    }
    assert.equal((await mcp.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    assert.equal((await mcp.post({ jsonrpc: '2.0', id: 4, result: {} })).status, 202);
    assert.equal(served.server.sessions.size, 0);
    mcp.assertClean();
  });

  test('a client that leaves mid-request ends that request (nothing could reach it any more)', async () => {
    await using served = await serve({ stateless: true });
    const mcp = new RawMcp(served.url, { revision: '2025-11-25' });
    const reply = asStream(await mcp.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: { key: 'gone' } } }));
    await served.gates.started('gone');
    assert.equal(served.server.sessions.size, 1);
    reply.close();
    await eventually(() => served.server.sessions.size === 0, 1000, 'the per-request session closed');
    mcp.assertClean();
  });
});
