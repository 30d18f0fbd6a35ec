/**
 * Tasks: polling, fetching, listing and cancelling long-running work. In the legacy era (2025-11-25) either
 * side may be the receiver of a task-augmented request; in the modern era they belong to the tasks extension
 * (`io.modelcontextprotocol/tasks`, SEP-2663), served only by servers that enable it, which adds `tasks/update`
 * and has no `tasks/result` or `tasks/list`.
 */
import type { PaginatedParams } from '../pagination.ts';
import { type DetailedTask, TASKS_EXTENSION, type UpdateTaskParams } from '../modern-tasks.ts';
import type {
  CancelTaskParams,
  CancelTaskResult,
  GetTaskParams,
  GetTaskPayloadParams,
  GetTaskResult,
  ListTasksResult,
  TaskStatusNotificationParams,
} from '../tasks.ts';
import { capability, type MethodDeclaration, notification, request } from './declaration.ts';

const extension = { sender: 'client', extension: TASKS_EXTENSION, nameHeader: 'taskId' } as const;

export const tasksMethods: readonly MethodDeclaration[] = [
  request<GetTaskParams, GetTaskResult | DetailedTask>('tasks/get', {
    legacy: { sender: 'both', since: '2025-11-25', requires: capability('tasks') },
    modern: extension,
  }),
  // Its result is the original request's result (or error).
  request<GetTaskPayloadParams>('tasks/result', { legacy: { sender: 'both', since: '2025-11-25', requires: capability('tasks') } }),
  request<PaginatedParams | undefined, ListTasksResult>('tasks/list', { legacy: { sender: 'both', since: '2025-11-25', requires: capability('tasks.list') } }),
  request<CancelTaskParams, CancelTaskResult>('tasks/cancel', {
    legacy: { sender: 'both', since: '2025-11-25', requires: capability('tasks.cancel') },
    modern: extension,
  }),
  request<UpdateTaskParams>('tasks/update', { modern: extension }),
  // Sent by the receiver of task-augmented requests, which must have declared `tasks`.
  notification<TaskStatusNotificationParams>('notifications/tasks/status', {
    legacy: { sender: 'both', since: '2025-11-25', requires: capability('tasks') },
  }),
  // The extension's status notification: a task as `tasks/get` gives it, on a listen that named the task.
  notification<DetailedTask>('notifications/tasks', { modern: { sender: 'server', extension: TASKS_EXTENSION } }),
];

/** The 2025-11-25 task methods: a modern server must never answer with their legacy handlers. */
export const LEGACY_TASK_METHODS: readonly string[] = tasksMethods.filter((d) => d.legacy !== undefined && d.kind === 'request').map((d) => d.method);
