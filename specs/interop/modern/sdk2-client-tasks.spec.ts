/**
 * Interop, tasks extension (SEP-2663): the official SDK 2.x `Client` (@modelcontextprotocol/client 2.4.0) against
 * our server with `modern.tasks`, over Streamable HTTP. The SDK has no tasks extension: it never follows a task
 * (a `resultType: "task"` answer is its `UNSUPPORTED_RESULT_TYPE`), and it declares the extension only when told
 * to (`capabilities.extensions`). What must hold for it:
 * - not declaring the extension, it is never given a task: a tool with optional task support answers as an
 *   ordinary call, one that runs only as a task is -32021 naming the extension, `tasks/get` is -32021 too, and
 *   `tools/list` does not show it `execution.taskSupport`;
 * - declaring it, its `tools/list` shows the task support, a required tool is answered with a task (which the SDK
 *   refuses as unsupported: that is the SDK's gap, reported here so a newer SDK that follows tasks shows up), and
 *   `tasks/get` of an unknown id is -32602.
 * Everything our server sent is checked (`server.messages$`): messages outside the extension against the
 * 2026-07-28 schema, the extension's answers by the scoped check of tasks-harness.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as z from 'zod';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type StreamableHttpServer, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { TASKS, checkConversation } from '../../features/modern-tasks/tasks-harness.ts';

const T = { timeout: 15_000 };
let server: McpServer;
let http: StreamableHttpServer;
let url: string;
const inbound: unknown[] = [];
const outbound: unknown[] = [];

before(async () => {
  server = createServer({ name: 'rxmcp-tasks', version: '1', modern: { tasks: { pollIntervalMs: 10 } } });
  server.tool({ name: 'maybe', execution: { taskSupport: 'optional' } }, () => 'ordinary');
  server.tool({ name: 'always', execution: { taskSupport: 'required' } }, () => 'as a task');
  server.messages$.subscribe((message) => (message.direction === 'in' ? inbound : outbound).push(message.payload));
  http = createStreamableHttpServer({ server });
  ({ url } = await http.listen(0));
});

after(async () => {
  await http.close();
  await server.close();
});

/** A new SDK client; what the server saw before is forgotten (each client numbers its requests from 0). */
async function sdkClient(declare: boolean): Promise<Client> {
  inbound.length = 0;
  outbound.length = 0;
  const capabilities = declare ? ({ extensions: { [TASKS]: {} } } as Record<string, unknown>) : {};
  const client = new Client({ name: 'sdk2-tasks', version: '2.4.0' }, { capabilities, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  assert.equal(client.getProtocolEra(), 'modern');
  return client;
}

function lastToolsList(): JsonObject[] {
  const answers = outbound.filter((payload) => Array.isArray((payload as { result?: { tools?: unknown } }).result?.tools));
  return (answers.at(-1) as { result: { tools: JsonObject[] } }).result.tools;
}

const anyResult = z.object({}).passthrough();

test('the SDK 2.x client without the extension is never given a task', T, async () => {
  const client = await sdkClient(false);
  try {
    await client.listTools();
    assert.ok(lastToolsList().every((tool) => tool['execution'] === undefined), 'no taskSupport for a client that cannot use it');
    const ordinary = await client.callTool({ name: 'maybe', arguments: {} });
    assert.deepEqual(ordinary.content, [{ type: 'text', text: 'ordinary' }]);
    await assert.rejects(client.callTool({ name: 'always', arguments: {} }), (error: { code?: unknown; data?: unknown }) => {
      assert.equal(error.code, -32021);
      assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
      return true;
    });
    await assert.rejects(client.request({ method: 'tasks/get', params: { taskId: 'x' } }, anyResult), (error: { code?: unknown }) => error.code === -32021);
  } finally {
    await client.close();
  }
  assert.deepEqual(checkConversation(inbound, outbound), []);
});

test('the SDK 2.x client declaring the extension sees task support and gets a task, which it cannot follow yet', T, async () => {
  const client = await sdkClient(true);
  try {
    await client.listTools();
    assert.deepEqual(lastToolsList().map((tool) => tool['execution']), [{ taskSupport: 'optional' }, { taskSupport: 'required' }]);
    await assert.rejects(client.callTool({ name: 'always', arguments: {} }), (error: { code?: unknown; data?: { resultType?: unknown } }) => {
      // The SDK's own refusal: it has no tasks extension (FEATURES #95: "SDK 2.4.0 has no tasks extension").
      assert.equal(error.code, 'UNSUPPORTED_RESULT_TYPE');
      assert.equal(error.data?.resultType, 'task');
      return true;
    });
    const task = outbound.find((payload) => (payload as { result?: { resultType?: unknown } }).result?.resultType === 'task') as { result: JsonObject } | undefined;
    assert.ok(task !== undefined, 'our server answered the declaring client with a task');
    await assert.rejects(client.request({ method: 'tasks/get', params: { taskId: 'no-such-task' } }, anyResult), (error: { code?: unknown }) => error.code === -32602);
    // Its raw tasks/get of the real task works, and shows the task finishing.
    const deadline = Date.now() + 3000;
    let status: unknown;
    do {
      status = (await client.request({ method: 'tasks/get', params: { taskId: task.result['taskId'] as string } }, anyResult))['status'];
    } while (status !== 'completed' && Date.now() < deadline);
    assert.equal(status, 'completed');
  } finally {
    await client.close();
  }
  assert.deepEqual(checkConversation(inbound, outbound), []);
});
