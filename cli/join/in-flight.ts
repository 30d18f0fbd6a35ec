/**
 * The front's requests the join carried and whose answer has not gone back yet: each one's exchange key (the
 * HTTP stream or NATS reply subject it came on), so that its answer and related notifications go out on it.
 * Whoever settles an id first answers it; a second settle finds nothing, so no request gets two answers. The ids
 * the join answered itself are remembered a while (the last `remember` of them), so that the back's late answer
 * to one (after the join reported it undeliverable, say) is not a second answer.
 */
import type { JsonObject, RequestId } from '../../core/jsonrpc.ts';
import type { ExchangeKey } from '../../core/transport.ts';

export class InFlight {
  private readonly open = new Map<RequestId, ExchangeKey | undefined>();
  private readonly answeredHere = new Set<RequestId>();
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
    this.answeredHere.delete(id);
    this.open.set(id, exchange);
  }

  /** The join answered `id` itself. */
  markAnswered(id: RequestId): void {
    this.answeredHere.add(id);
    if (this.answeredHere.size > this.remember) this.answeredHere.delete(this.answeredHere.values().next().value as RequestId);
  }

  /** Whether the join answered `id` itself (and no request has used the id since). */
  answeredByJoin(id: RequestId): boolean {
    return this.answeredHere.has(id);
  }

  /** The exchange of an open request, without settling it (a notification related to it). */
  exchangeOf(id: RequestId): ExchangeKey | undefined {
    return this.open.get(id);
  }

  /** Closes `id`: `{ exchange }` if it was open (the caller now owes it its one answer), else `undefined`. */
  settle(id: RequestId): { readonly exchange: ExchangeKey | undefined } | undefined {
    if (!this.open.has(id)) return undefined;
    const exchange = this.open.get(id);
    this.open.delete(id);
    if (this.open.size === 0) this.wake();
    return { exchange };
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
