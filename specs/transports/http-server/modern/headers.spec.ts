/**
 * Modern era (2026-07-28) over Streamable HTTP, real 127.0.0.1 sockets: the standard headers (FEATURES N3, N4)
 * and the `Mcp-Param-*` mirrors of `x-mcp-header` arguments (N5). A header that is missing, malformed or
 * disagrees with the body is 400 with -32020 (N6), echoing the request id; header names are case-insensitive,
 * values case-sensitive; values are decoded (OWS, `=?base64?…?=`) before they are compared.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type Reply, asBody } from '../../../support/http-raw-client.ts';
import { type Json, ModernHttp, assertErrorReply, base64Header, envelope, responseOf, serveModern, warmUp } from './modern-http.ts';

before(warmUp);

function text(response: Json): string {
  const result = response['result'] as { content?: Array<{ text?: string }> } | undefined;
  assert.ok(result?.content !== undefined, `not a tool result: ${JSON.stringify(response)}`);
  return result.content.map((block) => block.text ?? '').join('');
}

async function ok(reply: Promise<Reply>): Promise<Json> {
  const settled = await reply;
  assert.equal(settled.status, 200, settled.kind === 'body' ? settled.text : 'stream');
  const response = await responseOf(settled);
  assert.ok(response['result'] !== undefined, JSON.stringify(response));
  return response;
}

describe('modern HTTP headers: Mcp-Method', () => {
  test('a missing Mcp-Method is 400 -32020, with the request id', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const error = assertErrorReply(await client.post('tools/list', {}, { id: 'req-1', headers: { 'Mcp-Method': undefined } }), 400, -32020, 'req-1');
    assert.match(String(error['message']), /Mcp-Method/);
    client.assertClean();
  });

  test('an Mcp-Method that differs from the body method is 400 -32020, and nothing runs', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    assertErrorReply(await client.post('tools/call', { name: 'watch', arguments: {} }, { id: 7, headers: { 'Mcp-Method': 'tools/list' } }), 400, -32020, 7);
    assert.equal(served.watched.length, 0, 'the tool never ran');
    client.assertClean();
  });

  test('header values are case-sensitive: Tools/List is not tools/list', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    assertErrorReply(await client.post('tools/list', {}, { headers: { 'Mcp-Method': 'Tools/List' } }), 400, -32020);
    client.assertClean();
  });

  test('header names are case-insensitive', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const upper = { 'MCP-METHOD': 'tools/call', 'MCP-NAME': 'echo', 'MCP-PROTOCOL-VERSION': '2026-07-28' };
    assert.equal(text(await ok(client.post('tools/call', { name: 'echo', arguments: { text: 'A' } }, { headers: upper }))), 'echo: A');
    const lower = { 'mcp-method': 'tools/call', 'mcp-name': 'echo', 'mcp-protocol-version': '2026-07-28' };
    assert.equal(text(await ok(client.post('tools/call', { name: 'echo', arguments: { text: 'b' } }, { headers: lower }))), 'echo: b');
    client.assertClean();
  });
});

describe('modern HTTP headers: Mcp-Name', () => {
  const targets: Array<[string, Json]> = [
    ['tools/call', { name: 'echo', arguments: { text: 'x' } }],
    ['prompts/get', { name: 'greet' }],
    ['resources/read', { uri: 'memo://a' }],
  ];

  for (const [method, params] of targets) {
    test(`${method}: Mcp-Name missing or different is 400 -32020; the right one is served`, async () => {
      await using served = await serveModern();
      const client = new ModernHttp(served.url);
      const missing = assertErrorReply(await client.post(method, params, { id: 'missing', headers: { 'Mcp-Name': undefined } }), 400, -32020, 'missing');
      assert.match(String(missing['message']), /Mcp-Name/);
      assertErrorReply(await client.post(method, params, { id: 'other', headers: { 'Mcp-Name': 'something-else' } }), 400, -32020, 'other');
      const name = String(params['name'] ?? params['uri']);
      assertErrorReply(await client.post(method, params, { headers: { 'Mcp-Name': name.toUpperCase() } }), 400, -32020);
      await ok(client.post(method, params));
      client.assertClean();
    });
  }

  test('optional whitespace around a value is not part of it', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const padded = { 'Mcp-Name': ' \techo \t', 'Mcp-Method': '  tools/call ' };
    assert.equal(text(await ok(client.post('tools/call', { name: 'echo', arguments: { text: 'ows' } }, { headers: padded }))), 'echo: ows');
    client.assertClean();
  });

  test('a base64-encoded Mcp-Name is decoded before it is compared', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const response = await ok(client.post('prompts/get', { name: 'grüße' }, { headers: { 'Mcp-Name': base64Header('grüße') } }));
    assert.deepEqual((response['result'] as Json)['messages'], [{ role: 'user', content: { type: 'text', text: 'hallo' } }]);
    // Encoding is allowed for plain values too.
    await ok(client.post('tools/call', { name: 'echo', arguments: {} }, { headers: { 'Mcp-Name': base64Header('echo') } }));
    client.assertClean();
  });

  test('a non-ASCII Mcp-Name sent without encoding is 400 -32020', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    // Latin-1 travels through node:http as is; the server must not take it as the UTF-8 body value.
    assertErrorReply(await client.post('prompts/get', { name: 'grüße' }, { headers: { 'Mcp-Name': 'grüße' } }), 400, -32020);
    client.assertClean();
  });
});

describe('modern HTTP headers: MCP-Protocol-Version', () => {
  test('a missing MCP-Protocol-Version is 400 -32020', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const error = assertErrorReply(await client.post('tools/list', {}, { id: 3, headers: { 'MCP-Protocol-Version': undefined } }), 400, -32020, 3);
    assert.match(String(error['message']), /MCP-Protocol-Version/);
    client.assertClean();
  });

  test('a header that disagrees with _meta is 400 -32020, whichever of them names 2026-07-28', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    assertErrorReply(await client.post('tools/list', {}, { version: '2099-01-01', headers: { 'MCP-Protocol-Version': '2026-07-28' } }), 400, -32020);
    assertErrorReply(await client.post('tools/list', {}, { headers: { 'MCP-Protocol-Version': '2030-01-01' } }), 400, -32020);
    client.assertClean();
  });

  test('header and _meta agreeing on an unsupported version is 400 -32022 with supported and requested', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const error = assertErrorReply(await client.post('tools/list', {}, { id: 'v', version: '2099-01-01' }), 400, -32022, 'v');
    assert.deepEqual(error['data'], { supported: ['2026-07-28'], requested: '2099-01-01' });
    client.assertClean();
  });

  test('a body without _meta behind a 2026-07-28 header is the envelope error -32602, not a header error', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = await client.send({ jsonrpc: '2.0', id: 'bare', method: 'tools/list', params: {} }, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' });
    assertErrorReply(reply, 400, -32602, 'bare');
    client.assertClean();
  });
});

describe('modern HTTP headers: Mcp-Param-*', () => {
  test('a plain mirrored value and an integer compared numerically are accepted', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const plain = await ok(client.post('tools/call', { name: 'region', arguments: { region: 'eu-west', count: 7 } }, { headers: { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Count': '007' } }));
    assert.equal(text(plain), 'region eu-west count 7');
    const lowerName = await ok(client.post('tools/call', { name: 'region', arguments: { region: 'eu' } }, { headers: { 'mcp-param-region': 'eu' } }));
    assert.equal(text(lowerName), 'region eu count undefined');
    client.assertClean();
  });

  test('a base64-encoded value is decoded before it is compared', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const response = await ok(client.post('tools/call', { name: 'region', arguments: { region: 'Zürich ' } }, { headers: { 'Mcp-Param-Region': base64Header('Zürich ') } }));
    assert.equal(text(response), 'region Zürich  count undefined');
    client.assertClean();
  });

  test('bad base64, a raw non-ASCII value and a different value are 400 -32020', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const args = { region: 'Zürich' };
    for (const header of ['=?base64?not*base64?=', '=?base64?WsO8cmljaA?=', 'Zürich', base64Header('Zurich'), 'zürich']) {
      assertErrorReply(await client.post('tools/call', { name: 'region', arguments: args }, { id: header, headers: { 'Mcp-Param-Region': header } }), 400, -32020, header);
    }
    assertErrorReply(await client.post('tools/call', { name: 'region', arguments: { region: 'eu', count: 7 } }, { headers: { 'Mcp-Param-Region': 'eu', 'Mcp-Param-Count': '8' } }), 400, -32020);
    client.assertClean();
  });

  test('a value in the body without its header is 400 -32020; so is a header without a value in the body', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const missing = assertErrorReply(await client.post('tools/call', { name: 'region', arguments: { region: 'eu' } }, { id: 'no-header' }), 400, -32020, 'no-header');
    assert.match(String(missing['message']), /Mcp-Param-Region/);
    assertErrorReply(await client.post('tools/call', { name: 'region', arguments: { note: 'n' } }, { headers: { 'Mcp-Param-Region': 'eu' } }), 400, -32020);
    // Neither present: nothing to mirror.
    assert.equal(text(await ok(client.post('tools/call', { name: 'region', arguments: { note: 'n' } }))), 'region undefined count undefined');
    client.assertClean();
  });

  test('Mcp-Param headers of a tool that marks nothing are not checked', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    assert.equal(text(await ok(client.post('tools/call', { name: 'echo', arguments: { text: 't' } }, { headers: { 'Mcp-Param-Region': 'anything' } }))), 'echo: t');
    client.assertClean();
  });
});

describe('modern HTTP headers: what a correct request looks like', () => {
  test('the standard headers built from the body are accepted, and the envelope is what the server reads', async () => {
    await using served = await serveModern();
    const client = new ModernHttp(served.url);
    const reply = asBody(await client.post('tools/call', { name: 'echo', arguments: { text: 'fine' } }));
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['mcp-session-id'], undefined, 'no session id is ever minted for a modern request');
    assert.equal(text(reply.json as Json), 'echo: fine');
    assert.ok(envelope()['io.modelcontextprotocol/protocolVersion'] === '2026-07-28');
    client.assertClean();
  });
});
