/**
 * The server end's record of the `subscriptions/listen` streams a stdio client opened (2026-07-28). On stdio the
 * server "also sends `notifications/cancelled`, solely to terminate a `subscriptions/listen` stream", naming the
 * listen's id: when the session answers an open listen with its result (it ended the stream: the server is
 * closing), this record says so, and the transport writes that notification just before the result. A listen
 * answered with an error never opened, and one the client cancelled is forgotten. Bounded, oldest first out.
 */
import { type JsonRpcMessage, type RequestId, type WirePayload, isRequestId } from '../../core/jsonrpc.ts';

type Message = Readonly<Record<string, unknown>>;

const isMessage = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);

export class OpenListens {
  private readonly open = new Set<RequestId>();

  constructor(private readonly capacity: number) {}

  /** Notes what the client sent: listens open, its cancellations close them. */
  received(payload: unknown): void {
    if (Array.isArray(payload)) {
      for (const message of payload) this.receivedOne(message);
    } else {
      // One message per line is the rule: no array made for it.
      this.receivedOne(payload);
    }
  }

  private receivedOne(message: unknown): void {
    if (!isMessage(message)) return;
    const id = message['id'];
    if (message['method'] === 'subscriptions/listen' && isRequestId(id)) {
      this.open.add(id);
      if (this.open.size > this.capacity) this.open.delete(this.open.values().next().value as RequestId);
    } else if (message['method'] === 'notifications/cancelled' && isMessage(message['params']) && isRequestId(message['params']['requestId'])) {
      this.open.delete(message['params']['requestId']);
    }
  }

  /** The notifications to write before `payload`: one per open listen it ends with a result. */
  endedBy(payload: WirePayload): JsonRpcMessage[] | undefined {
    if (this.open.size === 0) return undefined;
    let notices: JsonRpcMessage[] | undefined;
    for (const message of Array.isArray(payload) ? payload : [payload]) {
      if (!isMessage(message) || 'method' in message) continue;
      const id = message['id'];
      if (!isRequestId(id) || !this.open.delete(id)) continue;
      if (!('result' in message)) continue;
      (notices ??= []).push({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: 'The server ended the subscription' },
      } as JsonRpcMessage);
    }
    return notices;
  }
}
