/**
 * The tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663), server side:
 * server-directed tasks for `tools/call`, and `tasks/get`, `tasks/update`, `tasks/cancel`. The 2025-11-25
 * experimental tasks (tasks-feature.ts) are a different surface and stay as they are; both keep their tasks in
 * a {@link TaskStore}.
 *
 * Negotiation is per request: the tasks methods answer only a request whose client capabilities declare the
 * extension (-32021 otherwise, naming it in `requiredCapabilities`), and only such a `tools/call` may be
 * answered with a task. When a call becomes one is decided by the tool (tool-tasks.ts); the run itself is a
 * {@link ToolCallRun}. The answer is a flat `CreateTaskResult` (`resultType: "task"`), sent only once the task
 * is in the store, so a `tasks/get` right after it finds the task.
 *
 * Outcomes: a tool result (also one with `isError`) makes the task `completed` with the result inlined by
 * `tasks/get`; a protocol error (a `WireError` the handler raised, or a broken result) makes it `failed` with
 * the error inlined. `tasks/cancel` is cooperative and idempotent: the task is `cancelled` in the store before
 * the ack, the handler's signal aborts, and whatever the handler does after that is not recorded.
 *
 * Ownership: a task belongs to the principal of the request that created it (what the transport authenticated
 * the caller as: HTTP `authenticate`, a NATS identity). `tasks/get|update|cancel` and listens from another
 * principal find no such task (-32602, exactly as for an unknown id). Callers nobody authenticated share one
 * owner, "anonymous": anyone who knows such a task's id can reach it, and task ids are random UUIDs (122 random
 * bits), so they cannot be guessed.
 *
 * Across processes: with a store several processes share (its `relay`), a `tasks/get`, `tasks/update` or
 * `tasks/cancel` for a task whose handler runs in another process is forwarded to that process (pending input,
 * answers, cancellation). When that process is gone, the task is failed (compare-and-set in the store: one
 * writer wins) with an error saying so; a `tasks/update` or `tasks/cancel` for it is refused with that error.
 *
 * Watching: every change of a task (and, once a call is a task, its handler's progress and log messages) is
 * offered to the listen streams that asked for the task by id ({@link ModernTasksFeature.watch}); the status
 * notification is `notifications/tasks` carrying the task as `tasks/get` would give it. With a store several
 * processes share, the notice is also published once on its relay's feed (`TaskRelay.notices`), and the
 * notices other processes publish about the tasks watched here are told to the same listens by the same path:
 * a listen on any process hears a task run on any other. Whichever process a notice comes from, it reaches a
 * listen only if the listen's principal owns the task, checked as each notice is told.
 */
import { type Observable, Subject, defer, filter, finalize } from 'rxjs';
import { followOutput } from '../normalise-output.ts';
import type { FinalEvent } from '../request-events.ts';
import {
  type RelayAnswer,
  type RunnerView,
  type TaskNotice,
  type TaskNoticeFeed,
  type TaskNoticeMember,
  type TaskRelay,
  type TaskRunnerCalls,
  type TaskStore,
  TaskStoreError,
} from '../../core/catalog/task-store.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { LocalError, WireError, toWireError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { missingCapabilityError } from '../../core/protocol/modern.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import {
  type CreateTaskResult,
  type DetailedTask,
  type ModernTask,
  TASKS_EXTENSION,
  TASKS_REQUIRED_CAPABILITIES,
  declaresTasks,
} from '../../core/protocol/modern-tasks.ts';
import type { Task } from '../../core/protocol/tasks.ts';
import { isFinalTaskStatus } from '../../machines/task-lifecycle.ts';
import type { HandlerOutput, RequestContext, RequestHandler } from '../handler-types.ts';
import type { ToolEntry } from './catalog.ts';
import type { FeatureContext } from './feature-context.ts';
import { type TaskRunHost, ToolCallRun } from './modern-task-run.ts';
import { bindContext, taskStartOf } from './tool-tasks.ts';

export interface ModernTasksFeatureOptions {
  readonly store: TaskStore;
  /** Retention of every task from its creation, in milliseconds; `null` keeps tasks until the server closes. */
  readonly ttlMs: number | null;
  /** The polling interval suggested to clients, in milliseconds. */
  readonly pollIntervalMs: number;
  /** The registered tool of a name. */
  readonly tool: (name: string) => ToolEntry | undefined;
}

export interface ModernTasksFeature {
  /** `tasks/get`, `tasks/update`, `tasks/cancel`. */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** Wraps the era's `tools/call` (built with {@link context}) so that calls of tools with task support can become tasks. */
  toolsCall(inner: RequestHandler): RequestHandler;
  /** Wraps the handler-context factory of that `tools/call`, so `continueAsTask(ctx)` finds its call. */
  context(base: (request: RequestContext) => FeatureContext): (request: RequestContext) => FeatureContext;
  /** Aborts every running task (the server is closing). */
  close(): void;
  /**
   * A listen stream's interest in tasks (`notifications.taskIds`): the ids among `taskIds` that this request's
   * principal owns, and the notifications about them (`notifications/tasks`, and progress and log messages of
   * their handlers), until unsubscribed. Throws -32021 when the request did not declare the extension.
   */
  watch(request: RequestContext, taskIds: readonly string[]): Promise<TaskWatch>;
}

/** What a listen gets for the tasks it asked about. */
export interface TaskWatch {
  /** The ids it will hear about (those its principal owns), in the order asked, without duplicates. */
  readonly taskIds: readonly string[];
  readonly notices$: Observable<{ readonly method: string; readonly params: JsonObject }>;
}

/** The `capabilities.extensions` entry a server declares when it enables the extension. */
export const TASKS_EXTENSION_CAPABILITY: Readonly<Record<string, JsonObject>> = Object.freeze({ [TASKS_EXTENSION]: Object.freeze({}) });

/** The owner of the tasks of callers nobody authenticated (see the module comment). */
const ANONYMOUS = 'anonymous';

/** The owner key of a request's tasks: its principal (prefixed, so no principal can be named "anonymous"). */
function ownerOf(request: RequestContext): string {
  const principal = (request.modern as { readonly principal?: string | undefined } | undefined)?.principal;
  return principal === undefined ? ANONYMOUS : `principal:${principal}`;
}


function noop(): void {}

function invalidParams(message: string): WireError {
  return new WireError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

function unknownTask(taskId: string): WireError {
  return invalidParams(`no task "${taskId}" (unknown or expired)`);
}

function missingExtension(what: string): WireError {
  const error = missingCapabilityError(TASKS_REQUIRED_CAPABILITIES, `${what} needs the ${TASKS_EXTENSION} extension, which this request did not declare`);
  return new WireError(error.code, error.message, { data: error.data });
}

/** The error a task whose handler's process is gone fails with. */
function runnerGone(taskId: string): WireError {
  return new WireError(ErrorCode.InternalError, `Task "${taskId}" failed: the server process running it is gone, and its work with it`);
}

/** Whether a task was failed because its process is gone (by this process or another that found out first). */
function isOrphaned(task: Task): boolean {
  return task.status === 'failed' && task.statusMessage === runnerGone(task.taskId).message;
}

function relayFailure(answer: RelayAnswer<unknown>): WireError | undefined {
  if (answer.type === 'failed') return new WireError(answer.error.code, answer.error.message, { data: answer.error.data });
  if (answer.type === 'unreachable') return new WireError(ErrorCode.InternalError, answer.message);
  return undefined;
}

function fromStoreError(error: unknown): unknown {
  return error instanceof TaskStoreError ? new WireError(ErrorCode.InternalError, error.message) : error;
}

function readTaskId(params: JsonObject | undefined): string {
  const taskId = params?.['taskId'];
  if (typeof taskId !== 'string') throw invalidParams('a string "taskId" is required');
  return taskId;
}

/** The modern wire form of a stored task (durations renamed with their unit). */
function wireTask(task: Task): ModernTask {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttl,
    ...(task.pollInterval === undefined ? {} : { pollIntervalMs: task.pollInterval }),
  };
}

class ModernTasksImpl implements ModernTasksFeature, TaskRunHost {
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  private readonly store: TaskStore;
  private readonly running = new Map<string, ToolCallRun>();
  /** How each run's request is answered (once). */
  private readonly answers = new WeakMap<ToolCallRun, { resolve(result: JsonObject): void; reject(error: unknown): void }>();
  /**
   * Notifications about tasks, this process's and those heard from others, for the listens that watch them
   * (computed only while one does, or while other processes may).
   */
  private readonly notices = new Subject<TaskNotice>();
  private closed = false;
  private readonly relay: TaskRelay | undefined;
  private readonly stopRelay: () => void;
  /** The store's feed of notices across processes, and this feature's membership of it. */
  private readonly feed: TaskNoticeFeed | undefined;
  private readonly member: TaskNoticeMember | undefined;

  constructor(private readonly options: ModernTasksFeatureOptions) {
    this.store = options.store;
    this.handlers = {
      'tasks/get': (params, request) => this.get(params, request),
      'tasks/update': (params, request) => this.update(params, request),
      'tasks/cancel': (params, request) => this.cancel(params, request),
    };
    this.relay = options.store.relay;
    this.stopRelay = this.relay === undefined ? noop : this.relay.serve(this.runnerCalls());
    this.feed = this.relay?.notices;
    this.member = this.feed?.join((notice) => this.offer(notice));
  }

  /** Offers a notice to this process's listens (those watching its task filter it). */
  private offer(notice: TaskNotice): void {
    if (this.notices.observed) this.notices.next(notice);
  }

  /** A notice of what happened here (to a task run here, or one this process cancelled or failed): told to this process's listens, and published once for the others'. */
  private tell(notice: TaskNotice): void {
    this.offer(notice);
    this.member?.publish(notice);
  }

  /** What other processes may ask of the tasks this one runs (through the store's relay). */
  private runnerCalls(): TaskRunnerCalls {
    const runOf = (owner: string, taskId: string): ToolCallRun | undefined => {
      const run = this.running.get(taskId);
      return run !== undefined && run.owner === owner ? run : undefined;
    };
    return {
      inputRequests: (owner, taskId) => {
        const run = runOf(owner, taskId);
        if (run === undefined) return { running: false };
        const inputRequests = run.inputRequests();
        return inputRequests === undefined ? { running: true } : { running: true, inputRequests };
      },
      supply: async (owner, taskId, responses) => {
        const run = runOf(owner, taskId);
        if (run === undefined) return false;
        await run.supply(responses);
        return true;
      },
      cancel: async (owner, taskId) => {
        if (runOf(owner, taskId) === undefined) return false;
        await this.cancelHere(owner, taskId);
        return true;
      },
    };
  }

  close(): void {
    this.closed = true;
    this.stopRelay();
    this.member?.leave();
    const reason = new LocalError('ConnectionClosed', 'The server closed before the task finished');
    for (const [taskId, run] of [...this.running]) {
      this.running.delete(taskId);
      run.abort(reason);
      // Its work will never end now: a store that outlives the server must not show it running.
      this.store.setResult(run.owner, taskId, 'failed', { type: 'error', error: toWireError(reason) }, reason.message).catch(noop);
    }
    this.notices.complete();
  }

  async watch(request: RequestContext, taskIds: readonly string[]): Promise<TaskWatch> {
    this.requireExtension('a listen for task notifications', request);
    const owner = ownerOf(request);
    const wanted = [...new Set(taskIds)];
    const found = await Promise.all(wanted.map((taskId) => this.store.get(owner, taskId)));
    const agreed = wanted.filter((_, index) => found[index] !== undefined);
    const ids = new Set(agreed);
    // While subscribed, this process hears what the others publish about these tasks. The owner is checked at
    // each notice, wherever it comes from: the one rule for who hears a task.
    return {
      taskIds: agreed,
      notices$: defer(() => {
        const feed = this.feed;
        const follows = feed === undefined ? [] : agreed.map((taskId) => feed.follow(taskId));
        return this.notices.pipe(
          filter((notice) => notice.owner === owner && ids.has(notice.taskId)),
          finalize(() => {
            for (const stop of follows) stop();
          }),
        );
      }),
    };
  }

  notice(run: ToolCallRun, method: string, params: JsonObject): void {
    const taskId = run.taskId;
    if (taskId !== undefined && (this.notices.observed || this.member !== undefined)) this.tell({ owner: run.owner, taskId, method, params });
  }

  /**
   * Tells the watchers of a task that changed (a status or its message) what `tasks/get` now answers. With other
   * processes on the feed it is computed for every change, since a listen there may watch the task.
   */
  private changed(owner: string, task: Task): void {
    if (!this.notices.observed && this.member === undefined) return;
    this.detailed(owner, task).then((detailed) => {
      const { resultType: _complete, ...params } = detailed;
      this.tell({ owner, taskId: task.taskId, method: 'notifications/tasks', params: params as unknown as JsonObject });
    }, noop);
  }

  context(base: (request: RequestContext) => FeatureContext): (request: RequestContext) => FeatureContext {
    return (request) => {
      const context = base(request);
      if (request instanceof ToolCallRun) bindContext(context, request);
      return context;
    };
  }

  // --- tools/call -----------------------------------------------------------------------------------------

  toolsCall(inner: RequestHandler): RequestHandler {
    return (params, request) => {
      const name = params?.['name'];
      const entry = typeof name === 'string' ? this.options.tool(name) : undefined;
      const support = entry?.definition.execution?.taskSupport ?? 'forbidden';
      const envelope = request.modern?.envelope;
      // Unknown tools, malformed calls and tools without task support are ordinary calls (a legacy
      // `params.task` hint is ignored: the server alone decides).
      if (entry === undefined || support === 'forbidden' || envelope === undefined) return inner(params, request);
      // A malformed call is refused as such (-32602 from the ordinary path), never turned into a failed task.
      const args = params?.['arguments'];
      if (args !== undefined && !isJsonObject(args)) return inner(params, request);
      if (!declaresTasks(envelope.clientCapabilities)) {
        if (support === 'required') throw missingExtension(`tool "${entry.definition.name}" runs only as a task, which`);
        return inner(params, request);
      }
      const start = taskStartOf(entry.handler) ?? (support === 'required' ? 'at-once' : 'on-demand');
      const run = new ToolCallRun(this, request, envelope, support, ownerOf(request));
      return new Promise<JsonObject>((resolve, reject) => {
        this.answers.set(run, { resolve, reject });
        if (start === 'on-demand') {
          this.begin(run, () => inner(params, run));
          return;
        }
        run.escalate().then((escalated) => {
          if (escalated) this.begin(run, () => inner(params, run));
          else reject(new LocalError('ConnectionClosed', 'The server closed before the task could start'));
        }, reject);
      });
    };
  }

  /** Creates the task, then answers the request with it (the handler goes on as the task). */
  async escalate(run: ToolCallRun): Promise<boolean> {
    if (this.closed || run.requestGone) return false;
    let task: Task;
    try {
      task = await this.store.create(run.owner, { ttl: this.options.ttlMs, pollInterval: this.options.pollIntervalMs });
    } catch (error) {
      throw fromStoreError(error);
    }
    if (run.requestGone || this.closed) {
      // Nobody learnt of this task: it is cancelled at once (and expires with its ttl).
      await this.store.cancel(run.owner, task.taskId, 'The request that would have created the task ended first').catch(noop);
      return false;
    }
    run.becameTask(task.taskId);
    this.running.set(task.taskId, run);
    const created: CreateTaskResult = { resultType: 'task', ...wireTask(task) };
    this.answers.get(run)?.resolve(created as unknown as JsonObject);
    return true;
  }

  /** Runs the handler and follows its output, whatever its shape, into {@link settle}. */
  private begin(run: ToolCallRun, execute: () => HandlerOutput): void {
    let output: HandlerOutput;
    try {
      output = execute();
    } catch (error) {
      return this.settle(run, { type: 'error', error });
    }
    followOutput(output, run, (settled) => this.settle(run, settled));
  }

  /**
   * The handler's outcome. Still in the request: the request's answer, except that a `required` tool's call
   * is answered with a task all the same (created now and finished at once). As a task: recorded in the store.
   */
  private settle(run: ToolCallRun, settled: FinalEvent<unknown>): void {
    if (run.phase === 'task') return this.finish(run, settled);
    const escalated = (becameTask: boolean): void => (becameTask ? this.finish(run, settled) : this.answer(run, settled));
    const failed = (error: unknown): void => this.answer(run, { type: 'error', error });
    // The handler asked to become a task and ended before that was done: wait for it.
    const pending = run.escalating;
    if (pending !== undefined) return void pending.then(escalated, failed);
    if (run.support === 'optional' || run.requestGone) return this.answer(run, settled);
    run.escalate().then(escalated, failed);
  }

  /** Answers the request with the handler's own outcome (the call did not become a task). */
  private answer(run: ToolCallRun, settled: FinalEvent<unknown>): void {
    run.endInRequest();
    const answer = this.answers.get(run);
    if (settled.type !== 'error') answer?.resolve(settled.result as JsonObject);
    else answer?.reject(settled.error);
  }

  /** Stores how the task's work ended: what `tasks/get` inlines once it is terminal. */
  private finish(run: ToolCallRun, settled: FinalEvent<unknown>): void {
    if (run.finished) return;
    run.finished = true;
    run.teardown = undefined;
    const taskId = run.taskId;
    if (taskId === undefined) return;
    if (this.running.get(taskId) === run) this.running.delete(taskId);
    const value = settled.type === 'error' ? undefined : settled.result;
    let step: () => Promise<unknown>;
    if (settled.type !== 'error' && isJsonObject(value)) {
      // A tool that ran and reported an error is still `completed`: `failed` is for protocol errors.
      step = () => this.store.setResult(run.owner, taskId, 'completed', { type: 'result', result: value });
    } else {
      const error = toWireError(settled.type === 'error' ? settled.error : new LocalError('ProtocolViolation', 'The tool returned a non-object result'));
      step = () => this.store.setResult(run.owner, taskId, 'failed', { type: 'error', error }, error.message);
    }
    run.serial(step).then((change) => this.reportChange(run.owner, change), noop);
  }

  moveTo(run: ToolCallRun, status: 'working' | 'input_required'): Promise<void> {
    const taskId = run.taskId;
    if (taskId === undefined || run.finished) return Promise.resolve();
    return run.serial(() => this.store.updateStatus(run.owner, taskId, status)).then((change) => this.reportChange(run.owner, change), noop);
  }

  private reportChange(owner: string, change: unknown): void {
    const moved = change as { readonly task: Task; readonly changed: boolean } | undefined;
    if (moved?.changed === true) this.changed(owner, moved.task);
  }

  // --- tasks/* --------------------------------------------------------------------------------------------

  private async get(params: JsonObject | undefined, request: RequestContext): Promise<DetailedTask> {
    this.requireExtension('tasks/get', request);
    const taskId = readTaskId(params);
    const owner = ownerOf(request);
    const task = await this.store.get(owner, taskId);
    if (task === undefined) throw unknownTask(taskId);
    if (this.relay === undefined || isFinalTaskStatus(task.status) || this.running.has(taskId)) return this.detailed(owner, task);
    // Its handler runs elsewhere (or ran in a process that is gone): that process knows its pending input.
    const asked = await this.relay.inputRequests(owner, taskId);
    if (asked.type === 'gone') return this.detailed(owner, await this.orphaned(owner, task));
    if (asked.type !== 'answered') return this.detailed(owner, task);
    // Not running there any more: it has just ended, and the store now says how.
    const now = asked.value.running ? task : ((await this.store.get(owner, taskId)) ?? task);
    return this.detailed(owner, now, asked.value);
  }

  /**
   * Fails a task whose handler's process is gone. Compare-and-set in the store: of several processes that find
   * it at once, one writes the failure; the others (and a handler that finished just before) are refused, and
   * every one answers with the task as the store now has it.
   */
  private async orphaned(owner: string, task: Task): Promise<Task> {
    const error = runnerGone(task.taskId);
    const change = await this.store.setResult(owner, task.taskId, 'failed', { type: 'error', error: error.toObject() }, error.message);
    if (change === undefined) throw unknownTask(task.taskId);
    this.reportChange(owner, change);
    return change.task;
  }

  /** The task as `tasks/get` gives it: with its pending input, its result or its error inlined. */
  private async detailed(owner: string, task: Task, remote?: RunnerView): Promise<DetailedTask> {
    const taskId = task.taskId;
    const detailed: DetailedTask = { ...wireTask(task), resultType: 'complete' };
    if (task.status === 'input_required') {
      const inputRequests = remote === undefined ? this.running.get(taskId)?.inputRequests() : remote.inputRequests;
      return inputRequests === undefined ? detailed : { ...detailed, inputRequests };
    }
    if (task.status !== 'completed' && task.status !== 'failed') return detailed;
    const outcome = (await this.store.result(owner, taskId))?.outcome;
    if (outcome?.type === 'result') return { ...detailed, result: { ...outcome.result, resultType: 'complete' } };
    if (outcome?.type === 'error') {
      const { code, message, data } = outcome.error;
      return { ...detailed, error: data === undefined ? { code, message } : { code, message, data } };
    }
    return detailed;
  }

  private async update(params: JsonObject | undefined, request: RequestContext): Promise<JsonObject> {
    this.requireExtension('tasks/update', request);
    const taskId = readTaskId(params);
    const responses = params?.['inputResponses'];
    if (!isJsonObject(responses)) throw invalidParams('"inputResponses" must be an object of answers by input request key');
    const owner = ownerOf(request);
    const task = await this.store.get(owner, taskId);
    if (task === undefined) throw unknownTask(taskId);
    // A task that waits for nothing (any more) has no use for answers: they are ignored, as unknown keys are.
    if (isFinalTaskStatus(task.status)) return {};
    const run = this.running.get(taskId);
    if (run !== undefined) {
      await run.supply(responses);
      return {};
    }
    if (this.relay === undefined) return {};
    // The handler runs in another process: the answers go there.
    const forwarded = await this.relay.supply(owner, taskId, responses);
    // Failed by this call or another; a task that ended just before its process did keeps its own outcome.
    if (forwarded.type === 'gone') {
      if (isOrphaned(await this.orphaned(owner, task))) throw runnerGone(taskId);
      return {};
    }
    const failure = relayFailure(forwarded);
    if (failure !== undefined) throw failure;
    return {};
  }

  private async cancel(params: JsonObject | undefined, request: RequestContext): Promise<JsonObject> {
    this.requireExtension('tasks/cancel', request);
    const taskId = readTaskId(params);
    const owner = ownerOf(request);
    if (this.relay !== undefined && !this.running.has(taskId)) {
      const task = await this.store.get(owner, taskId);
      if (task === undefined) throw unknownTask(taskId);
      if (!isFinalTaskStatus(task.status)) {
        // Its handler runs in another process: that one cancels it (and aborts the handler).
        const forwarded = await this.relay.cancel(owner, taskId);
        if (forwarded.type === 'gone') {
          if (isOrphaned(await this.orphaned(owner, task))) throw runnerGone(taskId);
          return {};
        }
        if (forwarded.type === 'failed') throw relayFailure(forwarded);
        if (forwarded.type === 'answered' && forwarded.value) return {};
        // Not running there any more, or no answer in time: the store's word is final all the same (the
        // handler's own result would be refused once the task is cancelled).
      }
    }
    await this.cancelHere(owner, taskId);
    return {};
  }

  /** Cancels the task in the store, then its handler's signal if it runs here. */
  private async cancelHere(owner: string, taskId: string): Promise<void> {
    // Cancelled in the store before the ack; cancelling a task that has ended already is acknowledged alike.
    const change = await this.store.cancel(owner, taskId, 'The task was cancelled by request.');
    if (change === undefined) throw unknownTask(taskId);
    const run = this.running.get(taskId);
    if (run !== undefined && change.changed) {
      this.running.delete(taskId);
      run.abort(new LocalError('RequestAborted', 'The task was cancelled'));
    }
    this.reportChange(owner, change);
  }

  private requireExtension(method: string, request: RequestContext): void {
    if (!declaresTasks(request.modern?.envelope.clientCapabilities)) throw missingExtension(method);
  }
}

export function createModernTasksFeature(options: ModernTasksFeatureOptions): ModernTasksFeature {
  return new ModernTasksImpl(options);
}
