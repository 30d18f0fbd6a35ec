/**
 * Minimal repros of what the reliability properties found, kept as plain specs so they stay fixed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import type { McpServer } from '../../index.ts';
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
