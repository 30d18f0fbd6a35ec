/**
 * Tasks through rxmcp/mesh (issue 30 item 2): a member's tool with task support is served with it; a caller's
 * task-augmented call (2025-11-25) or a call that becomes a task (2026-07-28 tasks extension) makes a task on the
 * member; tasks/get, tasks/result, tasks/cancel and tasks/list answer for the caller's own tasks only, under the
 * mesh's task ids; status notifications reach the caller; a member that goes down fails its tasks with -32050.
 * Against a real nats-server, with the rxmcp client in both eras and the official SDK client's experimental tasks
 * over Streamable HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { WireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { MEMBER_UNAVAILABLE, type Mesh } from '../../mesh/index.ts';
import { createServer } from '../../server/create-server.ts';
import type { McpServer } from '../../server/server-api.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/memory-transport.ts';
import { type MemberServer, type MeshFixture, eventually, meshFixture } from './mesh-fixture.ts';

const textOf = (result: { readonly content: readonly unknown[] }): string => (result.content[0] as { text: string }).text;

interface Seen {
  started: number;
  aborted: number;
  /** Released by the spec: the `gate` tool finishes when it is called. */
  open: (() => void)[];
}

/** A member serving tasks: `render` (optional task support), `deploy` (required), `gate` (waits to be let go or cancelled). */
function taskServer(seen: Seen): McpServer {
  const server = createServer({ name: 'tasker', version: '1.0.0', tasks: { pollIntervalMs: 50 } });
  server.tool({ name: 'render', inputSchema: z.object({ scene: z.string() }), execution: { taskSupport: 'optional' } }, ({ scene }) => `rendered ${scene}`);
  server.tool({ name: 'deploy', inputSchema: z.object({}), execution: { taskSupport: 'required' } }, () => 'deployed');
  server.tool({ name: 'gate', inputSchema: z.object({}), execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    seen.started++;
    await new Promise<void>((resolve) => {
      seen.open.push(resolve);
      ctx.signal.addEventListener('abort', () => {
        seen.aborted++;
        resolve();
      }, { once: true });
    });
    return 'let through';
  });
  server.tool({ name: 'ask', inputSchema: z.object({}), execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] } });
    return `painted ${answer.action === 'accept' ? String(answer.content?.['colour']) : 'nothing'}`;
  });
  server.tool({ name: 'plain', inputSchema: z.object({}) }, () => 'plain');
  return server;
}

/** The tools/call requests a member received and the task ids it answered them with. */
function memberTaskCalls(server: McpServer): { calls: JsonObject[]; taskIds: string[]; methods: string[] } {
  const seen = { calls: [] as JsonObject[], taskIds: [] as string[], methods: [] as string[] };
  server.messages$.subscribe(({ direction, payload }) => {
    const message = payload as { method?: string; params?: JsonObject; result?: { task?: { taskId?: string } } };
    if (direction === 'in' && typeof message.method === 'string') {
      seen.methods.push(message.method);
      if (message.method === 'tools/call') seen.calls.push(message.params ?? {});
    }
    const taskId = message.result?.task?.taskId;
    if (direction === 'out' && typeof taskId === 'string') seen.taskIds.push(taskId);
  });
  return seen;
}

async function modernCaller(mesh: Mesh): Promise<ClientSession> {
  const [clientEnd, serverEnd] = createMemoryPair();
  mesh.server.accept(serverEnd);
  return createClient({ name: 'modern-caller', version: '1.0.0', era: 'modern', tasks: true }).connect(clientEnd);
}

describe('mesh - tasks', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;
  let member: MemberServer;
  const seen: Seen = { started: 0, aborted: 0, open: [] };
  let wire: ReturnType<typeof memberTaskCalls>;

  before(async () => {
    fixture = await meshFixture();
    const server = taskServer(seen);
    wire = memberTaskCalls(server);
    member = await fixture.serveMember('tasker', server);
    mesh = await fixture.mesh();
    mesh.start();
    fixture.members$.next([member.member]);
    await fixture.event((event) => event.type === 'joined');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('the mesh serves a member tool\'s task support, and declares tasks', async () => {
    const caller = await fixture.caller(mesh);
    const tools = new Map((await caller.listTools()).map((tool) => [tool.name, tool]));
    assert.equal(tools.get('render')?.execution?.taskSupport, 'optional');
    assert.equal(tools.get('deploy')?.execution?.taskSupport, 'required');
    assert.equal(tools.get('plain')?.execution, undefined);
    assert.ok(caller.serverCapabilities?.tasks?.requests?.['tools']?.['call'] !== undefined);
    await assert.rejects(caller.callTool('deploy', {}), (error: unknown) => error instanceof WireError && error.code === -32601);
  });

  test('legacy: a task-augmented call makes a task on the member; get, result, status and list answer under the mesh\'s id', async () => {
    const caller = await fixture.caller(mesh);
    const statuses: JsonObject[] = [];
    caller.taskStatus$.subscribe((status) => statuses.push(status));
    const callsBefore = wire.calls.length;
    const { task } = await caller.callToolAsTask('render', { scene: 'sea' }, { ttl: 60_000 });
    assert.equal(task.status, 'working');
    const result = await caller.taskResult(task.taskId, { timeoutMs: 5000 });
    assert.equal(textOf(result), 'rendered sea');
    assert.deepEqual(result._meta?.['io.modelcontextprotocol/related-task'], { taskId: task.taskId });
    // The member ran it as a task, under an id of its own that the caller never sees.
    const forwarded = wire.calls.slice(callsBefore).find((params) => params['name'] === 'render');
    assert.ok(forwarded !== undefined && typeof forwarded['task'] === 'object', 'the member received a task-augmented call');
    assert.deepEqual(forwarded['task'], { ttl: 60_000 });
    assert.ok(wire.taskIds.length > 0 && !wire.taskIds.includes(task.taskId), 'the mesh\'s task id is not the member\'s');
    assert.equal((await caller.getTask(task.taskId)).status, 'completed');
    await eventually(() => statuses.some((status) => status['taskId'] === task.taskId && status['status'] === 'completed'), 5000, 'a completed status notification');
    const listed = await firstValueFrom(caller.listTasks$().pipe(toArray()));
    assert.ok(listed.some((listedTask) => listedTask.taskId === task.taskId));
    // A required tool is called as a task too.
    const deploy = await caller.callToolAsTask('deploy', {});
    assert.equal(textOf(await caller.taskResult(deploy.task.taskId, { timeoutMs: 5000 })), 'deployed');
  });

  test('legacy: what the member asks during its task reaches the caller, tagged with the mesh\'s task, the task input_required meanwhile', async () => {
    const asked: JsonObject[] = [];
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const [clientEnd, serverEnd] = createMemoryPair();
    mesh.server.accept(serverEnd);
    const caller = await createClient({
      name: 'asked-caller',
      version: '1.0.0',
      era: 'legacy',
      elicitation: { form: async (params) => {
        asked.push(params as unknown as JsonObject);
        await answered;
        return { action: 'accept', content: { colour: 'teal' } };
      } },
    }).connect(clientEnd);
    try {
      const { task } = await caller.callToolAsTask('ask', {});
      await eventually(() => asked.length > 0, 5000, 'the elicitation to reach the caller');
      assert.equal((await caller.getTask(task.taskId)).status, 'input_required');
      const related = (asked[0]?.['_meta'] as JsonObject | undefined)?.['io.modelcontextprotocol/related-task'];
      assert.deepEqual(related, { taskId: task.taskId }, 'tagged with the mesh\'s task, not the member\'s');
      answer?.();
      assert.equal(textOf(await caller.taskResult(task.taskId, { timeoutMs: 5000 })), 'painted teal');
    } finally {
      await caller.close();
    }
  });

  test('legacy: one caller never reaches another\'s task', async () => {
    const owner = await fixture.caller(mesh);
    const other = await fixture.caller(mesh);
    const { task } = await owner.callToolAsTask('render', { scene: 'hills' });
    await owner.taskResult(task.taskId, { timeoutMs: 5000 });
    const unknown = (error: unknown): boolean => error instanceof WireError && error.code === -32602;
    await assert.rejects(other.getTask(task.taskId), unknown);
    await assert.rejects(other.taskResult(task.taskId), unknown);
    await assert.rejects(other.cancelTask(task.taskId), unknown);
    const listed = await firstValueFrom(other.listTasks$().pipe(toArray()));
    assert.ok(!listed.some((listedTask) => listedTask.taskId === task.taskId));
  });

  test('legacy: cancelling the mesh\'s task cancels the member\'s', async () => {
    const caller = await fixture.caller(mesh);
    const started = seen.started;
    const aborted = seen.aborted;
    const { task } = await caller.callToolAsTask('gate', {});
    await eventually(() => seen.started > started, 5000, 'the member\'s task to start');
    const cancelled = await caller.cancelTask(task.taskId);
    assert.equal(cancelled.status, 'cancelled');
    await eventually(() => seen.aborted > aborted, 5000, 'the member\'s task to be aborted');
    await eventually(() => wire.methods.includes('tasks/cancel'), 5000, 'tasks/cancel on the member');
    assert.equal((await caller.getTask(task.taskId)).status, 'cancelled');
  });

  test('modern: a call that becomes a task on the mesh is a task on the member, followed to its result', async () => {
    const caller = await modernCaller(mesh);
    const callsBefore = wire.calls.length;
    const result = await caller.callTool('render', { scene: 'dunes' }, { timeoutMs: 5000 });
    assert.equal(textOf(result), 'rendered dunes');
    const forwarded = wire.calls.slice(callsBefore).find((params) => params['name'] === 'render');
    assert.ok(forwarded !== undefined && typeof forwarded['task'] === 'object', 'the member received a task-augmented call');
    const deployed = await caller.callTool('deploy', {}, { timeoutMs: 5000 });
    assert.equal(textOf(deployed), 'deployed');
    // A modern caller that did not declare the extension makes an ordinary call of an optional tool, also on the member.
    const [clientEnd, serverEnd] = createMemoryPair();
    mesh.server.accept(serverEnd);
    const plain = await createClient({ name: 'plain-caller', version: '1.0.0', era: 'modern' }).connect(clientEnd);
    const plainBefore = wire.calls.length;
    assert.equal(textOf(await plain.callTool('render', { scene: 'fields' }, { timeoutMs: 5000 })), 'rendered fields');
    const plainCall = wire.calls.slice(plainBefore).find((params) => params['name'] === 'render');
    assert.ok(plainCall !== undefined && plainCall['task'] === undefined, 'an ordinary call on the member');
    await plain.close();
  });

  test('official SDK client (Streamable HTTP, experimental tasks): a task through the mesh, followed to its result', async () => {
    const http = createStreamableHttpServer({ server: mesh.server });
    const { url } = await http.listen(0);
    const client = new Client({ name: 'sdk-caller', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await client.listTools();
      const callsBefore = wire.calls.length;
      const seenTypes: string[] = [];
      let taskId: string | undefined;
      let text: string | undefined;
      for await (const message of client.experimental.tasks.callToolStream({ name: 'render', arguments: { scene: 'sdk' } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
        seenTypes.push(message.type);
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'result') text = textOf(message.result as { content: unknown[] });
        if (message.type === 'error') throw message.error;
      }
      assert.equal(seenTypes[0], 'taskCreated');
      assert.equal(seenTypes.at(-1), 'result');
      assert.equal(text, 'rendered sdk');
      assert.ok(taskId !== undefined && !wire.taskIds.includes(taskId), 'the SDK client sees the mesh\'s task id');
      assert.ok(wire.calls.slice(callsBefore).some((params) => params['name'] === 'render' && typeof params['task'] === 'object'), 'a task on the member');
      assert.equal((await client.experimental.tasks.getTask(taskId)).status, 'completed');
    } finally {
      await client.close();
      await http.close();
    }
  });

  test('a member that goes down fails its tasks through the mesh with -32050', async () => {
    const caller = await fixture.caller(mesh);
    const started = seen.started;
    const { task } = await caller.callToolAsTask('gate', {});
    await eventually(() => seen.started > started, 5000, 'the member\'s task to start');
    const outcome = caller.taskResult(task.taskId, { timeoutMs: 10_000 });
    // The member vanishes (its NATS connection gone, nothing answered): the mesh's health check takes it out.
    await member.connection.close();
    await assert.rejects(outcome, (error: unknown) => error instanceof WireError && error.code === MEMBER_UNAVAILABLE && (error.data as { member?: string }).member === 'tasker');
    const failed = await caller.getTask(task.taskId);
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage ?? '', /Mesh member "tasker" is unavailable/);
  });
});
