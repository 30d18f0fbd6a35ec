/**
 * The default {@link TaskStore}: a bounded map in memory. Which status moves are legal is the task lifecycle
 * machine's to say (machines/task-lifecycle.ts): the store asks it, and refuses (`changed: false`) what it
 * refuses, so a terminal task never moves again.
 */
import { type Clock, type TimerHandle, systemClock } from '../core/clock.ts';
import { decodeCursor, encodeCursor } from '../core/catalog/pagination.ts';
import type { FinishedTask, NewTask, TaskChange, TaskOutcome, TaskPage, TaskStore } from '../core/catalog/task-store.ts';
import { TaskStoreError } from '../core/catalog/task-store.ts';
import { randomUuid } from '../core/crypto/random.ts';
import type { Task, TaskStatus } from '../core/protocol/tasks.ts';
import { isFinalTaskStatus, taskStatusAfter } from '../machines/task-lifecycle.ts';

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
  /**
   * The name each owner's list has in its cursors: a random one, since an owner key (a principal) may be long or
   * hold the cursor's separator. Dropped with the owner's last task.
   */
  private readonly listNames = new Map<string, string>();
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
    const next = taskStatusAfter(stored.task.status, status === 'input_required' ? { type: 'NEED_INPUT' } : { type: 'WORK' });
    // Refused by the machine (the task is terminal), or nothing to change.
    if (next === undefined || (next === stored.task.status && stored.task.statusMessage === statusMessage)) {
      return { task: stored.task, changed: false };
    }
    return { task: this.move(stored, next, statusMessage), changed: true };
  }

  async setResult(owner: string, taskId: string, status: 'completed' | 'failed', outcome: TaskOutcome, statusMessage?: string): Promise<TaskChange | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return undefined;
    const next = taskStatusAfter(stored.task.status, status === 'completed' ? { type: 'COMPLETE' } : { type: 'FAIL' });
    if (next === undefined) return { task: stored.task, changed: false };
    stored.outcome = outcome;
    return { task: this.move(stored, next, statusMessage), changed: true };
  }

  async cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskChange | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return undefined;
    const next = taskStatusAfter(stored.task.status, { type: 'CANCEL' });
    if (next === undefined) return { task: stored.task, changed: false };
    return { task: this.move(stored, next, statusMessage), changed: true };
  }

  result(owner: string, taskId: string, signal?: AbortSignal): Promise<FinishedTask | undefined> {
    const stored = this.lookup(owner, taskId);
    if (stored === undefined) return Promise.resolve(undefined);
    if (isFinalTaskStatus(stored.task.status)) return Promise.resolve({ task: stored.task, outcome: stored.outcome });
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
      if (ttl === null || !isFinalTaskStatus(stored.task.status) || stored.createdAtMs + ttl > now) continue;
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
    let name = this.listNames.get(owner);
    if (name === undefined) {
      name = `tasks/${randomUuid()}`;
      // Only owners holding tasks keep a name (an empty owner's cursor has nothing to page through).
      if (this.byOwner.has(owner)) this.listNames.set(owner, name);
    }
    return name;
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
    if (isFinalTaskStatus(status)) {
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
    if (own?.size === 0) {
      this.byOwner.delete(stored.owner);
      this.listNames.delete(stored.owner);
    }
    const waiters = stored.waiters;
    stored.waiters = undefined;
    if (waiters !== undefined) for (const wake of waiters) wake();
  }
}
