/**
 * A session host behind Streamable HTTP: its refusal becomes a 503 with the reason before any session is
 * opened, and a freed place is taken again; the host's close-all ends the HTTP sessions too.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { createServer } from '../../../server/create-server.ts';
import { createSessionHost } from '../../../server/session-host.ts';
import { createStreamableHttpServer } from '../../../transports/http/index.ts';
import { eventually } from '../../support/harness.ts';
import { RawMcp, asBody, rawRequest } from '../../support/http-raw-client.ts';

/** A Streamable HTTP endpoint on 127.0.0.1 whose sessions a host of `maxSessions` owns; stopped after the test. */
async function hostedEndpoint(t: TestContext, maxSessions: number) {
  const host = createSessionHost(createServer({ name: 'hosted', version: '1' }), { maxSessions });
  const http = createStreamableHttpServer({ server: host });
  const listening = await http.listen(0, '127.0.0.1');
  t.after(async () => {
    await http.close();
    await listening.close();
    await host.close();
  });
  return { host, http, listening };
}

test('http + session host - a full host refuses initialize with 503 and its reason; closing a session frees the place', async (t) => {
  const { host, http, listening } = await hostedEndpoint(t, 2);
  const first = new RawMcp(listening.url);
  await first.initialize();
  const second = new RawMcp(listening.url);
  await second.initialize();
  assert.equal(host.sessions.size, 2);
  const accepted = host.metrics().accepted;

  const refused = asBody(await rawRequest(listening.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'third', version: '1' } } }),
  }));
  assert.equal(refused.status, 503);
  assert.match(JSON.stringify(refused.json), /maximum of 2 sessions/);
  assert.equal(http.sessionCount, 2, 'nothing was opened for the refused client');
  assert.equal(host.metrics().accepted, accepted, 'refused before the host was asked to accept it: no work done');
  assert.equal(host.metrics().refused, 1, 'and counted, once');

  assert.equal((await first.delete()).status, 200);
  await eventually(() => host.sessions.size === 1, 1_000, 'the deleted session to leave the host');
  const third = new RawMcp(listening.url);
  await third.initialize();
  assert.equal(host.sessions.size, 2);

  await host.closeAll();
  await eventually(() => http.sessionCount === 0, 1_000, 'the HTTP sessions to end with the host sessions');
  const gone = await second.post({ jsonrpc: '2.0', id: 5, method: 'ping' });
  assert.equal(gone.status, 404, 'the closed session is gone');
});

test('http + session host - a modern request meeting a full host is answered 503 with the reason, not an internal error', async (t) => {
  const { host, listening } = await hostedEndpoint(t, 1);
  const holder = new RawMcp(listening.url);
  await holder.initialize();
  const discover = (): Promise<ReturnType<typeof asBody>> => rawRequest(listening.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '1' } } } }),
  }).then(asBody);
  const accepted = host.metrics().accepted;
  const refused = await discover();
  assert.equal(refused.status, 503);
  assert.match(JSON.stringify(refused.json), /maximum of 1 sessions/);
  assert.equal(host.metrics().accepted, accepted, 'refused before a transport was made for it');
  assert.equal(host.metrics().refused, 1, 'and counted, once');
  assert.equal((await holder.delete()).status, 200);
  await eventually(() => host.sessions.size === 0, 1_000, 'the place to free');
  const served = await discover();
  assert.equal(served.status, 200, `served once there is room: ${JSON.stringify(served.json)}`);
});
