/**
 * The client end's record of the requests it sent that have no answer yet, so that when the server process
 * dies each of them fails with the exit itself ("exited with code 3") rather than a generic closed
 * connection: the session receives one 'undeliverable' frame per such request, carrying that error, just
 * before `incoming$` ends. Only ids and methods are kept; a request the session cancelled is forgotten
 * (its answer may never come), and the record is bounded, oldest first out (an evicted request still fails
 * when the session sees the transport end, only with a less specific message).
 */
import type { LocalError } from '../../core/errors.ts';
import { type RequestId, type WirePayload, isRequestId } from '../../core/jsonrpc.ts';
import type { InboundFrame } from '../../core/transport.ts';

type Message = Readonly<Record<string, unknown>>;

const isMessage = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);

export class PendingRequests {
  private readonly pending = new Map<RequestId, string>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.pending.size;
  }

  /** Notes what we sent: requests start waiting, cancellations stop waiting. */
  sent(payload: WirePayload): void {
    for (const message of Array.isArray(payload) ? payload : [payload]) {
      if (!isMessage(message)) continue;
      const method = message['method'];
      if (typeof method !== 'string') continue;
      const id = message['id'];
      if (isRequestId(id)) {
        this.pending.set(id, method);
        if (this.pending.size > this.capacity) this.forgetOldest();
      } else if (method === 'notifications/cancelled') {
        const params = message['params'];
        if (isMessage(params) && isRequestId(params['requestId'])) this.pending.delete(params['requestId']);
      }
    }
  }

  /** Notes what arrived: a response ends the wait of the request it answers. */
  received(payload: unknown): void {
    for (const message of Array.isArray(payload) ? (payload as unknown[]) : [payload]) {
      if (isMessage(message) && !('method' in message) && isRequestId(message['id'])) this.pending.delete(message['id']);
    }
  }

  /** One 'undeliverable' frame per waiting request, failing it with `error`; the record is emptied. */
  failAll(error: LocalError): InboundFrame[] {
    const frames: InboundFrame[] = [];
    for (const [id, method] of this.pending) {
      frames.push({ type: 'undeliverable', payload: { jsonrpc: '2.0', id, method }, error });
    }
    this.pending.clear();
    return frames;
  }

  private forgetOldest(): void {
    for (const id of this.pending.keys()) {
      this.pending.delete(id);
      return;
    }
  }
}
