/**
 * Answers checked against the requests on the wire of one session (through the session's message tap): each
 * answer must carry the id of a request this side sent and is still waiting for. An answer for an id already
 * answered is a duplicate; one for an id never sent (or long gone) is unknown; one after this side gave up on the
 * request (it timed out and was cancelled) is late, which the protocol allows. Every set is bounded.
 */
import type { Subscription } from 'rxjs';
import type { McpSession } from '../session/session-core.ts';

/** Ids remembered after their answer, and after their cancellation. */
const REMEMBERED = 8192;

export interface AnswerAnomalies {
  /** A second answer to one request. */
  duplicate: number;
  /** An answer to no request this side sent (or one answered long ago). */
  unknownId: number;
  /** An answer after the request was given up on (hung, then cancelled). */
  late: number;
}

class BoundedIds {
  private readonly ids = new Set<unknown>();
  private readonly order: unknown[] = [];
  private next = 0;

  add(id: unknown): void {
    if (this.ids.has(id)) return;
    const evicted = this.order[this.next];
    if (this.order.length === REMEMBERED) this.ids.delete(evicted);
    this.order[this.next] = id;
    this.next = (this.next + 1) % REMEMBERED;
    this.ids.add(id);
  }

  has(id: unknown): boolean {
    return this.ids.has(id);
  }
}

type Message = { readonly id?: unknown; readonly method?: unknown; readonly params?: { readonly requestId?: unknown }; readonly result?: unknown; readonly error?: unknown };

export function watchAnswers(session: McpSession, anomalies: AnswerAnomalies): Subscription {
  const waiting = new Set<unknown>();
  const answered = new BoundedIds();
  const cancelled = new BoundedIds();
  const outbound = (message: Message): void => {
    if (typeof message.method !== 'string') return;
    if (message.id !== undefined) waiting.add(message.id);
    else if (message.method === 'notifications/cancelled' && waiting.delete(message.params?.requestId)) cancelled.add(message.params?.requestId);
  };
  const inbound = (message: Message): void => {
    if (message.method !== undefined || message.id === undefined || message.id === null || (message.result === undefined && message.error === undefined)) return;
    if (waiting.delete(message.id)) answered.add(message.id);
    else if (answered.has(message.id)) anomalies.duplicate++;
    else if (cancelled.has(message.id)) anomalies.late++;
    else anomalies.unknownId++;
  };
  return session.messages$.subscribe((passed) => {
    const look = passed.direction === 'out' ? outbound : inbound;
    const payload = passed.payload;
    if (Array.isArray(payload)) for (const message of payload as Message[]) look(message);
    else if (typeof payload === 'object' && payload !== null) look(payload as Message);
  });
}
