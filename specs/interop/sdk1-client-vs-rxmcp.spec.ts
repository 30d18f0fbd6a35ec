/**
 * Interop: the official TypeScript SDK 1.x `Client` against our server (interop-rxmcp-server.ts), over
 *   - stdio: our fixture program (serveStdio) spawned by the SDK's StdioClientTransport;
 *   - Streamable HTTP: createStreamableHttpServer(...).listen(0), the SDK's StreamableHTTPClientTransport;
 *   - 2024-11-05 HTTP+SSE: our `legacySse` endpoints, the SDK's SSEClientTransport.
 * Each transport runs the same core flow (interop-sdk-client-flow.ts); the schema oracle checks everything our
 * server sends. One HTTP server serves both HTTP suites; the stdio child is killed by pid at the end.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import { PROCESS_MS, fixtureCommand, isRunning, killChildren, trackChild, until } from '../support/interop-processes.ts';
import { type InteropServer, createInteropServer } from '../support/interop-rxmcp-server.ts';
import {
  answerElicitation,
  type FlowTarget,
  type Recorded,
  SAMPLED_MODEL,
  SAMPLED_TEXT,
  describeSdkClientFlow,
  newRecorded,
} from '../support/interop-sdk-client-flow.ts';

const CLIENT_NAME = 'sdk1-interop-client';

/** An SDK 1.x client declaring sampling and elicitation, its handlers recording into `recorded`. */
function sdkClient(): { client: Client; recorded: Recorded } {
  const recorded = newRecorded();
  const client = new Client({ name: CLIENT_NAME, version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => answerElicitation(recorded, request.params));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    const first = request.params.messages[0]?.content;
    const text = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '';
    recorded.samplings.push({ maxTokens: request.params.maxTokens, systemPrompt: request.params.systemPrompt, text });
    return { model: SAMPLED_MODEL, role: 'assistant', content: { type: 'text', text: SAMPLED_TEXT } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    recorded.logs.push({ level: notification.params.level, logger: notification.params.logger, data: notification.params.data });
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void recorded.updates.push(notification.params.uri));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void recorded.toolListChanges.push('tools'));
  client.onerror = (error) => void recorded.errors.push(error.message);
  return { client, recorded };
}

function flowTarget(client: Client, recorded: Recorded, close: () => Promise<void>): FlowTarget {
  return {
    client,
    recorded,
    clientName: CLIENT_NAME,
    notFoundCode: -32002, // passed through as sent
    callTool: (name, args, options = {}) =>
      client.callTool({ name, arguments: args }, CallToolResultSchema, {
        ...(options.onprogress === undefined ? {} : { onprogress: options.onprogress }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    close,
  };
}

/** Connects with a handshake bound generous enough for a child that compiles TypeScript on start. */
function connect(client: Client, transport: Transport): Promise<void> {
  return client.connect(transport, { timeout: PROCESS_MS });
}

// --- the in-process HTTP server shared by the Streamable HTTP and HTTP+SSE suites ---------------------------

let served: { http: StreamableHttpServer; interop: InteropServer; url: string } | undefined;
async function httpServer(): Promise<{ url: string }> {
  if (served === undefined) {
    const interop = createInteropServer();
    const http = createStreamableHttpServer({ server: interop.acceptor, legacySse: true });
    const { url } = await http.listen(0);
    served = { http, interop, url };
  }
  return served;
}

after(async () => {
  await served?.http.close();
  await served?.interop.server.close();
  const leftovers = await killChildren();
  assert.deepEqual(leftovers, [], 'every child exited on its own once its client closed');
});

// --- stdio --------------------------------------------------------------------------------------------------

describeSdkClientFlow('sdk1 client vs rxmcp - stdio (StdioClientTransport spawning our serveStdio program)', async () => {
  const { client, recorded } = sdkClient();
  const stderr: string[] = [];
  const transport = new StdioClientTransport({ ...fixtureCommand('rxmcp-stdio-server.ts'), stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => void stderr.push(chunk.toString('utf8')));
  const connecting = connect(client, transport);
  trackChild(transport.pid, 'rxmcp stdio fixture (spawned by SDK 1.x)');
  await connecting;
  const pid = transport.pid;
  assert.equal(typeof pid, 'number');
  return flowTarget(client, recorded, async () => {
    await client.close();
    // Closing ends the child's stdin: our server program exits by itself.
    await until(() => stderr.join('').includes('rxmcp-stdio-server: stdin closed (orderly)'), 'the fixture saw stdin close', PROCESS_MS);
    await until(() => pid === null || !isRunning(pid), 'the fixture exited', PROCESS_MS);
  });
});

// --- Streamable HTTP ----------------------------------------------------------------------------------------

describeSdkClientFlow(
  'sdk1 client vs rxmcp - Streamable HTTP (StreamableHTTPClientTransport, createStreamableHttpServer)',
  async () => {
    const { url } = await httpServer();
    const { client, recorded } = sdkClient();
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await connect(client, transport);
    assert.match(transport.sessionId ?? '', /\S/, 'our server gave a session id');
    assert.equal(transport.protocolVersion, '2025-11-25');
    return flowTarget(client, recorded, async () => {
      const before = served?.http.sessionCount ?? 0;
      await transport.terminateSession();
      assert.equal(served?.http.sessionCount, before - 1, 'DELETE ended the session');
      await client.close();
    });
  },
);

// --- 2024-11-05 HTTP+SSE ------------------------------------------------------------------------------------

describeSdkClientFlow('sdk1 client vs rxmcp - legacy HTTP+SSE (SSEClientTransport, our legacySse endpoints)', async () => {
  const { url } = await httpServer();
  const { client, recorded } = sdkClient();
  await connect(client, new SSEClientTransport(new URL(url.replace(/\/mcp$/, '/sse'))));
  return flowTarget(client, recorded, async () => {
    const before = served?.http.sessionCount ?? 0;
    await client.close();
    await until(() => served?.http.sessionCount === before - 1, 'closing the SSE stream ended the session');
  });
});
