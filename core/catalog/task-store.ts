/**
 * Where a task receiver keeps its tasks (2025-11-25): a pluggable {@link TaskStore}, and the default
 * {@link InMemoryTaskStore}.
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
 * refused (`changed: false`), which is what keeps a cancelled task cancelled when its work ends anyway.
 */
import { randomUuid } from '../crypto/random.ts';
import { type Clock, type TimerHandle, systemClock } from '../clock.ts';
import type { JsonObject, JsonRpcErrorObject } from '../jsonrpc.ts';
import { type Task, type TaskStatus, isTerminalTaskStatus } from '../protocol/tasks.ts';
import { decodeCursor, encodeCursor } from './pagination.ts';

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

export interface InMemoryTaskStoreOptions {
  /** Timestamps and expiry timers (default: the system clock). */
  readonly clock?: Clock;
  /** Tasks one owner may hold at once, terminal ones included until they expire (default 100). */
  readonly maxTasksPerOwner?: number;
  /** Tasks the whole store may hold (default 10 000). */
  readonly maxTasks?: number;
  /** Tasks per `tasks/list` page (default 100). */
  readonly pageSize?: number;
}

interface StoredTask {
  task: Task;
  readonly owner: string;
  readonly seq: number;
  readonly createdAtMs: number;
  outcome: TaskOutcome | undefined;
  expiry: TimerHandle | undefined;
  waiters: Set<() => void> | undefined;
}

/**
 * The default store: a bounded map in memory. A terminal task is deleted when its ttl (counted from creation,
 * as the spec defines it) has elapsed, by a timer on the injected clock; a task still running past its ttl is
 * kept until it ends (its work still runs), then deleted at once. `close()` cancels every timer.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly clock: Clock;
  private readonly maxPerOwner: number;
  private readonly maxTasks: number;
  private readonly pageSize: number;
  private readonly tasks = new Map<string, StoredTask>();
  /** Each owner's tasks in creation order (the order `list` pages through). */
  private readonly byOwner = new Map<string, Map<string, StoredTask>>();
  private nextSeq = 1;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.maxPerOwner = options.maxTasksPerOwner ?? 100;
    this.maxTasks = options.maxTasks ?? 10_000;
    this.pageSize = Math.max(1, options.pageSize ?? 100);
  }

  /** Tasks held now, across owners. */
  get size(): number {
    return this.tasks.size;
  }

  async create(owner: string, init: NewTask): Promise<Task> {
    const own = this.byOwner.get(owner);
    if ((own?.size ?? 0) >= this.maxPerOwner) {
      throw new TaskStoreError('TaskLimit', `Too many tasks: a requestor may hold at most ${this.maxPerOwner} (finished ones count until they expire)`);
    }
    if (this.tasks.size >= this.maxTasks) throw new TaskStoreError('TaskLimit', `Too many tasks: this server holds its maximum of ${this.maxTasks}`);
    let taskId = randomUuid();
    while (this.tasks.has(taskId)) taskId = randomUuid();
    const now = this.clock.now();
    const stamp = new Date(now).toISOString();
    const task: Task = {
      taskId,
      status: 'working',
      createdAt: stamp,
      lastUpdatedAt: stamp,
      ttl: init.ttl,
      ...(init.pollInterval === undefined ? {} : { pollInterval: init.pollInterval }),
    };
    const stored: StoredTask = { task, owner, seq: this.nextSeq++, createdAtMs: now, outcome: undefined, expiry: undefined, waiters: undefined };
    this.tasks.set(taskId, stored);
    let map = own;
    if (map === undefined) this.byOwner.set(owner, (map = new Map()));
    map.set(taskId, stored);
    return task;
  }

  async get(owner: string, taskId: string): Promise<Task | undefined> {
    return this.lookup(owner, taskId)?.task;
  }

  async updateStatus(owner: string, taskId: string, status: 'working' | 'input_required', statusMessage?: string): Promise<TaskChange | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return undefined;
    if (isTerminalTaskStatus(stored.task.status) || (stored.task.status === status && stored.task.statusMessage === statusMessage)) {
      return { task: stored.task, changed: false };
    }
    return { task: this.move(stored, status, statusMessage), changed: true };
  }

  async setResult(owner: string, taskId: string, status: 'completed' | 'failed', outcome: TaskOutcome, statusMessage?: string): Promise<TaskChange | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return undefined;
    if (isTerminalTaskStatus(stored.task.status)) return { task: stored.task, changed: false };
    stored.outcome = outcome;
    return { task: this.move(stored, status, statusMessage), changed: true };
  }

  async cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskChange | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return undefined;
    if (isTerminalTaskStatus(stored.task.status)) return { task: stored.task, changed: false };
    return { task: this.move(stored, 'cancelled', statusMessage), changed: true };
  }

  result(owner: string, taskId: string, signal?: AbortSignal): Promise<FinishedTask | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return Promise.resolve(undefined);
    if (isTerminalTaskStatus(stored.task.status)) return Promise.resolve({ task: stored.task, outcome: stored.outcome });
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<FinishedTask | undefined>((resolve, reject) => {
      const waiters = (stored.waiters ??= new Set());
      const onAbort = (): void => {
        waiters.delete(wake);
        reject(signal?.reason as Error);
      };
      // Woken when the task turns terminal, or when it is deleted (then it is gone: undefined).
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.tasks.get(taskId) === stored ? { task: stored.task, outcome: stored.outcome } : undefined);
      };
      waiters.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async list(owner: string, cursor?: string): Promise<TaskPage> {
    let after = 0;
    if (cursor !== undefined) {
      const position = decodeCursor(cursor, this.listName(owner));
      if (position === undefined) throw new TaskStoreError('InvalidCursor', 'the cursor is not one this server issued for your task list');
      after = position.offset;
    }
    const tasks: Task[] = [];
    let last = 0;
    let more = false;
    for (const stored of this.byOwner.get(owner)?.values() ?? []) {
      if (stored.seq <= after) continue;
      if (tasks.length === this.pageSize) {
        more = true;
        break;
      }
      tasks.push(stored.task);
      last = stored.seq;
    }
    // The cursor names the last task given, not an offset: tasks expiring between pages shift nothing.
    return more ? { tasks, nextCursor: encodeCursor({ list: this.listName(owner), revision: 0, offset: last }) } : { tasks };
  }

  async deleteExpired(): Promise<number> {
    const now = this.clock.now();
    let count = 0;
    for (const stored of [...this.tasks.values()]) {
      const ttl = stored.task.ttl;
      if (ttl === null || !isTerminalTaskStatus(stored.task.status) || stored.createdAtMs + ttl > now) continue;
      this.remove(stored);
      count++;
    }
    return count;
  }

  async deleteOwner(owner: string): Promise<number> {
    const own = this.byOwner.get(owner);
    if (own === undefined) return 0;
    const all = [...own.values()];
    for (const stored of all) this.remove(stored);
    return all.length;
  }

  /** Deletes every task and cancels every timer (waiters get `undefined`). */
  close(): void {
    for (const stored of [...this.tasks.values()]) this.remove(stored);
  }

  private listName(owner: string): string {
    return `tasks/${owner}`;
  }

  private lookup(owner: string, taskId: string): StoredTask | undefined {
    const stored = this.tasks.get(taskId);
    return stored !== undefined && stored.owner === owner ? stored : undefined;
  }

  private move(stored: StoredTask, status: TaskStatus, statusMessage: string | undefined): Task {
    const { statusMessage: _previous, ...rest } = stored.task;
    stored.task = {
      ...rest,
      status,
      lastUpdatedAt: new Date(this.clock.now()).toISOString(),
      ...(statusMessage === undefined ? {} : { statusMessage }),
    };
    if (isTerminalTaskStatus(status)) {
      this.scheduleExpiry(stored);
      const waiters = stored.waiters;
      stored.waiters = undefined;
      if (waiters !== undefined) for (const wake of waiters) wake();
    }
    return stored.task;
  }

  private scheduleExpiry(stored: StoredTask): void {
    const ttl = stored.task.ttl;
    if (ttl === null) return;
    const delay = Math.max(0, stored.createdAtMs + ttl - this.clock.now());
    stored.expiry = this.clock.setTimeout(() => {
      stored.expiry = undefined;
      if (this.tasks.get(stored.task.taskId) === stored) this.remove(stored);
    }, delay);
  }

  private remove(stored: StoredTask): void {
    const taskId = stored.task.taskId;
    stored.expiry?.cancel();
    stored.expiry = undefined;
    this.tasks.delete(taskId);
    const own = this.byOwner.get(stored.owner);
    own?.delete(taskId);
    if (own?.size === 0) this.byOwner.delete(stored.owner);
    const waiters = stored.waiters;
    stored.waiters = undefined;
    if (waiters !== undefined) for (const wake of waiters) wake();
  }
}
