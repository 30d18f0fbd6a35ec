/**
 * A {@link TaskStore} in a NATS JetStream KV bucket, shared by every process of a queue group: a modern-era
 * `tasks/get` may reach any of them, and each finds the task there. Give the same store options to every
 * process (`createServer({ modern: { tasks: { store } } })`).
 *
 * Layout: one key per task, `t.<owner hash>.<task id>` (the owner hash is the first 32 hex digits of the
 * owner key's SHA-256, so a principal never reaches a subject or key as it is, and one owner's tasks are a
 * key range). A record holds the task, its owner key (checked on every read: another owner gets `undefined`),
 * its creation time, its outcome once terminal, and its runner: the id of the process whose handler works on
 * it. Every status move is a compare-and-set on the key's revision, retried against the new value when
 * another writer came first; the task lifecycle machine refuses every move out of a terminal status, so of
 * two processes finishing a task at once exactly one wins. On a clustered JetStream a move that was accepted is
 * confirmed as session claims are (leader-read.ts): two writes on one revision can both be stored there, so
 * the mover waits a moment, then reads the record from the stream's leader; each record names its last few
 * writes, and a move whose write is not among them was overwritten by one that never saw it: it lost, and is
 * tried again on the value that won (a terminal task then refuses it), as a move that lost outright is.
 *
 * Retention: a terminal task whose ttl (from creation) has elapsed is gone for every read and deleted lazily
 * (and by {@link JetStreamTaskStore.deleteExpired}); the bucket's own `ttlMs` (default 25 h, above the longest
 * task ttl the server grants by default) drops any record not written for that long, whatever its status.
 *
 * Runners: the store's relay (task-relay.ts) serves this process's tasks on `<subjectPrefix>.<runner id>` and
 * forwards calls for other processes' tasks to theirs. Permissions: a server process needs its bucket's KV API
 * subjects (consumers included: listing keys creates one) and publish/subscribe on `<subjectPrefix>.*`; clients
 * need none of them (a forwarded call names the owner it acts for: only servers may send one).
 *
 * @example
 * ```ts
 * const connection = await connect({ servers: 'nats://127.0.0.1:4222' });
 * const store = await createJetStreamTaskStore({ connection });
 * const server = createServer({ name: 'worker', version: '1.0.0', eras: 'modern', modern: { tasks: { store } } });
 * const serving = await serveNats(server, { connection, name: 'worker' });
 * ```
 */
import { createHash, randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { type JetStreamManager, StorageType, jetstreamManager } from '@nats-io/jetstream';
import { type KV, type KvEntry, Kvm } from '@nats-io/kv';
import type { FinishedTask, NewTask, TaskChange, TaskOutcome, TaskPage, TaskRelay, TaskStore } from '../../core/catalog/task-store.ts';
import { TaskStoreError } from '../../core/catalog/task-store.ts';
import { type Clock, systemClock } from '../../core/clock.ts';
import { randomUuid } from '../../core/crypto/random.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import { TASK_STATUSES, type Task, type TaskStatus } from '../../core/protocol/tasks.ts';
import { isFinalTaskStatus, taskStatusAfter } from '../../machines/task-lifecycle.ts';
import { DEFAULT_ELECTION_RETRY_MS, retryWhileLeaderless } from './jetstream-retry.ts';
import { apiErrorCode } from './jetstream-errors.ts';
import { WRITE_SETTLE_MS, isClustered, lastFromLeader } from './leader-read.ts';
import { NatsTaskRelay } from './task-relay.ts';

export interface JetStreamTaskStoreOptions {
  /** A connected `nats` client; the store never closes it. */
  readonly connection: NatsConnection;
  /** The KV bucket (default `mcp_tasks`); every process sharing tasks names the same one. */
  readonly bucket?: string;
  /** Copies in a JetStream cluster (default 1). */
  readonly replicas?: number;
  /** Where JetStream keeps the records (default `file`). */
  readonly storage?: 'file' | 'memory';
  /** Records not written for this long are dropped by JetStream (default 25 h). */
  readonly ttlMs?: number;
  /** Tasks one owner may hold at once, terminal ones included until they expire (default 100). */
  readonly maxTasksPerOwner?: number;
  /** Tasks per `tasks/list` page (default 100). */
  readonly pageSize?: number;
  /** Runners' subjects are `<subjectPrefix>.<runner id>` (default `mcp.tasks.<bucket>`). */
  readonly subjectPrefix?: string;
  /** How long a call forwarded to the process running a task waits for its answer (default 5 s). */
  readonly forwardTimeoutMs?: number;
  /** The pause before a runner with no responders is asked again, and then called gone (default 1 s). */
  readonly recheckMs?: number;
  /** Timestamps, expiry and re-check pauses (default: the system clock). */
  readonly clock?: Clock;
  /**
   * How long the bucket's creation keeps trying while JetStream has no leader for it (a cluster electing one
   * after a node died; default: as for every JetStream call of the binding).
   */
  readonly electionRetryMs?: number;
}

interface TaskRecord {
  readonly task: Task;
  readonly owner: string;
  /** The process whose handler works on the task. */
  readonly runner: string;
  readonly createdAtMs: number;
  readonly outcome?: TaskOutcome;
  /** The ids of the last few writes that made this record, the latest last (a move's confirmation). */
  readonly writes?: readonly string[];
}

interface Found {
  readonly record: TaskRecord;
  readonly revision: number;
}

/** Task ids that can be keys as they are (rxmcp's are UUIDs); anything else names no task. */
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Attempts at a compare-and-set that lost to a concurrent write of the same record. */
const CAS_ATTEMPTS = 10;
/** Records `deleteExpired` looks at in one sweep. */
const MAX_SWEEP = 100_000;
/** Tasks of one owner `list` reads at most (more than the per-owner limit ever lets in). */
const MAX_LISTED = 10_000;
/** Runners remembered by task key (a task's runner never changes), the oldest forgotten first. */
const MAX_REMEMBERED_RUNNERS = 10_000;
/** Write ids a record keeps: far more than the moves that can follow one within its confirmation's settle. */
const KEPT_WRITES = 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function ownerHash(owner: string): string {
  return createHash('sha256').update(owner).digest('hex').slice(0, 32);
}

function isTask(value: unknown): value is Task {
  if (!isJsonObject(value)) return false;
  return typeof value['taskId'] === 'string' && (TASK_STATUSES as readonly unknown[]).includes(value['status'])
    && typeof value['createdAt'] === 'string' && typeof value['lastUpdatedAt'] === 'string' && (value['ttl'] === null || typeof value['ttl'] === 'number');
}

function parse(entry: KvEntry): TaskRecord | undefined {
  return entry.operation === 'PUT' ? parseValue(entry.value) : undefined;
}

function parseValue(bytes: Uint8Array): TaskRecord | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    if (!isJsonObject(value) || !isTask(value['task'])) return undefined;
    if (typeof value['owner'] !== 'string' || typeof value['runner'] !== 'string' || typeof value['createdAtMs'] !== 'number') return undefined;
    const writes = value['writes'];
    if (writes !== undefined && !(Array.isArray(writes) && writes.every((id) => typeof id === 'string'))) return undefined;
    return value as unknown as TaskRecord;
  } catch {
    return undefined;
  }
}

function encode(record: TaskRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

/** A list cursor: the owner's hash and the last task given (creation time, id); tasks expiring between pages shift nothing. */
function encodeListCursor(hash: string, record: TaskRecord): string {
  return Buffer.from(JSON.stringify([hash, record.createdAtMs, record.task.taskId])).toString('base64url');
}

function decodeListCursor(cursor: string, hash: string): { readonly at: number; readonly id: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value[0] !== hash || typeof value[1] !== 'number' || typeof value[2] !== 'string') return undefined;
    return { at: value[1], id: value[2] };
  } catch {
    return undefined;
  }
}

function byCreation(a: TaskRecord, b: TaskRecord): number {
  return a.createdAtMs - b.createdAtMs || (a.task.taskId < b.task.taskId ? -1 : a.task.taskId > b.task.taskId ? 1 : 0);
}

export class JetStreamTaskStore implements TaskStore {
  readonly relay: TaskRelay;
  /** This process's id as a runner of tasks (its relay subject). */
  readonly runnerId: string;
  private readonly clock: Clock;
  private readonly maxPerOwner: number;
  private readonly pageSize: number;
  private readonly runners: NatsTaskRelay;
  /** key -> runner id, as read: a poll of another process's task then costs one KV read, not two. */
  private readonly knownRunners = new Map<string, string>();

  private constructor(
    private readonly kv: KV,
    options: JetStreamTaskStoreOptions,
    private readonly bucket: string,
    /** Set on a clustered JetStream, where accepted moves are confirmed (see the file's comment). */
    private readonly confirmations: { readonly jsm: JetStreamManager; readonly electionRetryMs: number } | undefined,
  ) {
    this.clock = options.clock ?? systemClock;
    this.maxPerOwner = options.maxTasksPerOwner ?? 100;
    this.pageSize = Math.max(1, options.pageSize ?? 100);
    this.runnerId = randomBytes(8).toString('hex');
    this.runners = new NatsTaskRelay({
      connection: options.connection,
      prefix: options.subjectPrefix ?? `mcp.tasks.${bucket}`,
      runnerId: this.runnerId,
      runnerOf: async (owner, taskId) => (TASK_ID.test(taskId) ? this.knownRunners.get(this.key(owner, taskId)) : undefined) ?? (await this.read(owner, taskId))?.record.runner,
      timeoutMs: options.forwardTimeoutMs ?? 5000,
      recheckMs: options.recheckMs ?? 1000,
      clock: this.clock,
    });
    this.relay = this.runners;
  }

  static async open(options: JetStreamTaskStoreOptions): Promise<JetStreamTaskStore> {
    const bucket = options.bucket ?? 'mcp_tasks';
    const config = {
      history: 1,
      ttl: options.ttlMs ?? 25 * 3_600_000,
      replicas: options.replicas ?? 1,
      storage: options.storage === 'memory' ? StorageType.Memory : StorageType.File,
    };
    // Creating the bucket again with the same configuration is harmless, so even a timeout is tried again.
    const kv = await retryWhileLeaderless(() => new Kvm(options.connection).create(bucket, config), {
      ...(options.electionRetryMs === undefined ? {} : { budgetMs: options.electionRetryMs }),
      timeoutIsSafe: true,
      opening: true,
    });
    // The account check was made by the bucket's opening.
    const jsm = await jetstreamManager(options.connection, { checkAPI: false });
    const confirmations = (await isClustered(jsm, bucket)) ? { jsm, electionRetryMs: options.electionRetryMs ?? DEFAULT_ELECTION_RETRY_MS } : undefined;
    return new JetStreamTaskStore(kv, options, bucket, confirmations);
  }

  /** Stops serving this process's tasks to the others (they will find its tasks' runner gone). */
  close(): void {
    this.runners.close();
  }

  async create(owner: string, init: NewTask): Promise<Task> {
    const hash = ownerHash(owner);
    if ((await this.keys(`t.${hash}.>`, this.maxPerOwner)).length >= this.maxPerOwner) {
      throw new TaskStoreError('TaskLimit', `Too many tasks: a requestor may hold at most ${this.maxPerOwner} (finished ones count until they expire)`);
    }
    const now = this.clock.now();
    const stamp = new Date(now).toISOString();
    const task: Task = {
      taskId: randomUuid(),
      status: 'working',
      createdAt: stamp,
      lastUpdatedAt: stamp,
      ttl: init.ttl,
      ...(init.pollInterval === undefined ? {} : { pollInterval: init.pollInterval }),
    };
    // `create` fails if the key exists: a UUID collision would never overwrite another task.
    await this.kv.create(`t.${hash}.${task.taskId}`, encode({ task, owner, runner: this.runnerId, createdAtMs: now }));
    return task;
  }

  async get(owner: string, taskId: string): Promise<Task | undefined> {
    return (await this.read(owner, taskId))?.record.task;
  }

  updateStatus(owner: string, taskId: string, status: 'working' | 'input_required', statusMessage?: string): Promise<TaskChange | undefined> {
    return this.move(owner, taskId, (record) => {
      const next = taskStatusAfter(record.task.status, status === 'input_required' ? { type: 'NEED_INPUT' } : { type: 'WORK' });
      if (next === undefined || (next === record.task.status && record.task.statusMessage === statusMessage)) return undefined;
      return this.moved(record, next, statusMessage);
    });
  }

  setResult(owner: string, taskId: string, status: 'completed' | 'failed', outcome: TaskOutcome, statusMessage?: string): Promise<TaskChange | undefined> {
    return this.move(owner, taskId, (record) => {
      const next = taskStatusAfter(record.task.status, status === 'completed' ? { type: 'COMPLETE' } : { type: 'FAIL' });
      return next === undefined ? undefined : { ...this.moved(record, next, statusMessage), outcome };
    });
  }

  cancel(owner: string, taskId: string, statusMessage?: string): Promise<TaskChange | undefined> {
    return this.move(owner, taskId, (record) => {
      const next = taskStatusAfter(record.task.status, { type: 'CANCEL' });
      return next === undefined ? undefined : this.moved(record, next, statusMessage);
    });
  }

  async result(owner: string, taskId: string, signal?: AbortSignal): Promise<FinishedTask | undefined> {
    const found = await this.read(owner, taskId);
    if (found === undefined) return undefined;
    if (isFinalTaskStatus(found.record.task.status)) return { task: found.record.task, outcome: found.record.outcome };
    if (signal?.aborted === true) throw signal.reason as Error;
    // Followed by a KV watch of the one key until it is terminal or gone (or the signal aborts).
    const watch = await this.kv.watch({ key: this.key(owner, taskId) });
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      watch.stop();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const entry of watch) {
        const record = parse(entry);
        if (record === undefined || record.owner !== owner) return undefined;
        if (isFinalTaskStatus(record.task.status)) return { task: record.task, outcome: record.outcome };
      }
      if (aborted) throw signal?.reason as Error;
      return undefined;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      watch.stop();
    }
  }

  async list(owner: string, cursor?: string): Promise<TaskPage> {
    const hash = ownerHash(owner);
    let after: { readonly at: number; readonly id: string } | undefined;
    if (cursor !== undefined) {
      after = decodeListCursor(cursor, hash);
      if (after === undefined) throw new TaskStoreError('InvalidCursor', 'the cursor is not one this server issued for your task list');
    }
    const keys = await this.keys(`t.${hash}.>`, MAX_LISTED);
    const found = await Promise.all(keys.map((key) => this.readKey(key, owner)));
    const records = found.filter((entry): entry is Found => entry !== undefined).map((entry) => entry.record).sort(byCreation);
    const start = after === undefined ? 0 : records.findIndex((record) => record.createdAtMs > after.at || (record.createdAtMs === after.at && record.task.taskId > after.id));
    const rest = start < 0 ? [] : records.slice(start);
    const page = rest.slice(0, this.pageSize);
    const last = page[page.length - 1];
    return rest.length > this.pageSize && last !== undefined ? { tasks: page.map((record) => record.task), nextCursor: encodeListCursor(hash, last) } : { tasks: page.map((record) => record.task) };
  }

  async deleteExpired(): Promise<number> {
    let count = 0;
    for (const key of await this.keys('t.>', MAX_SWEEP)) {
      const entry = await this.kv.get(key);
      const record = entry === null ? undefined : parse(entry);
      if (entry === null || record === undefined || !this.expired(record)) continue;
      if (await this.deleteAt(key, entry.revision)) count++;
    }
    return count;
  }

  async deleteOwner(owner: string): Promise<number> {
    let count = 0;
    for (const key of await this.keys(`t.${ownerHash(owner)}.>`, MAX_LISTED)) {
      const found = await this.readKey(key, owner, true);
      if (found !== undefined && (await this.deleteAt(key, found.revision))) count++;
    }
    return count;
  }

  private key(owner: string, taskId: string): string {
    return `t.${ownerHash(owner)}.${taskId}`;
  }

  private expired(record: TaskRecord): boolean {
    const ttl = record.task.ttl;
    return ttl !== null && isFinalTaskStatus(record.task.status) && record.createdAtMs + ttl <= this.clock.now();
  }

  private async read(owner: string, taskId: string): Promise<Found | undefined> {
    if (!TASK_ID.test(taskId)) return undefined;
    return this.readKey(this.key(owner, taskId), owner);
  }

  /** The owner's record at `key` with its revision; an expired one is deleted and reads as gone. */
  private async readKey(key: string, owner: string, includeExpired = false): Promise<Found | undefined> {
    const entry = await this.kv.get(key);
    const record = entry === null ? undefined : parse(entry);
    if (entry === null || record === undefined || record.owner !== owner) return undefined;
    if (!includeExpired && this.expired(record)) {
      this.knownRunners.delete(key);
      await this.deleteAt(key, entry.revision);
      return undefined;
    }
    this.remember(key, record.runner);
    return { record, revision: entry.revision };
  }

  private remember(key: string, runner: string): void {
    if (this.knownRunners.has(key)) return;
    if (this.knownRunners.size >= MAX_REMEMBERED_RUNNERS) {
      const oldest = this.knownRunners.keys().next().value;
      if (oldest !== undefined) this.knownRunners.delete(oldest);
    }
    this.knownRunners.set(key, runner);
  }

  /** Deletes the key if it is still at `revision` (a newer write is not lost to a stale delete). */
  private async deleteAt(key: string, revision: number): Promise<boolean> {
    try {
      await this.kv.delete(key, { previousSeq: revision });
      return true;
    } catch {
      return false;
    }
  }

  /** At most `limit` keys matching `filter`. */
  private async keys(filter: string, limit: number): Promise<string[]> {
    const found: string[] = [];
    const iterator = await this.kv.keys(filter);
    for await (const key of iterator) {
      found.push(key);
      if (found.length >= limit) {
        iterator.stop();
        break;
      }
    }
    return found;
  }

  private moved(record: TaskRecord, status: TaskStatus, statusMessage: string | undefined): TaskRecord {
    const { statusMessage: _previous, ...rest } = record.task;
    const task: Task = {
      ...rest,
      status,
      lastUpdatedAt: new Date(this.clock.now()).toISOString(),
      ...(statusMessage === undefined ? {} : { statusMessage }),
    };
    return { ...record, task };
  }

  /**
   * Applies `step` to the record by compare-and-set: `step` says the record it becomes, or `undefined` when the
   * move is refused (or changes nothing). A write that loses to another is retried on the value that won, and
   * so is one that was accepted but does not stand (see `stands`).
   */
  private async move(owner: string, taskId: string, step: (record: TaskRecord) => TaskRecord | undefined): Promise<TaskChange | undefined> {
    const key = this.key(owner, taskId);
    /** The record as the leader holds it, after a write that did not stand: the next attempt starts from it. */
    let leaders: Found | undefined;
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const found = leaders ?? (await this.read(owner, taskId));
      leaders = undefined;
      if (found === undefined) return undefined;
      const next = step(found.record);
      if (next === undefined) return { task: found.record.task, changed: false };
      const writeId = randomBytes(8).toString('hex');
      const written: TaskRecord = { ...next, writes: [...(found.record.writes ?? []), writeId].slice(-KEPT_WRITES) };
      let revision: number;
      try {
        revision = await this.kv.update(key, encode(written), found.revision);
      } catch (error) {
        if (!isWrongRevision(error)) throw error;
        continue;
      }
      const confirmed = await this.confirm(key, writeId, revision);
      if (confirmed === 'stands') return { task: next.task, changed: true };
      // Overwritten by a write that never saw this one: that one is the record, owned as ever (or gone).
      if (confirmed === undefined || confirmed.record.owner !== owner) return undefined;
      leaders = confirmed;
    }
    throw new Error(`Task "${taskId}": ${CAS_ATTEMPTS} concurrent writes in a row won over this one`);
  }

  /**
   * Whether the accepted write `writeId` stands: on a clustered JetStream, once a concurrent write had a moment to
   * land, the record the stream's leader holds names it among its writes (it is the record, or the record was
   * made on it). Otherwise the record that won (undefined: the task is gone). A record that cannot be read then
   * leaves the write standing, as a claim's confirmation does.
   */
  private async confirm(key: string, writeId: string, revision: number): Promise<'stands' | Found | undefined> {
    const confirmations = this.confirmations;
    if (confirmations === undefined) return 'stands';
    await new Promise<void>((resolve) => this.clock.setTimeout(resolve, WRITE_SETTLE_MS));
    let stored: Awaited<ReturnType<typeof lastFromLeader>>;
    try {
      stored = await retryWhileLeaderless(() => lastFromLeader(confirmations.jsm, this.bucket, key), { budgetMs: confirmations.electionRetryMs, timeoutIsSafe: true, clock: this.clock });
    } catch {
      return 'stands';
    }
    if (stored === undefined) return undefined;
    if (stored.seq === revision) return 'stands';
    const operation = stored.header?.get('KV-Operation');
    const record = operation === 'DEL' || operation === 'PURGE' ? undefined : parseValue(stored.data);
    if (record === undefined) return undefined;
    return record.writes?.includes(writeId) === true ? 'stands' : { record, revision: stored.seq };
  }
}

/** Whether a KV update failed because the key is no longer at the revision it was read at. */
function isWrongRevision(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /wrong last sequence/i.test(message) || apiErrorCode(error) === 10071;
}

/** Opens (creating it if needed) the task bucket and starts serving this process's tasks to the others. */
export function createJetStreamTaskStore(options: JetStreamTaskStoreOptions): Promise<JetStreamTaskStore> {
  return JetStreamTaskStore.open(options);
}
