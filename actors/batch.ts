/**
 * Collects the responses to one JSON-RPC batch (2025-03-26) and sends them together as one array once every
 * request in it has been answered or cancelled.
 */
import type { JsonRpcResponse } from '../core/jsonrpc.ts';
import type { ExchangeKey } from '../core/transport.ts';
import type { OutboundWriter } from './outbound-writer.ts';

export class BatchResponses {
  private expected = 0;
  private sealed = false;
  private readonly responses: JsonRpcResponse[] = [];

  constructor(private readonly writer: OutboundWriter, private readonly exchange: ExchangeKey | undefined) {}

  /** One more request of the batch will answer (or be cancelled). */
  expect(): void {
    this.expected++;
  }

  /** A request's response, or undefined when it was cancelled and will never answer. */
  deliver(response: JsonRpcResponse | undefined): void {
    this.expected--;
    if (response !== undefined) this.responses.push(response);
    this.flushIfDone();
  }

  /** Every entry of the batch has been routed. */
  seal(): void {
    this.sealed = true;
    this.flushIfDone();
  }

  private flushIfDone(): void {
    if (!this.sealed || this.expected > 0 || this.responses.length === 0) return;
    const payload = this.responses.splice(0, this.responses.length);
    this.writer.write(this.exchange === undefined ? { payload } : { payload, exchange: this.exchange });
  }
}
