/**
 * Helpers for the specs of the modern tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a real
 * `createServer(...)` with `modern.tasks` enabled, driven through `featureServer().connectRaw()` with modern
 * envelopes written by hand.
 *
 * Oracle scope. The official 2026-07-28 schema does not define the extension: it has no `tasks/*` methods and
 * its `CallToolResult` has no task form, so the harness's oracle reports every answer to `tasks/*` and every
 * `resultType: "task"` answer as a violation, and `FeatureHarness.assertClean()` cannot be used on traffic that
 * carries them. {@link TasksClient.assertClean} re-checks everything the server sent instead, with the same
 * schema: messages outside the extension exactly as the harness's oracle would (the 2026-07-28 definition of
 * the request's result, every error response, any request the server sent); extension answers against the
 * JSON-RPC response envelope and the generic `Result` (so `resultType` is required) plus the extension's own
 * shapes as SEP-2663 describes them (checked here by hand, since no published schema has them).
 */
import { AssertionError } from 'node:assert';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.ts';
import type { ServerOptions } from '../../../server/create-server.ts';
import { type FeatureHarness, type RawConnection, type WireResponse, featureServer, isRecord } from '../../support/feature-pair.ts';
import { validateMessage } from '../../support/schema-oracle.ts';
import { loadRevisionSchema } from '../../support/schema-registry.ts';

export { type WireResponse };

export const MODERN = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** Client capabilities declaring the extension (and nothing else). */
export const WITH_TASKS: JsonObject = { extensions: { [TASKS]: {} } };
/** The extension plus every kind of client input. */
export const WITH_TASKS_AND_INPUT: JsonObject = { elicitation: { form: {} }, sampling: {}, roots: {}, extensions: { [TASKS]: {} } };
/** Every kind of client input, without the extension. */
export const INPUT_ONLY: JsonObject = { elicitation: { form: {} }, sampling: {}, roots: {} };

const TASK_FIELDS = ['taskId', 'status', 'result', 'error', 'inputRequests'] as const;
const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/;

/** `params` with a modern envelope declaring `capabilities`. */
export function modernParams(params: JsonObject, capabilities: JsonObject): JsonObject {
  const own = isRecord(params['_meta']) ? (params['_meta'] as JsonObject) : {};
  return {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
      'io.modelcontextprotocol/clientInfo': { name: 'tasks-spec-client', version: '0.0.0' },
      ...own,
    },
  };
}

export interface TasksClient {
  readonly raw: RawConnection;
  /** Sends a modern request (envelope added) and waits for its answer. */
  request(method: string, params?: JsonObject, capabilities?: JsonObject): Promise<WireResponse>;
  /** The task answer of a `tools/call` (fails on anything else). */
  callAsTask(name: string, args?: JsonObject, capabilities?: JsonObject): Promise<Record<string, unknown>>;
  /** `tasks/get` (with the extension declared), failing on an error. */
  get(taskId: string): Promise<Record<string, unknown>>;
  /** Polls `tasks/get` until `done` holds (fails after `ms`). */
  until(taskId: string, done: (task: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** Re-checks everything the server sent on this connection, with the oracle scoped as the module says. */
  assertClean(): void;
}

export interface TasksHarness extends AsyncDisposable {
  readonly harness: FeatureHarness;
  readonly server: FeatureHarness['server'];
  connect(): TasksClient;
}

/** A server with the modern tasks extension enabled (unless `options.modern` says otherwise). */
export function tasksServer(options: Partial<ServerOptions> = {}): TasksHarness {
  const harness = featureServer({ modern: { tasks: {} }, ...options });
  return {
    harness,
    server: harness.server,
    connect: () => tasksClient(harness.connectRaw()),
    [Symbol.asyncDispose]: () => harness.close(),
  };
}

export function resultOf(response: WireResponse): Record<string, unknown> {
  if (response.result === undefined) throw new AssertionError({ message: `expected a result, got ${JSON.stringify(response)}` });
  return response.result as Record<string, unknown>;
}

export function errorOf(response: WireResponse, code: number): { code: number; message: string; data?: unknown } {
  if (response.error === undefined || response.error.code !== code) {
    throw new AssertionError({ message: `expected error ${code}, got ${JSON.stringify(response)}` });
  }
  return response.error;
}

/** The text of a tool result (a tools/call result or a task's inlined `result`). */
export function textOf(result: unknown): string {
  const content = isRecord(result) ? result['content'] : undefined;
  if (!Array.isArray(content)) throw new AssertionError({ message: `not a tool result: ${JSON.stringify(result)}` });
  return content.map((block) => (isRecord(block) && typeof block['text'] === 'string' ? block['text'] : '')).join('');
}

function tasksClient(raw: RawConnection): TasksClient {
  const sent = new Map<RequestId, { method: string; params: JsonObject }>();
  const request = async (method: string, params: JsonObject = {}, capabilities: JsonObject = WITH_TASKS): Promise<WireResponse> => {
    const full = modernParams(params, capabilities);
    const response = await raw.call(method, full);
    sent.set(response.id as RequestId, { method, params: full });
    return response;
  };
  const get = async (taskId: string): Promise<Record<string, unknown>> => resultOf(await request('tasks/get', { taskId }));
  return {
    raw,
    request,
    async callAsTask(name, args = {}, capabilities = WITH_TASKS) {
      const result = resultOf(await request('tools/call', { name, arguments: args }, capabilities));
      if (result['resultType'] !== 'task') throw new AssertionError({ message: `expected a task, got ${JSON.stringify(result)}` });
      return result;
    },
    get,
    async until(taskId, done, ms = 2000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const task = await get(taskId);
        if (done(task)) return task;
        if (Date.now() > deadline) throw new AssertionError({ message: `task ${taskId} did not get there within ${ms} ms; last: ${JSON.stringify(task)}` });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    assertClean() {
      const problems: string[] = [];
      let checked = 0;
      for (const payload of raw.serverWire.sent) {
        for (const message of Array.isArray(payload) ? payload : [payload]) {
          checked++;
          const errors = checkScoped(message, sent);
          if (errors.length > 0) problems.push(`${JSON.stringify(message)}\n    - ${errors.join('\n    - ')}`);
        }
      }
      if (checked === 0) throw new AssertionError({ message: 'the server sent nothing, so nothing was checked' });
      if (problems.length > 0) throw new AssertionError({ message: `${problems.length} of ${checked} sent messages are invalid:\n${problems.join('\n')}` });
    },
  };
}

function checkScoped(message: unknown, sent: ReadonlyMap<RequestId, { method: string; params: JsonObject }>): string[] {
  if (!isRecord(message)) return ['not a JSON object'];
  if (message['method'] === 'notifications/tasks') {
    // The extension's status notification: the notification envelope, and the task as tasks/get gives it.
    const { _meta: _ignored, ...task } = isRecord(message['params']) ? message['params'] : {};
    return [...loadRevisionSchema(MODERN).check('JSONRPCNotification', message), ...extensionShape('tasks/get', { ...task, resultType: 'complete' })];
  }
  if ('method' in message || 'error' in message) return validateMessage(MODERN, message, { role: 'server' });
  const request = sent.get(message['id'] as RequestId);
  if (request === undefined) return [`answers id ${JSON.stringify(message['id'])}, which was never sent (or not by this spec)`];
  const result = message['result'];
  const extension = request.method.startsWith('tasks/') || (isRecord(result) && result['resultType'] === 'task');
  if (!extension) return validateMessage(MODERN, message, { method: request.method });
  const schema = loadRevisionSchema(MODERN);
  return [
    ...schema.check('JSONRPCResultResponse', message),
    ...schema.check('Result', result, '/result'),
    ...extensionShape(request.method, result),
  ];
}

/** SEP-2663 shapes: a flat CreateTaskResult, a DetailedTask for tasks/get, an empty ack otherwise. */
function extensionShape(method: string, result: unknown): string[] {
  if (!isRecord(result)) return ['the result is not an object'];
  const errors: string[] = [];
  const need = (ok: boolean, what: string): void => {
    if (!ok) errors.push(what);
  };
  if (method === 'tasks/update' || method === 'tasks/cancel') {
    need(result['resultType'] === 'complete', 'an ack has resultType "complete"');
    for (const field of TASK_FIELDS) need(!(field in result), `an ack carries no "${field}"`);
    return errors;
  }
  const task = method === 'tools/call';
  need(result['resultType'] === (task ? 'task' : 'complete'), `resultType is ${task ? '"task"' : '"complete"'}`);
  need(typeof result['taskId'] === 'string' && result['taskId'].length > 0, 'taskId is a non-empty string');
  need(STATUSES.has(result['status'] as string), 'status is a task status');
  for (const field of ['createdAt', 'lastUpdatedAt']) need(typeof result[field] === 'string' && ISO.test(result[field]), `${field} is an ISO 8601 string`);
  const ttl = result['ttlMs'];
  need(ttl === null || (Number.isInteger(ttl) && (ttl as number) > 0), 'ttlMs is null or a positive integer');
  const poll = result['pollIntervalMs'];
  need(poll === undefined || (Number.isInteger(poll) && (poll as number) > 0), 'pollIntervalMs is a positive integer when present');
  for (const legacy of ['task', 'ttl', 'pollInterval', 'requestState']) need(!(legacy in result), `no "${legacy}" on the modern wire`);
  if (task) {
    for (const field of ['result', 'error', 'inputRequests']) need(!(field in result), `a CreateTaskResult carries no "${field}"`);
    return errors;
  }
  const status = result['status'];
  need(('result' in result) === (status === 'completed'), '"result" exactly when completed');
  need(('error' in result) === (status === 'failed'), '"error" exactly when failed');
  need(!('inputRequests' in result) || status === 'input_required', '"inputRequests" only when input_required');
  if ('result' in result) {
    const inlined = result['result'];
    need(isRecord(inlined) && Array.isArray(inlined['content']), 'the inlined result is a CallToolResult');
    if (isRecord(inlined)) errors.push(...loadRevisionSchema(MODERN).check('CallToolResult', inlined, '/result/result'));
  }
  if ('error' in result) {
    const error = result['error'];
    need(isRecord(error) && Number.isInteger(error['code']) && typeof error['message'] === 'string', 'the inlined error has an integer code and a string message');
  }
  if ('inputRequests' in result) {
    const requests = result['inputRequests'];
    need(isRecord(requests) && Object.values(requests).every((entry) => isRecord(entry) && typeof entry['method'] === 'string'), 'inputRequests maps keys to input requests');
  }
  return errors;
}

/**
 * Checks a whole conversation (what the client sent and what the server sent, as logged on each side) the way
 * {@link TasksClient.assertClean} checks a server's answers, in both directions: messages outside the extension
 * against the 2026-07-28 schema (responses against the result of the request they answer); extension requests
 * (`tasks/*`) against the JSON-RPC request envelope plus their SEP-2663 params; `notifications/tasks` against the
 * notification envelope plus the task shape `tasks/get` gives. Returns the problems found (and fails on an empty
 * conversation, which would prove nothing).
 */
export function checkConversation(clientSent: readonly unknown[], serverSent: readonly unknown[]): string[] {
  const requests = new Map<RequestId, { method: string; params: JsonObject }>();
  const problems: string[] = [];
  const schema = loadRevisionSchema(MODERN);
  const report = (message: unknown, errors: readonly string[]): void => {
    if (errors.length > 0) problems.push(`${JSON.stringify(message)}\n    - ${errors.join('\n    - ')}`);
  };
  const flat = (payloads: readonly unknown[]): unknown[] => payloads.flatMap((payload) => (Array.isArray(payload) ? payload : [payload]));
  for (const message of flat(clientSent)) {
    if (!isRecord(message)) {
      report(message, ['not a JSON object']);
      continue;
    }
    const method = message['method'];
    if (typeof method !== 'string') {
      report(message, validateMessage(MODERN, message, {}));
      continue;
    }
    const params = (isRecord(message['params']) ? message['params'] : {}) as JsonObject;
    if ('id' in message) requests.set(message['id'] as RequestId, { method, params });
    if (!method.startsWith('tasks/')) {
      report(message, validateMessage(MODERN, message, { role: 'client' }));
      continue;
    }
    const errors = [...schema.check('JSONRPCRequest', message)];
    if (typeof params['taskId'] !== 'string') errors.push('params.taskId is a string');
    if (method === 'tasks/update' && !isRecord(params['inputResponses'])) errors.push('params.inputResponses is an object');
    if (!['tasks/get', 'tasks/update', 'tasks/cancel'].includes(method)) errors.push(`${method} is not a method of the extension`);
    const meta = params['_meta'];
    if (!isRecord(meta) || meta['io.modelcontextprotocol/protocolVersion'] !== MODERN) errors.push('the request carries the 2026-07-28 envelope');
    report(message, errors);
  }
  for (const message of flat(serverSent)) report(message, checkScoped(message, requests));
  if (requests.size === 0) problems.push('the client sent no request, so nothing was checked');
  return problems;
}
