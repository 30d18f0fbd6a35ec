/**
 * Where a task receiver keeps its tasks (2025-11-25 tasks and the 2026-07-28 tasks extension): the pluggable
 * {@link TaskStore} contract. The default store, `InMemoryTaskStore`, is in server/in-memory-task-store.ts.
 *
 * Ownership. Every task belongs to an owner key, an opaque string the caller chooses; a task is visible only
 * to calls made with the key it was created under: another owner gets `undefined` exactly as for an unknown
 * id, so it cannot even learn that the id exists. The server uses one random key per session (its
 * "authorization context"): tasks are reachable only from the session that created them, and are dropped
 * when it closes ({@link TaskStore.deleteOwner}). Task ids are random UUIDs (122 random bits from the
 * platform's CSPRNG), so they cannot be guessed either.
 *
 * Policy (how long a task is kept, how often to poll) is the caller's: {@link resolveTaskTtl} computes it,
 * and `create` stores what it is given. Terminal statuses are final: every transition out of one is
 * refused (`changed: false`), which is what keeps a cancelled task cancelled when its work ends anyway (the
 * task lifecycle machine, machines/task-lifecycle.ts, says which moves are legal).
 */
import type { JsonObject, JsonRpcErrorObject } from '../jsonrpc.ts';
import type { InputRequest } from '../protocol/modern-shapes.ts';
import type { Task } from '../protocol/tasks.ts';

/** How the work behind a task ended: the result the request would have had, or the JSON-RPC error. */
export type TaskOutcome =
  | { readonly type: 'result'; readonly result: JsonObject }
  | { readonly type: 'error'; readonly error: JsonRpcErrorObject };

/** A store call that may move a task: the task as it is now, and whether this call moved it. */
export interface TaskChange {
  readonly task: Task;
  readonly changed: boolean;
}

/** A terminal task and its outcome (none for a cancelled task: its work never produced one). */
export interface FinishedTask {
  readonly task: Task;
  readonly outcome: TaskOutcome | undefined;
}

export interface TaskPage {
  readonly tasks: readonly Task[];
  readonly nextCursor?: string;
}

export interface NewTask {
  /** Retention from creation in milliseconds, already decided by the caller's policy; `null` is unlimited. */
  readonly ttl: number | null;
  readonly pollInterval?: number;
}

export type TaskStoreErrorCode = 'TaskLimit' | 'InvalidCursor';

/** The two refusals a store reports: it is full, or a list cursor is not one it issued for this owner. */
export class TaskStoreError extends Error {
  readonly code: TaskStoreErrorCode;

  constructor(code: TaskStoreErrorCode, message: string) {
    super(message);
    this.name = 'TaskStoreError';
    this.code = code;
  }
}

/**
 * The storage behind `tasks/*`. Every call names the owner; a task of another owner is treated as unknown
 * (`undefined`). Implementations backed by a database or a cache implement the same contract; calls are
 * asynchronous for them.
 */
export interface TaskStore {
  /** Creates a task in `working`. Throws a {@link TaskStoreError} `TaskLimit` when the store is full. */
  create(owner: string, task: NewTask): Promise<Task>;
  get(owner: string, taskId: string): Promise<Task | undefined>;
  /** Moves a non-terminal task between `working` and `input_required` (a terminal one is left as it is). */
  updateStatus(owner: string, taskId: string, status: 'working' | 'input_required', statusMessage?: string): Promise<TaskChange | undefined>;
  /** Finishes a non-terminal task with its outcome (a task already terminal, e.g. cancelled, is left as it is). */
  setResult(owner: string, taskId: string, status: 'completed' | 'failed', outcome: TaskOutcome, statusMessage?: string): Promise<TaskChange | undefined>;
  /**
   * Waits until the task is terminal, then gives it with its outcome. `undefined` when it is unknown, or when
   * it is deleted while waited for. Rejects with the signal's reason when `signal` aborts first.
   */
  result(owner: string, taskId: string, signal?: AbortSignal): Promise<FinishedTask | undefined>;
  /** One page of the owner's tasks, oldest first. Throws a {@link TaskStoreError} `InvalidCursor`. */
  list(owner: string, cursor?: string): Promise<TaskPage>;
  /** Moves a non-terminal task to `cancelled`; a terminal one is left as it is (`changed: false`). */
  cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskChange | undefined>;
  /** Deletes the terminal tasks whose ttl has elapsed; returns how many. */
  deleteExpired(): Promise<number>;
  /** Deletes every task of an owner (its session closed); returns how many. */
  deleteOwner(owner: string): Promise<number>;
  /**
   * Present on a store several processes share (e.g. `createJetStreamTaskStore` of rxmcp/nats): how a process
   * that does not run a task's handler reaches the one that does. Absent: every task runs in this process.
   */
  readonly relay?: TaskRelay;
}

/** What the process running a task says about it: whether it runs it here, and the input it waits for. */
export interface RunnerView {
  readonly running: boolean;
  readonly inputRequests?: { readonly [key: string]: InputRequest };
}

/**
 * What a process does for the tasks it runs when another process asks (the tasks feature gives it to
 * {@link TaskRelay.serve}). Each call checks that the task is the owner's and runs here; `running: false` /
 * `false` when it does not (its handler ended, or it never ran here).
 */
export interface TaskRunnerCalls {
  inputRequests(owner: string, taskId: string): RunnerView;
  /** Input for the task, as `tasks/update` gives it (throws as `tasks/update` would, e.g. -32602). */
  supply(owner: string, taskId: string, responses: JsonObject): Promise<boolean>;
  /** Cancels the task as `tasks/cancel` does here: in the store, then its handler's signal. */
  cancel(owner: string, taskId: string): Promise<boolean>;
}

/**
 * The answer of the process that runs a task: `answered`, or `failed` with the error it raised; `gone` when
 * that process is gone (NATS or the store says nobody serves it any more, re-checked); `unreachable` when it
 * did not answer in time (it may be alive, merely slow: nothing is concluded from that).
 */
export type RelayAnswer<T> =
  | { readonly type: 'answered'; readonly value: T }
  | { readonly type: 'failed'; readonly error: JsonRpcErrorObject }
  | { readonly type: 'gone' }
  | { readonly type: 'unreachable'; readonly message: string };

/**
 * Calls forwarded to the process that runs a task's handler (named by the task's record in the shared store).
 * When that process is this one, the call is made here, without a round trip.
 */
export interface TaskRelay {
  /** Answers, with `local`, the calls other processes forward here; returns how to stop. */
  serve(local: TaskRunnerCalls): () => void;
  inputRequests(owner: string, taskId: string): Promise<RelayAnswer<RunnerView>>;
  supply(owner: string, taskId: string, responses: JsonObject): Promise<RelayAnswer<boolean>>;
  cancel(owner: string, taskId: string): Promise<RelayAnswer<boolean>>;
  /** How the notices of tasks reach the listens of the other processes (absent: only this process's listens). */
  readonly notices?: TaskNoticeFeed;
}

/**
 * A notification about one task, as the listens that watch the task hear it: its status (`notifications/tasks`,
 * the task as `tasks/get` gives it), or a progress or log message of its handler. It names the task's owner key so
 * that whoever delivers it can check, at send time, that the listener is that owner; it never holds a token.
 */
export interface TaskNotice {
  readonly owner: string;
  readonly taskId: string;
  readonly method: string;
  readonly params: JsonObject;
}

/**
 * Task notices across the processes sharing a store. Each notice is published once, by the process where it
 * happened; a process hears those of the tasks its listens follow ({@link TaskNoticeFeed.follow}) and hands them
 * to its members, which tell them to their listens exactly as their own.
 */
export interface TaskNoticeFeed {
  /** Joins the feed: `apply` hears the notices of followed tasks published by every other member, here or elsewhere. */
  join(apply: (notice: TaskNotice) => void): TaskNoticeMember;
  /** Hears the notices of `taskId` until the returned function is called (counted: one interest per task and process). */
  follow(taskId: string): () => void;
}

/** One member's side of a {@link TaskNoticeFeed}. */
export interface TaskNoticeMember {
  /** Offers a notice of this member's to every other member that follows its task. */
  publish(notice: TaskNotice): void;
  /** Stops hearing and publishing. */
  leave(): void;
}

export interface TaskTtlPolicy {
  /** Retention when the request names none; `null` keeps such tasks until their owner goes (default 1 h). */
  readonly defaultTtlMs?: number | null;
  /** The longest retention a request may obtain; longer requests are capped (default 24 h). */
  readonly maxTtlMs?: number;
}

export const DEFAULT_TASK_TTL_MS = 60 * 60_000;
export const MAX_TASK_TTL_MS = 24 * 60 * 60_000;

/**
 * The retention a task gets: the requested ttl capped at `maxTtlMs`, or the default when none was requested.
 * Unlimited (`null`) happens only when the server configured `defaultTtlMs: null` (a request cannot ask for it:
 * `TaskMetadata.ttl` is an integer).
 */
export function resolveTaskTtl(requested: number | undefined, policy: TaskTtlPolicy = {}): number | null {
  const max = policy.maxTtlMs ?? MAX_TASK_TTL_MS;
  if (requested === undefined) {
    const fallback = policy.defaultTtlMs === undefined ? DEFAULT_TASK_TTL_MS : policy.defaultTtlMs;
    return fallback === null ? null : Math.min(fallback, max);
  }
  return Math.min(Math.max(0, Math.floor(requested)), max);
}
