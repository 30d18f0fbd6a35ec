/**
 * Task notices across the processes sharing a JetStream task store (the store relay's `notices`): a task's
 * status, and its handler's progress and log messages, reach a `subscriptions/listen` on any process, not only on
 * the one running the handler.
 *
 * Each notice is published once, by the process where it happened, on `<prefix>.notices.<task id>`. A process
 * subscribes there only while one of its listens follows that task (one NATS subscription per followed task,
 * however many listens share it), so nats-server hands a notice only to the processes that want it: the fan-out
 * is bounded by interest, not by the size of the deployment. Nothing queues here: the subscription's callback
 * hands each notice on at once, and what waits for a listener waits in its session's bounded writer.
 *
 * Nothing from a peer is trusted: a notice that is not well formed, names another task than its subject, or uses
 * a method other than a task's is dropped. The owner it names is only what the receiving process checks its
 * listeners against (the tasks feature does, at send time); only server processes may publish or subscribe here
 * (`natsPermissions`), since a notice holds a task's result.
 */
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type { TaskNotice, TaskNoticeFeed, TaskNoticeMember } from '../../core/catalog/task-store.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';

export interface TaskNoticesOptions {
  readonly connection: NatsConnection;
  /** Notices go on `<prefix>.notices.<task id>`. */
  readonly prefix: string;
  /** This process's runner id: its own notices, coming back, are not told twice. */
  readonly origin: string;
}

/** The methods a task's notice may carry: its status, and its handler's progress and log messages. */
const METHODS: ReadonlySet<string> = new Set(['notifications/tasks', 'notifications/progress', 'notifications/message']);

/** A task id that is one NATS subject token (every id a store makes is: UUIDs). */
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parseNotice(data: Uint8Array, taskId: string): { readonly origin: string; readonly notice: TaskNotice } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const { origin, owner, method, params } = value;
  if (typeof origin !== 'string' || typeof owner !== 'string' || value['taskId'] !== taskId) return undefined;
  if (typeof method !== 'string' || !METHODS.has(method) || !isJsonObject(params)) return undefined;
  return { origin, notice: { owner, taskId, method, params } };
}

interface Followed {
  count: number;
  readonly subscription: Subscription;
}

export class NatsTaskNotices implements TaskNoticeFeed {
  private readonly members = new Set<(notice: TaskNotice) => void>();
  private readonly followed = new Map<string, Followed>();

  constructor(private readonly options: TaskNoticesOptions) {}

  join(apply: (notice: TaskNotice) => void): TaskNoticeMember {
    // A function of its own per member, so that the same `apply` joining twice is two members.
    const member = (notice: TaskNotice): void => apply(notice);
    this.members.add(member);
    return {
      publish: (notice) => {
        if (!this.members.has(member)) return;
        // Another member in this process (a second server sharing the store) is told here, without a round trip.
        if (this.followed.has(notice.taskId)) for (const other of this.members) if (other !== member) other(notice);
        this.send(notice);
      },
      leave: () => void this.members.delete(member),
    };
  }

  follow(taskId: string): () => void {
    if (!TOKEN.test(taskId)) return noop;
    let followed = this.followed.get(taskId);
    if (followed === undefined) {
      const subscription = this.options.connection.subscribe(this.subject(taskId), {
        callback: (error, msg) => void (error === null && this.heard(taskId, msg.data)),
      });
      this.followed.set(taskId, (followed = { count: 0, subscription }));
    }
    followed.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--followed.count > 0 || this.followed.get(taskId) !== followed) return;
      this.followed.delete(taskId);
      followed.subscription.unsubscribe();
    };
  }

  /** Stops every subscription (the store is closing). */
  close(): void {
    for (const followed of this.followed.values()) followed.subscription.unsubscribe();
    this.followed.clear();
    this.members.clear();
  }

  private subject(taskId: string): string {
    return `${this.options.prefix}.notices.${taskId}`;
  }

  private send(notice: TaskNotice): void {
    if (!TOKEN.test(notice.taskId)) return;
    const { owner, taskId, method, params } = notice;
    try {
      this.options.connection.publish(this.subject(taskId), encoder.encode(JSON.stringify({ origin: this.options.origin, owner, taskId, method, params })));
    } catch {
      // Closed, or the notice is larger than the server takes: the listens elsewhere miss it, as they would
      // during a disconnection; `tasks/get` still tells the task as it is.
    }
  }

  private heard(taskId: string, data: Uint8Array): void {
    const parsed = parseNotice(data, taskId);
    if (parsed === undefined || parsed.origin === this.options.origin) return;
    for (const member of this.members) member(parsed.notice);
  }
}

function noop(): void {}
