/**
 * Interoperability: the official TypeScript SDK's clients (StreamableHTTPClientTransport, and SSEClientTransport
 * for 2024-11-05) against this server, over real sockets. Includes the 2025-11-25 polling pattern: the server
 * closes a slow call's stream, and the SDK resumes with GET + Last-Event-ID on its own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../../support/harness.ts';
import { serve } from './fixtures.ts';

function sdkClient(): { client: Client; logs: unknown[]; errors: string[] } {
  const client = new Client({ name: 'sdk', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const logs: unknown[] = [];
  const errors: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'SDK' } }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params.data));
  client.onerror = (error) => void errors.push(error.message);
  return { client, logs, errors };
}

const textOf = (result: unknown): string => ((result as { content: Array<{ text?: string }> }).content[0]?.text ?? '');

describe('http server: official SDK clients', () => {
  test('Streamable HTTP: tools, elicitation, logs and progress, then a session end by DELETE', async () => {
    await using served = await serve();
    const { client, logs, errors } = sdkClient();
    const transport = new StreamableHTTPClientTransport(new URL(served.url));
    await client.connect(transport);
    assert.equal(typeof transport.sessionId, 'string');
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['echo', 'progress', 'log', 'ask', 'wait', 'flood']);
    assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'answered accept {"name":"SDK"}');
    assert.equal(textOf(await client.callTool({ name: 'log', arguments: {} })), 'logged');
    await eventually(() => logs.length === 3, 1000, 'the logs arrived');
    const progress: number[] = [];
    assert.equal(textOf(await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (update) => void progress.push(update.progress) })), 'counted');
    await transport.terminateSession();
    assert.equal(served.http.sessionCount, 0);
    await client.close();
    assert.deepEqual(errors.filter((message) => !/abort/i.test(message)), []);
  });

  test('Streamable HTTP polling: a stream the server closes mid-call is resumed by the SDK and delivers the result', async () => {
    await using served = await serve({ sse: { retryMs: 10, closeRequestStreamsAfterMs: 30 } });
    const { client, errors } = sdkClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const slow = client.callTool({ name: 'wait', arguments: { key: 'poll' } });
    await served.gates.started('poll');
    await new Promise((resolve) => setTimeout(resolve, 100)); // several server-side closes and resumes
    served.gates.open('poll');
    assert.equal(textOf(await slow), 'done poll');
    await client.close();
    assert.deepEqual(errors.filter((message) => !/abort/i.test(message)), []);
  });

  test('2024-11-05 HTTP+SSE: the SDK SSE client initializes and calls tools', async () => {
    await using served = await serve({ legacySse: true });
    const { client, logs } = sdkClient();
    await client.connect(new SSEClientTransport(new URL(served.url.replace(/\/mcp$/, '/sse'))));
    assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'answered accept {"name":"SDK"}');
    assert.equal(textOf(await client.callTool({ name: 'log', arguments: {} })), 'logged');
    await eventually(() => logs.length === 3, 1000, 'the logs arrived');
    await client.close();
    await eventually(() => served.http.sessionCount === 0, 1000, 'closing the SSE stream ended the session');
  });
});
