/**
 * Tasks, requestor side (2025-11-25, experimental): call a tool as a task, then poll, fetch, list or cancel.
 *
 *   const { task } = await session.callToolAsTask('render', { scene: 'x' }, { ttl: 60_000 });
 *   session.taskUpdates$(task.taskId).subscribe((t) => console.log(t.status)); // working, ..., completed
 *   const result = await session.taskResult(task.taskId);                      // the CallToolResult
 *
 * `taskUpdates$` polls `tasks/get` at the interval the server suggests (on the session's clock), merges the
 * optional `notifications/tasks/status` pushes, emits each distinct status and completes after a terminal one.
 * The server's pushes are a bonus, never relied on: polling goes on until the task is terminal.
 */
import { Observable, filter } from 'rxjs';
import { pages$ } from '../actors/features/pager.ts';
import type { PromiseRequestOptions } from '../actors/handler-types.ts';
import type { TimerHandle } from '../core/clock.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { ServerCapabilities } from '../core/protocol/capabilities.ts';
import { type CancelTaskResult, type CreateTaskResult, type GetTaskResult, TASK_STATUSES, type Task, type TaskStatus } from '../core/protocol/tasks.ts';
import { isFinalTaskStatus } from '../machines/task-lifecycle.ts';
import { toolsCall } from '../core/protocol/declarations/tools.ts';
import type { CallToolResult } from '../core/protocol/tools.ts';
import { isLegacyRevision } from '../core/protocol/versions.ts';
import type { McpSession } from '../session/session-core.ts';

export interface CallToolAsTaskOptions extends PromiseRequestOptions {
  /** The retention asked for, in milliseconds from creation; the server may shorten it (the task says what it got). */
  readonly ttl?: number;
}

export interface TaskUpdatesOptions {
  /** The polling interval when the server suggests none (default 1000 ms). */
  readonly pollIntervalMs?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;

/** Whether a value has the shape of a `Task`. */
export function isTask(value: unknown): value is Task {
  if (typeof value !== 'object' || value === null) return false;
  const task = value as Record<string, unknown>;
  const ttl = task['ttl'];
  const pollInterval = task['pollInterval'];
  return (
    typeof task['taskId'] === 'string' &&
    (TASK_STATUSES as readonly unknown[]).includes(task['status']) &&
    typeof task['createdAt'] === 'string' &&
    typeof task['lastUpdatedAt'] === 'string' &&
    (ttl === null || typeof ttl === 'number') &&
    (pollInterval === undefined || typeof pollInterval === 'number') &&
    (task['statusMessage'] === undefined || typeof task['statusMessage'] === 'string')
  );
}

function malformed(method: string): LocalError {
  return new LocalError('ProtocolViolation', `The server answered ${method} with something that is not a task`);
}

/** The requestor half of tasks, for one client session. */
export class ClientTasks {
  constructor(
    private readonly session: McpSession,
    /** `notifications/tasks/status` params, as the session receives them. */
    private readonly statusPushes$: Observable<JsonObject>,
  ) {}

  /**
   * Calls a tool as a task: resolves with the `CreateTaskResult` as soon as the server accepted it. Refused
   * locally (`CapabilityNotNegotiated`, nothing sent) unless the server declared `tasks.requests.tools.call`.
   */
  async callToolAsTask(name: string, args: JsonObject = {}, options: CallToolAsTaskOptions = {}): Promise<CreateTaskResult> {
    const revision = this.session.revision;
    if (revision === undefined || !isLegacyRevision(revision) || revision < '2025-11-25') {
      throw new LocalError('MethodNotInRevision', `Task-augmented tools/call needs revision 2025-11-25 (this session speaks ${revision ?? 'none yet'})`);
    }
    const capabilities = this.session.peerCapabilities as ServerCapabilities | undefined;
    if (capabilities?.tasks?.requests?.['tools']?.['call'] === undefined) {
      throw new LocalError('CapabilityNotNegotiated', 'A task-augmented tools/call needs the server capability "tasks.requests.tools.call", which it did not declare');
    }
    const { ttl, ...requestOptions } = options;
    const result: JsonObject = await this.session.request(toolsCall, { name, arguments: args, task: ttl === undefined ? {} : { ttl } }, requestOptions);
    if (!isTask(result['task'])) throw new LocalError('ProtocolViolation', 'The server answered a task-augmented tools/call without a task (does it support tasks for this tool?)');
    return result as CreateTaskResult;
  }

  async getTask(taskId: string, options?: PromiseRequestOptions): Promise<GetTaskResult> {
    const result = await this.session.request('tasks/get', { taskId }, options);
    if (!isTask(result)) throw malformed('tasks/get');
    return result;
  }

  /**
   * The outcome of a task: what the original request would have answered (for a tool task, its
   * `CallToolResult`; a JSON-RPC error rejects as a `WireError`). The server holds the answer until the task
   * is terminal, so mind the timeout (`timeoutMs`, default from the session's limits).
   */
  taskResult<R extends object = CallToolResult>(taskId: string, options?: PromiseRequestOptions): Promise<R> {
    return this.session.request<R>('tasks/result', { taskId }, options);
  }

  /** The tasks this session owns on the server, fetched page by page as they are consumed. */
  listTasks$(): Observable<Task> {
    return pages$<Task>((cursor) => this.session.request('tasks/list', cursor === undefined ? {} : { cursor }), 'tasks');
  }

  async cancelTask(taskId: string, options?: PromiseRequestOptions): Promise<CancelTaskResult> {
    const result = await this.session.request('tasks/cancel', { taskId }, options);
    if (!isTask(result)) throw malformed('tasks/cancel');
    return result;
  }

  /**
   * The task's statuses as they change: polls `tasks/get` (first at once, then at the task's `pollInterval`)
   * and takes `notifications/tasks/status` pushes too; emits the task each time its status differs from the
   * last one emitted, and completes after a terminal status. Unsubscribing stops the polling.
   */
  taskUpdates$(taskId: string, options: TaskUpdatesOptions = {}): Observable<Task> {
    return new Observable<Task>((subscriber) => {
      const clock = this.session.clock;
      const controller = new AbortController();
      let timer: TimerHandle | undefined;
      let last: TaskStatus | undefined;
      let ended = false;
      const see = (task: Task): void => {
        if (ended || task.taskId !== taskId) return;
        if (task.status !== last) {
          last = task.status;
          subscriber.next(task);
        }
        if (isFinalTaskStatus(task.status)) subscriber.complete();
      };
      const pushes = this.statusPushes$.pipe(filter(isTask)).subscribe(see);
      const poll = (): void => {
        timer = undefined;
        this.session.request('tasks/get', { taskId }, { signal: controller.signal }).then(
          (result) => {
            if (ended) return;
            if (!isTask(result)) return subscriber.error(malformed('tasks/get'));
            see(result);
            if (ended) return;
            const interval = result.pollInterval ?? options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
            timer = clock.setTimeout(poll, Math.max(1, interval));
          },
          (error: unknown) => {
            if (!ended) subscriber.error(error);
          },
        );
      };
      poll();
      return () => {
        ended = true;
        timer?.cancel();
        timer = undefined;
        pushes.unsubscribe();
        controller.abort();
      };
    });
  }
}
