/**
 * The front's requests the join carried and whose answer has not gone back yet: each one's exchange key (the
 * HTTP stream or NATS reply subject it came on), so that its answer and related notifications go out on it.
 *
 * Whoever settles an id first answers it (or, for a cancellation, lets it go); a second settle finds nothing.
 * The requests the join answered or let go itself are remembered (the last `remember` of them), so that the
 * back's late answer to one (after the medium reported it undeliverable, say) is not a second answer. Those the
 * back answered are not: that is the common path, and it stays a map delete.
 */
import type { JsonObject, RequestId } from '../../core/jsonrpc.ts';
import type { ExchangeKey } from '../../core/transport.ts';

/** Who ended a request: the join answered it, the back did, or the front cancelled it (no answer needed). */
export type SettledBy = 'join' | 'back' | 'cancel';

export class InFlight {
  private readonly open = new Map<RequestId, ExchangeKey | undefined>();
  private readonly settled = new Map<RequestId, SettledBy>();
  /** One promise for everyone waiting for the last answer (so waiting adds nothing per waiter). */
  private emptied: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;
  /** The front's `initialize` while its answer is awaited. */
  initialize: { readonly id: RequestId; readonly params: JsonObject } | undefined;

  constructor(private readonly remember: number) {}

  get size(): number {
    return this.open.size;
  }

  add(id: RequestId, exchange: ExchangeKey | undefined): void {
    // An id used again after its answer is a new request.
    this.settled.delete(id);
    this.open.set(id, exchange);
  }

  /** The exchange of an open request, without settling it (a notification related to it). */
  exchangeOf(id: RequestId): ExchangeKey | undefined {
    return this.open.get(id);
  }

  /**
   * Ends `id`, answered (or let go) `by`: `{ exchange }` if it was open (the caller owes it its one answer, unless
   * it is a cancellation), else `undefined`.
   */
  settle(id: RequestId, by: SettledBy): { readonly exchange: ExchangeKey | undefined } | undefined {
    if (!this.open.has(id)) return undefined;
    const exchange = this.open.get(id);
    this.open.delete(id);
    if (by !== 'back') {
      this.settled.set(id, by);
      if (this.settled.size > this.remember) this.settled.delete(this.settled.keys().next().value as RequestId);
    }
    if (this.open.size === 0) this.wake();
    return { exchange };
  }

  /**
   * How a request that is no longer open ended, if the join answered it or let it go (and remembers it):
   * undefined when it is open, the back answered it, or it was never seen.
   */
  settledBy(id: RequestId): SettledBy | undefined {
    return this.open.has(id) ? undefined : this.settled.get(id);
  }

  /** The open requests that came on `exchange`. */
  onExchange(exchange: ExchangeKey): RequestId[] {
    const ids: RequestId[] = [];
    for (const [id, of] of this.open) if (of === exchange) ids.push(id);
    return ids;
  }

  ids(): RequestId[] {
    return [...this.open.keys()];
  }

  /** Settles once nothing is open. */
  whenEmpty(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    if (this.emptied === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => (resolve = settle));
      this.emptied = { promise, resolve };
    }
    return this.emptied.promise;
  }

  private wake(): void {
    this.emptied?.resolve();
    this.emptied = undefined;
  }
}
