/**
 * Tasks, receiver side (2025-11-25, experimental): task-augmented `tools/call`, and `tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel`.
 *
 * A task-augmented call is answered at once with a `CreateTaskResult` (status `working`); the tool then runs
 * in the background under a context of its own ({@link TaskRun}), which outlives the request: its signal
 * aborts on `tasks/cancel` or when the session closes, progress keeps the request's progress token, and
 * every request and notification it sends carries `_meta["io.modelcontextprotocol/related-task"]`. While the
 * tool waits on the client (elicitation, sampling, roots), the task is `input_required`. Every status change
 * after creation is announced with `notifications/tasks/status` (optional in the spec, sent here).
 *
 * Tasks belong to the authorization context they were created in. Where the transport authenticated the
 * caller (HTTP `authenticate`, a NATS identity), that is its principal: the principal's tasks are reachable from
 * any of its sessions (`tasks/list` lists them all) and from no other principal's; a task whose session closes
 * while it runs is aborted and kept as `failed` until its ttl. Where nobody was authenticated, it is the session
 * (one random owner key per session): another session gets -32602 exactly as for an unknown id, and the tasks are
 * deleted when the session closes (nobody could reach them any more).
 */
import type { AuthInfo } from '../../core/auth.ts';
import { followOutput } from '../normalise-output.ts';
import type { FinalEvent } from '../request-events.ts';
import { Observable, type Subscription, defer, finalize } from 'rxjs';
import { randomUuid } from '../../core/crypto/random.ts';
import { type TaskStore, type TaskTtlPolicy, TaskStoreError, resolveTaskTtl } from '../../core/catalog/task-store.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError, WireError, toWireError } from '../../core/errors.ts';
import type { JsonObject, RequestId } from '../../core/jsonrpc.ts';
import type { TaskCapabilities } from '../../core/protocol/capabilities.ts';
import { toolsCall } from '../../core/protocol/declarations/tools.ts';
import { methodAvailable, methodRule } from '../../core/protocol/methods.ts';
import { type CreateTaskResult, RELATED_TASK_META_KEY, type Task } from '../../core/protocol/tasks.ts';
import type { CallToolResult, Tool } from '../../core/protocol/tools.ts';
import { isLegacyRevision } from '../../core/protocol/versions.ts';
import type { PromiseRequestOptions, ProgressUpdate, RequestContext, RequestEvent, RequestHandler, RequestOptions, SessionView } from '../handler-types.ts';
import { isProgressToken } from '../../core/progress-token.ts';
import { normaliseProgress } from '../progress.ts';
import type { FinishedOutput } from './handler-output.ts';
import type { ToolTaskRuntime } from './tools-feature.ts';

/** How a task reaches its session once the request that created it has been answered. */
export interface TaskPeer {
  request<R extends object = JsonObject>(method: string, params?: JsonObject, options?: PromiseRequestOptions): Promise<R>;
  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options?: RequestOptions): Observable<RequestEvent<R>>;
  notify(method: string, params?: JsonObject): void;
  /** Settles when more may be sent (see {@link RequestContext.whenWritable}). */
  whenWritable?(): Promise<void>;
}

export interface TasksFeatureOptions extends TaskTtlPolicy {
  readonly store: TaskStore;
  /** The polling interval suggested to requestors, in milliseconds (default 1000). */
  readonly pollIntervalMs?: number;
  /** The session behind a handler's session view. */
  readonly peer: (session: SessionView) => TaskPeer;
}

export interface TasksFeature {
  /** `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`. */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** The task-augmented path of `tools/call`. */
  readonly tools: ToolTaskRuntime;
  /** What the server declares: `tasks.list`, `tasks.cancel`, `tasks.requests.tools.call`. */
  readonly capabilities: TaskCapabilities;
  /** Aborts the session's running tasks and deletes its tasks. */
  sessionClosed(session: SessionView): void;
}

export const TASK_CAPABILITIES: TaskCapabilities = Object.freeze({ list: {}, cancel: {}, requests: { tools: { call: {} } } });

const DEFAULT_POLL_INTERVAL_MS = 1000;
const TASKS_RULE = methodRule('tasks/get');

function noop(): void {}

function invalidParams(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

function unknownTask(taskId: string): WireError {
  // The same answer for an id that never existed, one that expired, and another session's task.
  return invalidParams(`no task "${taskId}" (unknown, expired, or not yours)`);
}

function readTaskId(params: JsonObject | undefined): string {
  const taskId = params?.['taskId'];
  if (typeof taskId !== 'string') throw invalidParams('a string "taskId" is required');
  return taskId;
}

function fromStoreError(error: unknown): unknown {
  if (!(error instanceof TaskStoreError)) return error;
  return error.code === 'InvalidCursor' ? invalidParams(error.message) : new WireError(ErrorCode.InternalError, error.message);
}

function withRelated(params: JsonObject | undefined, related: JsonObject): JsonObject {
  const meta = params?.['_meta'];
  return { ...params, _meta: { ...(typeof meta === 'object' && meta !== null ? (meta as JsonObject) : undefined), ...related } };
}

/** Who the transport authenticated a (legacy) session's peer as, if it did. */
function principalOf(session: SessionView): string | undefined {
  return (session as SessionView & { readonly principal?: string | undefined }).principal;
}

/** Tasks exist from 2025-11-25 (legacy era), as the method table says. */
function tasksExistIn(revision: SessionView['revision']): boolean {
  return TASKS_RULE !== undefined && revision !== undefined && isLegacyRevision(revision) && methodAvailable(TASKS_RULE, revision, 'client');
}

/** A diagnostic worth putting in `statusMessage` of a failed tool task. */
function failureMessage(result: CallToolResult): string {
  const text = result.content.find((block) => block.type === 'text');
  const detail = text !== undefined && 'text' in text && typeof text.text === 'string' ? text.text : 'the tool reported an error';
  return `Tool execution failed: ${detail.length > 500 ? `${detail.slice(0, 500)}...` : detail}`;
}


/**
 * The context a task's tool handler runs under: a {@link RequestContext} that outlives the request. Its
 * signal aborts on `tasks/cancel` and when the session closes; everything it sends names the task.
 */
class TaskRun implements RequestContext {
  readonly method = toolsCall.method;
  private readonly controller = new AbortController();
  private readonly related: JsonObject;
  private readonly progressToken: string | number | undefined;
  private lastProgress = -Infinity;
  private waiting = 0;
  private chain: Promise<unknown> = Promise.resolve();
  /** Set once the work ended (or was aborted): nothing more is sent for it. */
  finished = false;
  /** Stops the handler's output (an Observable subscription). */
  teardown: Subscription | undefined;

  constructor(
    private readonly feature: TaskFeatureImpl,
    readonly taskId: string,
    readonly owner: string,
    readonly id: RequestId,
    readonly meta: JsonObject | undefined,
    readonly session: SessionView,
    private readonly peer: TaskPeer,
    /** The caller of the request that created the task: the work runs on its behalf. */
    readonly auth: AuthInfo | undefined,
  ) {
    this.related = { [RELATED_TASK_META_KEY]: { taskId } };
    const token = meta?.['progressToken'];
    this.progressToken = isProgressToken(token) ? token : undefined;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Runs store updates of this task one after another, in the order they were asked for. */
  serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.chain.then(step);
    this.chain = next.then(noop, noop);
    return next;
  }

  abort(reason: LocalError): void {
    this.finished = true;
    const teardown = this.teardown;
    this.teardown = undefined;
    teardown?.unsubscribe();
    this.controller.abort(reason);
  }

  progress(update: ProgressUpdate): void {
    if (this.finished || this.progressToken === undefined) return;
    const report = normaliseProgress(update);
    if (report === undefined || report.progress <= this.lastProgress) return;
    this.lastProgress = report.progress;
    // The request's progress token stays valid for the task's whole life.
    this.send('notifications/progress', { progressToken: this.progressToken, ...report, _meta: this.related });
  }

  notify(method: string, params?: JsonObject): void {
    if (this.finished) return;
    this.send(method, withRelated(params, this.related));
  }

  whenWritable(): Promise<void> {
    return this.peer.whenWritable?.() ?? Promise.resolve();
  }

  request<R extends object = JsonObject>(method: string, params?: JsonObject, options: PromiseRequestOptions = {}): Promise<R> {
    this.beginWaiting(method);
    return this.peer.request<R>(method, params, this.options(options)).finally(() => this.endWaiting(method));
  }

  request$<R extends object = JsonObject>(method: string, params?: JsonObject, options: RequestOptions = {}): Observable<RequestEvent<R>> {
    return defer(() => {
      this.beginWaiting(method);
      return this.peer.request$<R>(method, params, this.options(options)).pipe(finalize(() => this.endWaiting(method)));
    });
  }

  private options<O extends RequestOptions>(options: O): O {
    const signal = options.signal === undefined ? this.signal : AbortSignal.any([options.signal, this.signal]);
    return { ...options, signal, meta: { ...options.meta, ...this.related } };
  }

  /** A request to the requestor means the task waits for input until every such request is answered. */
  private beginWaiting(method: string): void {
    if (method === 'ping') return;
    if (this.waiting++ === 0 && !this.finished) this.feature.moveTo(this, 'input_required');
  }

  private endWaiting(method: string): void {
    if (method === 'ping') return;
    if (--this.waiting === 0 && !this.finished) this.feature.moveTo(this, 'working');
  }

  private send(method: string, params: JsonObject): void {
    try {
      this.peer.notify(method, params);
    } catch {
      // The session is closing: the task is being dropped with it.
    }
  }
}

class TaskFeatureImpl implements TasksFeature {
  readonly capabilities = TASK_CAPABILITIES;
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  readonly tools: ToolTaskRuntime;
  private readonly store: TaskStore;
  private readonly pollInterval: number;
  private readonly owners = new WeakMap<SessionView, string>();
  private readonly running = new Map<string, TaskRun>();

  constructor(private readonly options: TasksFeatureOptions) {
    this.store = options.store;
    this.pollInterval = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.tools = { route: (tool, params, request, execute) => this.route(tool, params, request, execute) };
    this.handlers = {
      'tasks/get': (params, request) => this.get(readTaskId(params), request.session),
      'tasks/result': (params, request) => this.result(readTaskId(params), request),
      'tasks/list': (params, request) => this.list(params, request.session),
      'tasks/cancel': (params, request) => this.cancel(readTaskId(params), request.session),
    };
  }

  sessionClosed(session: SessionView): void {
    const owner = this.owners.get(session);
    if (owner === undefined) return;
    const reason = new LocalError('ConnectionClosed', 'The session that ran the task closed');
    const principal = principalOf(session) !== undefined;
    for (const run of [...this.running.values()]) {
      if (run.session !== session) continue;
      this.running.delete(run.taskId);
      run.abort(reason);
      // A principal's task outlives the session: its other sessions see how it ended.
      if (principal) this.store.setResult(owner, run.taskId, 'failed', { type: 'error', error: toWireError(reason) }, reason.message).catch(noop);
    }
    if (!principal) this.store.deleteOwner(owner).catch(noop);
  }

  /** Moves a running task between `working` and `input_required`, and says so. */
  moveTo(run: TaskRun, status: 'working' | 'input_required'): void {
    run
      .serial(() => this.store.updateStatus(run.owner, run.taskId, status))
      .then((change) => {
        if (change?.changed === true) this.announce(run.session, change.task);
      })
      .catch(noop);
  }

  // --- tools/call ---------------------------------------------------------------------------------------

  private route(
    tool: Tool,
    params: JsonObject | undefined,
    request: RequestContext,
    execute: (context: RequestContext) => FinishedOutput<CallToolResult>,
  ): Observable<CreateTaskResult> | undefined {
    // Before 2025-11-25 there are no tasks: the call is an ordinary one, whatever it carries.
    if (!tasksExistIn(request.session.revision)) return undefined;
    const support = tool.execution?.taskSupport ?? 'forbidden';
    const task = params?.['task'];
    if (task === undefined) {
      if (support !== 'required') return undefined;
      throw new WireError(ErrorCode.MethodNotFound, `Method not found: tool "${tool.name}" must be called as a task (its execution.taskSupport is "required"); send params.task`);
    }
    if (support === 'forbidden') {
      throw new WireError(ErrorCode.MethodNotFound, `Method not found: tool "${tool.name}" cannot be called as a task (its execution.taskSupport is "forbidden" or absent)`);
    }
    if (typeof task !== 'object' || task === null || Array.isArray(task)) throw invalidParams('"task" must be an object');
    const ttl = (task as JsonObject)['ttl'];
    if (ttl !== undefined && !(typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0)) {
      throw invalidParams('"task.ttl" must be a non-negative integer (milliseconds)');
    }
    return this.start(request, resolveTaskTtl(ttl, this.options), execute);
  }

  /**
   * Creates the task and answers with it; the tool starts only once the answer is written, so the requestor
   * learns the task id before any progress, status or request about it.
   */
  private start(request: RequestContext, ttl: number | null, execute: (context: RequestContext) => FinishedOutput<CallToolResult>): Observable<CreateTaskResult> {
    const { id, meta, session, auth } = request;
    return new Observable<CreateTaskResult>((subscriber) => {
      const owner = this.ownerOf(session);
      this.store.create(owner, { ttl, pollInterval: this.pollInterval }).then((task) => {
        if (subscriber.closed) {
          // The tools/call was cancelled before the requestor learnt of the task: nobody will run or ask for it.
          this.store.cancel(owner, task.taskId, 'The request that created the task was cancelled').catch(noop);
          return;
        }
        const run = new TaskRun(this, task.taskId, owner, id, meta, session, this.options.peer(session), auth);
        this.running.set(task.taskId, run);
        subscriber.next({ task, _meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } } });
        subscriber.complete();
        this.begin(run, execute);
      }, (error: unknown) => subscriber.error(fromStoreError(error)));
    });
  }

  private begin(run: TaskRun, execute: (context: RequestContext) => FinishedOutput<CallToolResult>): void {
    let output: FinishedOutput<CallToolResult>;
    try {
      output = execute(run);
    } catch (error) {
      return this.finish(run, { type: 'error', error });
    }
    followOutput(output, run, (settled) => this.finish(run, settled));
  }

  /** Stores how the tool call ended: what `tasks/result` will answer, exactly as the call would have. */
  private finish(run: TaskRun, settled: FinalEvent<unknown>): void {
    if (run.finished) return;
    run.finished = true;
    run.teardown = undefined;
    if (this.running.get(run.taskId) === run) this.running.delete(run.taskId);
    let status: 'completed' | 'failed';
    let statusMessage: string | undefined;
    let outcome: Parameters<TaskStore['setResult']>[3];
    const value = settled.type === 'error' ? undefined : settled.result;
    if (settled.type !== 'error' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const result = value as CallToolResult;
      // A tool result with isError is a failed task (its result is still the result, as the call's would be).
      status = result.isError === true ? 'failed' : 'completed';
      if (status === 'failed') statusMessage = failureMessage(result);
      outcome = { type: 'result', result: result as JsonObject };
    } else {
      const error = settled.type === 'error' ? settled.error : new LocalError('ProtocolViolation', 'The tool returned a non-object result');
      const wire = toWireError(error);
      status = 'failed';
      statusMessage = wire.message;
      outcome = { type: 'error', error: wire };
    }
    run
      .serial(() => this.store.setResult(run.owner, run.taskId, status, outcome, statusMessage))
      .then((change) => {
        if (change?.changed === true) this.announce(run.session, change.task);
      })
      .catch(noop);
  }

  // --- tasks/* ------------------------------------------------------------------------------------------

  private async get(taskId: string, session: SessionView): Promise<Task> {
    const task = await this.store.get(this.ownerOf(session), taskId);
    if (task === undefined) throw unknownTask(taskId);
    return task;
  }

  private async result(taskId: string, request: RequestContext): Promise<JsonObject> {
    // Blocks until the task is terminal; a cancelled tasks/result stops waiting (the task goes on).
    const finished = await this.store.result(this.ownerOf(request.session), taskId, request.signal);
    if (finished === undefined) throw unknownTask(taskId);
    const outcome = finished.outcome;
    if (outcome === undefined) {
      // Cancelled: the call never produced an answer. The spec does not say what tasks/result gives then.
      throw new WireError(ErrorCode.InvalidRequest, `Invalid request: task "${taskId}" was cancelled, so it has no result`, { data: { taskId, status: finished.task.status } });
    }
    if (outcome.type === 'error') throw new WireError(outcome.error.code, outcome.error.message, { data: outcome.error.data });
    const meta = outcome.result['_meta'];
    return {
      ...outcome.result,
      _meta: { ...(typeof meta === 'object' && meta !== null ? (meta as JsonObject) : undefined), [RELATED_TASK_META_KEY]: { taskId } },
    };
  }

  private async list(params: JsonObject | undefined, session: SessionView): Promise<JsonObject> {
    const cursor = params?.['cursor'];
    if (cursor !== undefined && typeof cursor !== 'string') throw invalidParams('"cursor" must be a string');
    try {
      const page = await this.store.list(this.ownerOf(session), cursor);
      return page.nextCursor === undefined ? { tasks: page.tasks } : { tasks: page.tasks, nextCursor: page.nextCursor };
    } catch (error) {
      throw fromStoreError(error);
    }
  }

  private async cancel(taskId: string, session: SessionView): Promise<Task> {
    // The task is `cancelled` in the store before the answer goes out, and stays so whatever its work does.
    const change = await this.store.cancel(this.ownerOf(session), taskId, 'The task was cancelled by request.');
    if (change === undefined) throw unknownTask(taskId);
    if (!change.changed) throw invalidParams(`cannot cancel task "${taskId}": it is already in terminal status '${change.task.status}'`);
    const run = this.running.get(taskId);
    if (run !== undefined) {
      this.running.delete(taskId);
      run.abort(new LocalError('RequestAborted', 'The task was cancelled'));
    }
    this.announce(session, change.task);
    return change.task;
  }

  // --- helpers ------------------------------------------------------------------------------------------

  private ownerOf(session: SessionView): string {
    let owner = this.owners.get(session);
    if (owner === undefined) {
      const principal = principalOf(session);
      // Prefixed, so that no principal's name can be mistaken for a session's random key.
      owner = principal === undefined ? `session:${randomUuid()}` : `principal:${principal}`;
      this.owners.set(session, owner);
    }
    return owner;
  }

  /** `notifications/tasks/status`: the full task, without related-task metadata (its id is in it). */
  private announce(session: SessionView, task: Task): void {
    try {
      this.options.peer(session).notify('notifications/tasks/status', { ...task });
    } catch {
      // The session is closing.
    }
  }
}

export function createTasksFeature(options: TasksFeatureOptions): TasksFeature {
  return new TaskFeatureImpl(options);
}
