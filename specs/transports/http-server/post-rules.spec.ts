/**
 * What the endpoint checks of a POST before the session sees it (FEATURES H3, H4, H5): Content-Type (415),
 * Accept (406, with the leniency the spec leaves), malformed JSON (400, id-less -32700), body size (413),
 * notifications and responses (202 without a body), 2025-03-26 batches, methods and paths.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { ACCEPT_BOTH, RawMcp, asBody, asStream, rawRequest } from '../../support/http-raw-client.ts';
import { serve } from './fixtures.ts';

const ping = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

async function initialized(url: string, protocolVersion = '2025-11-25'): Promise<RawMcp> {
  const mcp = new RawMcp(url);
  await mcp.initialize(protocolVersion);
  return mcp;
}

function idLessError(json: unknown): { code: number; message: string } {
  const body = json as { id?: unknown; error?: { code: number; message: string } };
  assert.equal('id' in body, false);
  assert.ok(body.error !== undefined, `an error body: ${JSON.stringify(json)}`);
  return body.error;
}

describe('http server: POST rules', () => {
  test('a Content-Type other than application/json gets 415; a charset parameter is fine', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const reply = asBody(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'ping' }, { 'content-type': type }));
      assert.equal(reply.status, 415, type);
      assert.match(idLessError(reply.json).message, /Content-Type/);
    }
    const charset = await mcp.call('ping', undefined, { 'content-type': 'Application/JSON; charset=utf-8' });
    assert.equal(charset.reply.status, 200);
    mcp.assertClean();
  });

  test('Accept: requests need one of the two answer types (406 otherwise); the server answers in a type the client takes', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    for (const accept of ['text/html', 'image/*', 'application/json;q=0, text/event-stream;q=0']) {
      const reply = asBody(await mcp.post({ jsonrpc: '2.0', id: mcp.id(), method: 'ping' }, { accept }));
      assert.equal(reply.status, 406, accept);
      assert.match(idLessError(reply.json).message, /Accept/);
    }
    const jsonOnly = await mcp.call('ping', undefined, { accept: 'application/json' });
    assert.equal(jsonOnly.reply.kind, 'body', 'a client that takes only JSON gets JSON from an SSE-mode server');
    assert.equal(jsonOnly.reply.headers['content-type'], 'application/json');
    const wildcard = await mcp.call('ping', undefined, { accept: '*/*' });
    assert.equal(wildcard.reply.kind, 'sse');
    // Notifications get no answer, so Accept does not matter for them.
    assert.equal((await mcp.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { accept: 'text/html' })).status, 202);
    mcp.assertClean();
  });

  test('malformed JSON gets 400 with an id-less -32700; a non-message JSON value is answered by the session', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const reply = asBody(await rawRequest(served.url, { method: 'POST', headers: mcp.sessionHeaders({ 'content-type': 'application/json', accept: ACCEPT_BOTH }), body: '{"jsonrpc":"2.0",' }));
    assert.equal(reply.status, 400);
    assert.equal(idLessError(reply.json).code, -32700);
    mcp.check(reply.json);
    const invalid = await mcp.post({ hello: 'world' });
    const answer = (await mcp.responseOf(invalid)) as { error?: { code: number } };
    assert.equal(answer.error?.code, -32600);
    mcp.assertClean();
  });

  test('notifications and responses get 202 with no body', async () => {
    await using served = await serve();
    const mcp = await initialized(served.url);
    const notification = asBody(await mcp.post({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }));
    assert.equal(notification.status, 202);
    assert.equal(notification.text, '');
    const response = asBody(await mcp.post({ jsonrpc: '2.0', id: 12345, result: {} }));
    assert.equal(response.status, 202);
    assert.equal(response.text, '');
    mcp.assertClean();
  });

  test('bodies over maxBodyBytes get 413, whether declared by Content-Length or streamed in chunks', async () => {
    await using served = await serve({ maxBodyBytes: 1024 });
    const mcp = await initialized(served.url);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(4096) } } });
    const declared = asBody(await mcp.post(JSON.parse(big) as unknown));
    assert.equal(declared.status, 413);
    assert.match(idLessError(declared.json).message, /1024 bytes/);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(served.url, { method: 'POST', agent: false, headers: mcp.sessionHeaders({ 'content-type': 'application/json', accept: ACCEPT_BOTH, 'transfer-encoding': 'chunked' }) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // Keep sending past the limit: the server answers without reading (or buffering) the rest.
      for (let index = 0; index < 64; index++) req.write('x'.repeat(512));
      req.end();
    });
    assert.equal(chunked, 413);
    assert.equal((await mcp.call('ping')).reply.status, 200, 'the session is unharmed');
    mcp.assertClean();
  });

  test('2025-03-26 batches: requests answered together, notifications-only batches get 202; later revisions refuse arrays', async () => {
    await using served = await serve();
    const old = await initialized(served.url, '2025-03-26');
    const batch = [
      { jsonrpc: '2.0', id: 100, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 101, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } },
    ];
    const reply = await old.post(batch);
    const answer = (await old.responseOf(reply)) as Array<{ id: number }>;
    assert.deepEqual(answer.map((item) => item.id).sort(), [100, 101]);
    assert.equal(asStream(reply).ended || (await asStream(reply).done) === 'ended', true);
    assert.equal((await old.post([{ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }])).status, 202);
    old.assertClean();

    const current = await initialized(served.url, '2025-11-25');
    const refused = (await current.responseOf(await current.post([{ jsonrpc: '2.0', id: 5, method: 'ping' }]))) as { error?: { code: number } };
    assert.equal(refused.error?.code, -32600);
    current.assertClean();
  });

  test('only a lone initialize may come without a session; other methods and paths are refused', async () => {
    await using served = await serve();
    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
    const batchedInit = await rawRequest(served.url, {
      method: 'POST',
      headers,
      body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }]),
    });
    assert.equal(batchedInit.status, 400);
    assert.equal((await rawRequest(served.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status, 400);
    const put = asBody(await rawRequest(served.url, { method: 'PUT', headers, body: ping(1) }));
    assert.equal(put.status, 405);
    assert.equal(put.headers['allow'], 'GET, POST, DELETE');
    const elsewhere = asBody(await rawRequest(served.url.replace(/\/mcp$/, '/other'), { method: 'POST', headers, body: ping(1) }));
    assert.equal(elsewhere.status, 404);
    assert.equal(served.http.sessionCount, 0);
  });
});
