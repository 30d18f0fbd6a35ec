/**
 * The tasks extension of the modern era (`io.modelcontextprotocol/tasks`, SEP-2663): wire shapes and the
 * negotiation rule. Pure types and functions only.
 *
 * A server that supports the extension declares `capabilities.extensions["io.modelcontextprotocol/tasks"]`; a
 * client opts in per request by declaring the same key in the `extensions` of its request's client
 * capabilities. The server alone decides whether a `tools/call` becomes a task (never for a request that did
 * not opt in); the client then polls `tasks/get`, answers input with `tasks/update` and may `tasks/cancel`.
 * There is no `tasks/result` and no `tasks/list` in this era, durations are named `...Ms`, and a task's
 * outcome is inlined in `tasks/get` once it is terminal.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { ClientCapabilities } from './capabilities.ts';
import { isJsonObject } from './guards.ts';
import type { InputRequest } from './modern-shapes.ts';
import type { TaskStatus } from './tasks.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a request lacking the extension is told it needs (`data.requiredCapabilities` of -32021). */
export const TASKS_REQUIRED_CAPABILITIES: ClientCapabilities = Object.freeze({ extensions: Object.freeze({ [TASKS_EXTENSION]: Object.freeze({}) }) });

/** True when the request's client capabilities declare the tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities | undefined): boolean {
  const extensions: unknown = capabilities?.extensions;
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION]);
}

/** The task fields every task message carries, flat (there is no nested `task` object in this era). */
export interface ModernTask {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601. */
  readonly lastUpdatedAt: string;
  /** How long the task is kept from its creation, in milliseconds; `null` means unlimited. */
  readonly ttlMs: number | null;
  /** Suggested polling interval, in milliseconds. */
  readonly pollIntervalMs?: number;
}

/** The answer to a request the server chose to run as a task. */
export interface CreateTaskResult extends ModernTask {
  readonly resultType: 'task';
  readonly _meta?: JsonObject;
}

/** The JSON-RPC error a failed task ended with. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * `tasks/get`: the task, plus what its status implies: the request's `result` once `completed` (a tool that
 * reported an error is `completed` with `result.isError`), its `error` once `failed` (a protocol error), and
 * the pending `inputRequests` while `input_required`.
 */
export interface DetailedTask extends ModernTask {
  readonly resultType: 'complete';
  readonly result?: JsonObject;
  readonly error?: TaskError;
  readonly inputRequests?: { readonly [key: string]: InputRequest };
  readonly _meta?: JsonObject;
}

/** Params of `tasks/update`: answers to some or all of the task's pending input requests, by key. */
export interface UpdateTaskParams {
  readonly taskId: string;
  readonly inputResponses: { readonly [key: string]: JsonObject };
  readonly _meta?: JsonObject;
}
