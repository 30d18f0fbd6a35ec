/**
 * Sends what a NATS connection has buffered every few messages, instead of only when the turn ends.
 *
 * nats.js gathers everything published in one turn of the event loop and writes it when the turn ends. A server
 * that receives 64 requests in one read then answers all 64 before the first answer leaves, and a client sends
 * its next 64 requests only once it has read all 64 answers: the client, nats-server and the server take turns,
 * each idle while another works. Written every {@link FLUSH_EVERY} messages, the first answers travel while the
 * rest are made, and the three work at once.
 */
import type { NatsConnection } from '@nats-io/nats-core';

/**
 * Messages per write within a turn: small enough that the peer starts early, large enough to keep writes few (each
 * write wakes nats-server and the peer). Chosen by measurement: echo calls over NATS with 64 in flight, modern era,
 * gave 52, 61, 62, 69 and 46 % of the lean floor's calls/s at 8, 16, 24, 32 and 64 (one write per turn at that
 * load); bench/RESULTS.md, "NATS: writes within a turn".
 */
const FLUSH_EVERY = 32;

/** Counts what is published on one connection; one per connection, shared by everything publishing on it. */
export interface EarlyFlush {
  /** Notes one message published; every {@link FLUSH_EVERY}th sends what is buffered. */
  published(): void;
}

/** The part of nats.js 2.x's connection this needs (not in its public types). */
interface RawConnection {
  readonly protocol?: { flushPending?: () => void };
}

class CountingFlush implements EarlyFlush {
  private count = 0;

  constructor(private readonly protocol: { flushPending(): void }) {}

  published(): void {
    if (++this.count < FLUSH_EVERY) return;
    this.count = 0;
    this.protocol.flushPending();
  }
}

/** Another nats.js (or a stand-in connection) without `flushPending`: its own end-of-turn write stands. */
const NO_EARLY_FLUSH: EarlyFlush = { published: () => undefined };

const flushes = new WeakMap<NatsConnection, EarlyFlush>();

/** The early flush of `connection` (looked up once by each publisher, not per message). */
export function earlyFlushOf(connection: NatsConnection): EarlyFlush {
  let flush = flushes.get(connection);
  if (flush === undefined) {
    const protocol = (connection as unknown as RawConnection).protocol;
    flush = typeof protocol?.flushPending === 'function' ? new CountingFlush(protocol as { flushPending(): void }) : NO_EARLY_FLUSH;
    flushes.set(connection, flush);
  }
  return flush;
}
