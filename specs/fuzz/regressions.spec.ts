/**
 * Minimal repros of what the reliability properties found, kept as plain specs so they stay fixed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import type { McpServer } from '../../index.ts';
import { connect } from '@nats-io/transport-node';
import { serveNats, serverSubjects } from '../../transports/nats/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { fuzzServer } from './fuzz-server.ts';

let server: McpServer;
let http: StreamableHttpServer;
let url: string;
before(async () => {
  server = fuzzServer();
  http = createStreamableHttpServer({ server });
  url = (await http.listen()).url;
});
after(async () => {
  await http.close();
  await server.close();
});

const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

test('http modern - a refusal before the request is read echoes no id that is not a valid request id (2^60 is no safe integer)', async () => {
  // No Mcp-Method header: the header check refuses it before any session sees it.
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2 ** 60, method: 'tools/list', params: { _meta: modernMeta } }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(response.status, 400);
  assert.equal((body['error'] as { code: number }).code, -32020);
  assert.equal('id' in body, false, `an id the client cannot have meant: ${JSON.stringify(body)}`);
});

test('nats - a response sent to a call subject is refused without its id (the id names a request of the client)', async () => {
  const nats = await startNatsServer({ jetstream: false });
  const connection = await connect({ servers: nats.url });
  const natsServer = fuzzServer();
  const serving = await serveNats(natsServer, { connection, name: 'fuzz', sessionRecords: false });
  try {
    const subject = serverSubjects('mcp', 'fuzz').call('tools/call') ?? assert.fail('tools/call has a subject');
    for (const body of [{ jsonrpc: '2.0', id: 'mine', result: {} }, { jsonrpc: '2.0', id: 'mine', error: { code: 1, message: 'x' } }]) {
      const reply = await connection.request(subject, new TextEncoder().encode(JSON.stringify(body)), { timeout: 5000 });
      const answer = JSON.parse(new TextDecoder().decode(reply.data)) as Record<string, unknown>;
      assert.equal((answer['error'] as { code: number }).code, -32600);
      assert.equal('id' in answer, false, `the refusal of ${JSON.stringify(body)} carried its id: ${JSON.stringify(answer)}`);
    }
    // A broken request still gets its id back, so its sender can tell which request failed.
    const broken = await connection.request(subject, new TextEncoder().encode(JSON.stringify({ jsonrpc: '1.0', id: 'req', method: 'tools/call' })), { timeout: 5000 });
    assert.equal((JSON.parse(new TextDecoder().decode(broken.data)) as Record<string, unknown>)['id'], 'req');
  } finally {
    await serving.close();
    await natsServer.close();
    await connection.close();
    await nats.dispose();
  }
});
