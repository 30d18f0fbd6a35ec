/**
 * Interop: the official TypeScript SDK 2.x `Client` (@modelcontextprotocol/client), pinned to the legacy era at
 * 2025-11-25, against our server (interop-rxmcp-server.ts), over
 *   - stdio: our fixture program (serveStdio) spawned by the SDK's StdioClientTransport;
 *   - Streamable HTTP: createStreamableHttpServer(...).listen(0), the SDK's StreamableHTTPClientTransport.
 * Both run the core flow of interop-sdk-client-flow.ts; the schema oracle checks everything our server sends.
 *
 * Pinning: 2.x clients default to `versionNegotiation: { mode: 'legacy' }` (the plain 2025 `initialize`); we
 * say so explicitly and narrow `supportedProtocolVersions` to ['2025-11-25'], so the client offers exactly
 * that revision; the tests check the era and the negotiated version on the client and on our server.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../transports/http/index.ts';
import { PROCESS_MS, fixtureCommand, isRunning, killChildren, trackChild, until } from '../support/interop-processes.ts';
import { COUNTER_URI, type InteropServer, createInteropServer } from '../support/interop-rxmcp-server.ts';
import {
  type FlowTarget,
  type Recorded,
  SAMPLED_MODEL,
  SAMPLED_TEXT,
  answerElicitation,
  describeSdkClientFlow,
  newRecorded,
  toolText,
} from '../support/interop-sdk-client-flow.ts';

const CLIENT_NAME = 'sdk2-interop-client';
const PINNED = '2025-11-25';

/** An SDK 2.x client pinned to 2025-11-25, declaring sampling and form elicitation; its handlers record into `recorded`. */
function sdkClient(): { client: Client; recorded: Recorded } {
  const recorded = newRecorded();
  const client = new Client(
    { name: CLIENT_NAME, version: '2.0.0' },
    {
      capabilities: { sampling: {}, elicitation: { form: {} } },
      supportedProtocolVersions: [PINNED],
      versionNegotiation: { mode: 'legacy' },
    },
  );
  client.setRequestHandler('elicitation/create', (request) => answerElicitation(recorded, request.params as { message: string; requestedSchema?: unknown }));
  client.setRequestHandler('sampling/createMessage', (request) => {
    const first = request.params.messages[0]?.content;
    const text = first !== undefined && !Array.isArray(first) && first.type === 'text' ? first.text : '';
    recorded.samplings.push({ maxTokens: request.params.maxTokens, systemPrompt: request.params.systemPrompt, text });
    return { model: SAMPLED_MODEL, role: 'assistant', content: { type: 'text', text: SAMPLED_TEXT } };
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    recorded.logs.push({ level: notification.params.level, logger: notification.params.logger, data: notification.params.data });
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => void recorded.updates.push(notification.params.uri));
  client.setNotificationHandler('notifications/tools/list_changed', () => void recorded.toolListChanges.push('tools'));
  client.onerror = (error) => void recorded.errors.push(error.message);
  return { client, recorded };
}

function flowTarget(client: Client, recorded: Recorded, close: () => Promise<void>): FlowTarget {
  return {
    client,
    recorded,
    // 2.x turns a received -32002 into its ResourceNotFoundError, whose code is -32602 (the 2026-07-28 code).
    notFoundCode: -32602,
    clientName: CLIENT_NAME,
    callTool: (name, args, options = {}) =>
      client.callTool(
        { name, arguments: args },
        {
          ...(options.onprogress === undefined ? {} : { onprogress: options.onprogress }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
      ),
    close,
  };
}

function assertPinned(client: Client): void {
  assert.equal(client.getProtocolEra(), 'legacy');
  assert.equal(client.getNegotiatedProtocolVersion(), PINNED);
}

let stdioClient: Client | undefined;
let served: { http: StreamableHttpServer; interop: InteropServer; url: string } | undefined;

after(async () => {
  await served?.http.close();
  await served?.interop.server.close();
  const leftovers = await killChildren();
  assert.deepEqual(leftovers, [], 'every child exited on its own once its client closed');
});

// --- stdio --------------------------------------------------------------------------------------------------

describeSdkClientFlow(
  'sdk2 client (pinned 2025-11-25) vs rxmcp - stdio (StdioClientTransport spawning our serveStdio program)',
  async () => {
    const { client, recorded } = sdkClient();
    stdioClient = client;
    const stderr: string[] = [];
    const transport = new StdioClientTransport({ ...fixtureCommand('rxmcp-stdio-server.ts'), stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => void stderr.push(chunk.toString('utf8')));
    const connecting = client.connect(transport, { timeout: PROCESS_MS });
    trackChild(transport.pid, 'rxmcp stdio fixture (spawned by SDK 2.x)');
    await connecting;
    const pid = transport.pid;
    assert.equal(typeof pid, 'number', 'the SDK spawned our program (one process: no era probe in legacy mode)');
    assertPinned(client);
    return flowTarget(client, recorded, async () => {
      await client.close();
      await until(() => stderr.join('').includes('rxmcp-stdio-server: stdin closed (orderly)'), 'the fixture saw stdin close', PROCESS_MS);
      await until(() => pid === null || !isRunning(pid), 'the fixture exited', PROCESS_MS);
    });
  },
  (target) => {
    test('2.x pinned to the legacy era refuses the 2026 subscriptions/listen locally; the session goes on', async () => {
      const client = stdioClient;
      assert.ok(client !== undefined);
      await assert.rejects(client.listen({ resourceSubscriptions: [COUNTER_URI] }), (error: unknown) => {
        assert.ok(error instanceof SdkError, String(error));
        assert.equal(error.code, SdkErrorCode.MethodNotSupportedByProtocolVersion);
        return true;
      });
      assert.equal(toolText(await target().callTool('echo', { text: 'still fine' })), 'echo: still fine');
    });
  },
);

// --- Streamable HTTP ----------------------------------------------------------------------------------------

describeSdkClientFlow('sdk2 client (pinned 2025-11-25) vs rxmcp - Streamable HTTP (StreamableHTTPClientTransport, createStreamableHttpServer)', async () => {
  if (served === undefined) {
    const interop = createInteropServer();
    const http = createStreamableHttpServer({ server: interop.acceptor });
    served = { http, interop, url: (await http.listen(0)).url };
  }
  const { client, recorded } = sdkClient();
  const transport = new StreamableHTTPClientTransport(new URL(served.url));
  await client.connect(transport, { timeout: PROCESS_MS });
  assertPinned(client);
  assert.match(transport.sessionId ?? '', /\S/, 'our server gave a session id');
  return flowTarget(client, recorded, async () => {
    const before = served?.http.sessionCount ?? 0;
    await transport.terminateSession();
    assert.equal(served?.http.sessionCount, before - 1, 'DELETE ended the session');
    await client.close();
  });
});
