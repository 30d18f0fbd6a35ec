/**
 * The tasks extension on the client (FEATURES #95, SEP-2663): `createClient({ tasks })` declares the extension on
 * its 2026-07-28 requests, and a `tools/call` the server answers with a task is followed to its end behind the
 * same call: polling `tasks/get` at the server's interval (within the client's bounds) or listening for
 * `notifications/tasks`, answering input with `tasks/update` through the client's own handlers, and sending
 * `tasks/cancel` when the caller lets go. A real server (`createServer({ modern: { tasks } })`) on the memory
 * transport; both directions logged and checked by `checkConversation` (the schema oracle, scoped to what the
 * official schema can say about the extension: see tasks-harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lastValueFrom, of, toArray } from 'rxjs';
import { type ClientOptions, createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import { LocalError, WireError } from '../../../core/errors.ts';
import type { JsonObject } from '../../../core/jsonrpc.ts';
import { type McpServer, type ServerOptions, createServer } from '../../../server/create-server.ts';
import { createMemoryPair } from '../../../transports/memory/index.ts';
import { type WireLog, deferred, spyTransport } from '../../support/harness.ts';
import { TASKS, checkConversation, textOf } from './tasks-harness.ts';

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

interface Pair extends AsyncDisposable {
  readonly server: McpServer;
  readonly client: ClientSession;
  readonly clientLog: WireLog;
  readonly serverLog: WireLog;
  /** Methods the client sent, in order. */
  methods(): string[];
  assertClean(): void;
}

async function pair(server: McpServer, clientOptions: Partial<ClientOptions> = {}): Promise<Pair> {
  const [clientEnd, serverEnd] = createMemoryPair();
  const serverSpy = spyTransport(serverEnd);
  server.accept(serverSpy.transport);
  const clientSpy = spyTransport(clientEnd);
  const client = await createClient({ name: 'follower', version: '1', era: 'modern', ...clientOptions }).connect(clientSpy.transport);
  return {
    server,
    client,
    clientLog: clientSpy.log,
    serverLog: serverSpy.log,
    methods: () => clientSpy.log.sent.map((message) => (message as { method?: string }).method ?? '(response)'),
    assertClean() {
      const problems = checkConversation(clientSpy.log.sent, serverSpy.log.sent);
      assert.equal(problems.length, 0, problems.join('\n'));
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

function tasksServer(options: Partial<ServerOptions> = {}): McpServer {
  return createServer({ name: 'tasks', version: '1', modern: { tasks: { pollIntervalMs: 10 } }, ...options });
}

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new assert.AssertionError({ message: `timed out waiting for ${what}` });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('tasks extension, client: following a task', () => {
  test('a tools/call answered with a task resolves with the task\'s result, polling tasks/get at the server\'s interval', async () => {
    const server = tasksServer();
    const release = deferred();
    server.tool({ name: 'render', execution: { taskSupport: 'required' } }, async () => {
      await release.promise;
      return 'rendered';
    });
    await using setup = await pair(server, { tasks: { listen: false } });
    const result = setup.client.callTool('render');
    await until(() => setup.methods().filter((method) => method === 'tasks/get').length >= 2, 'two polls');
    release.resolve();
    assert.equal(textOf(await result), 'rendered');
    const methods = setup.methods();
    assert.equal(methods[0], 'server/discover');
    assert.equal(methods[1], 'tools/call');
    assert.ok(methods.slice(2).every((method) => method === 'tasks/get'), methods.join(', '));
    // The call declared the extension (and the client declares it on every request).
    const call = setup.clientLog.sent[1] as unknown as { params: { _meta: Record<string, { extensions?: JsonObject }> } };
    assert.deepEqual(call.params._meta['io.modelcontextprotocol/clientCapabilities']?.extensions, { [TASKS]: {} });
    setup.assertClean();
  });

  test('an input request of a parked task is answered by the client\'s elicitation handler, once, with tasks/update', async () => {
    const server = tasksServer();
    server.tool({ name: 'hello', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: NAME_SCHEMA });
      return `Hello, ${String(answer.content?.['name'])}!`;
    });
    let asked = 0;
    await using setup = await pair(server, {
      tasks: { listen: false },
      elicitation: {
        form: async (params) => {
          asked++;
          assert.equal(params.message, 'Your name?');
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    });
    assert.equal(textOf(await setup.client.callTool('hello')), 'Hello, Ada!');
    assert.equal(asked, 1);
    assert.equal(setup.methods().filter((method) => method === 'tasks/update').length, 1);
    setup.assertClean();
  });

  test('unsubscribing from callTool$ sends tasks/cancel: the handler\'s signal aborts and the task is cancelled', async () => {
    const server = tasksServer();
    const aborted = deferred<unknown>();
    const started = deferred();
    server.tool({ name: 'forever', execution: { taskSupport: 'required' } }, (_args, ctx) => {
      started.resolve();
      return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
        aborted.resolve(ctx.signal.reason);
        reject(ctx.signal.reason as Error);
      }));
    });
    await using setup = await pair(server, { tasks: { listen: false } });
    const subscription = setup.client.callTool$('forever').subscribe({ error: () => undefined });
    await started.promise;
    await until(() => setup.methods().includes('tasks/get'), 'the first poll');
    subscription.unsubscribe();
    await aborted.promise;
    assert.ok(setup.methods().includes('tasks/cancel'));
    assert.ok(!setup.methods().includes('notifications/cancelled'), 'a task is cancelled with tasks/cancel only');
    setup.assertClean();
  });

  test('an aborted signal of callTool cancels the task and rejects with RequestAborted', async () => {
    const server = tasksServer();
    const aborted = deferred();
    server.tool({ name: 'slow', execution: { taskSupport: 'required' } }, (_args, ctx) =>
      new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => {
        aborted.resolve();
        reject(ctx.signal.reason as Error);
      })),
    );
    await using setup = await pair(server, { tasks: { listen: false } });
    const controller = new AbortController();
    const call = setup.client.callTool('slow', {}, { signal: controller.signal });
    await until(() => setup.methods().includes('tasks/get'), 'the first poll');
    controller.abort(new LocalError('RequestAborted', 'changed my mind'));
    await assert.rejects(call, (error: unknown) => error instanceof LocalError && error.code === 'RequestAborted');
    await aborted.promise;
    assert.ok(setup.methods().includes('tasks/cancel'));
  });

  test('a task that failed with a JSON-RPC error rejects with that error; a tool error is a result', async () => {
    const server = tasksServer();
    server.tool({ name: 'broken', execution: { taskSupport: 'required' } }, () => {
      throw new WireError(ErrorCode.InvalidParams, 'Invalid params: nope');
    });
    server.tool({ name: 'sad', execution: { taskSupport: 'required' } }, () => ({ content: [{ type: 'text', text: 'sad' }], isError: true }));
    await using setup = await pair(server, { tasks: { listen: false } });
    await assert.rejects(setup.client.callTool('broken'), (error: unknown) => error instanceof WireError && error.code === ErrorCode.InvalidParams);
    const sad = await setup.client.callTool('sad');
    assert.equal(sad.isError, true);
    assert.equal(textOf(sad), 'sad');
    setup.assertClean();
  });

  test('with listen (the default), status comes as notifications/tasks and the task\'s progress reaches the caller', async () => {
    const server = tasksServer({ modern: { tasks: { pollIntervalMs: 60_000 } } });
    const next = deferred();
    server.tool({ name: 'steps', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      await next.promise;
      ctx.progress({ progress: 1, total: 2 });
      ctx.progress({ progress: 2, total: 2 });
      return 'stepped';
    });
    await using setup = await pair(server, { tasks: true });
    const events$ = setup.client.callTool$('steps', {}, { progress: true });
    const collected = lastValueFrom(events$.pipe(toArray()));
    await until(() => setup.methods().includes('tasks/get'), 'the catch-up poll after the listen was acknowledged');
    next.resolve();
    const events = await collected;
    assert.deepEqual(events.filter((event) => event.type === 'progress').map((event) => (event as { progress: number }).progress), [1, 2]);
    const last = events.at(-1);
    assert.ok(last?.type === 'result' && textOf(last.result) === 'stepped');
    // One catch-up tasks/get, the rest came by notification (the server suggested a one-minute poll).
    assert.equal(setup.methods().filter((method) => method === 'tasks/get').length, 1);
    const listen = setup.clientLog.sent.find((message) => (message as { method?: string }).method === 'subscriptions/listen') as unknown as { params: { notifications: JsonObject } };
    assert.equal((listen.params.notifications['taskIds'] as string[]).length, 1);
    const statuses = setup.serverLog.sent.filter((message) => (message as { method?: string }).method === 'notifications/tasks');
    assert.ok(statuses.length >= 1, 'the completion came as a notification');
    setup.assertClean();
  });

  test('without the option the client declares no extension: a required tool is refused with -32021', async () => {
    const server = tasksServer();
    server.tool({ name: 'render', execution: { taskSupport: 'required' } }, () => 'rendered');
    await using setup = await pair(server);
    await assert.rejects(setup.client.callTool('render'), (error: unknown) => error instanceof WireError && error.code === ErrorCode.MissingRequiredClientCapability);
    const call = setup.clientLog.sent[1] as unknown as { params: { _meta: Record<string, JsonObject> } };
    assert.equal(call.params._meta['io.modelcontextprotocol/clientCapabilities']?.['extensions'], undefined);
  });

  test('a task answering prompts/get (which the extension never lets become a task) is an invalid answer, not followed', async () => {
    const server = tasksServer();
    server.prompt({ name: 'greet' }, () => ({ messages: [] }));
    // A server breaking the rule (an interceptor stands in for it): prompts/get answered with a task.
    server.use(
      () => of({ type: 'result' as const, result: { resultType: 'task', taskId: 't-1', status: 'working', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttlMs: null } }),
      { method: 'prompts/get' },
    );
    await using setup = await pair(server, { tasks: { listen: false } });
    await assert.rejects(setup.client.getPrompt('greet'), (error: unknown) => error instanceof LocalError && error.code === 'ProtocolViolation' && /resultType "task"/.test(error.message));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.ok(!setup.methods().some((method) => method.startsWith('tasks/')), 'no task was followed (or cancelled)');
  });

  test('tools/list shows execution.taskSupport only to a client that declared the extension', async () => {
    const server = tasksServer();
    server.tool({ name: 'render', execution: { taskSupport: 'optional' } }, () => 'rendered');
    await using plain = await pair(server);
    assert.equal((await plain.client.listTools())[0]?.execution, undefined);
    const other = tasksServer();
    other.tool({ name: 'render', execution: { taskSupport: 'optional' } }, () => 'rendered');
    await using declaring = await pair(other, { tasks: true });
    assert.deepEqual((await declaring.client.listTools())[0]?.execution, { taskSupport: 'optional' });
  });
});
