/**
 * Sends what a NATS connection has buffered every few messages, instead of only when the turn ends.
 *
 * nats.js gathers everything published in one turn of the event loop and writes it when the turn ends. A server
 * that receives 64 requests in one read then answers all 64 before the first answer leaves, and a client sends
 * its next 64 requests only once it has read all 64 answers: the client, nats-server and the server take turns,
 * each idle while another works. Written every {@link FLUSH_EVERY} messages, the first answers travel while the
 * rest are made, and the three work at once.
 */
import type { NatsConnection } from 'nats';

/**
 * Messages per write within a turn: small enough that the peer starts early, large enough to keep writes few (each
 * write wakes nats-server and the peer). Chosen by measurement: echo calls over NATS with 64 in flight, modern era,
 * gave 52, 61, 62, 69 and 46 % of the lean floor's calls/s at 8, 16, 24, 32 and 64 (one write per turn at that
 * load); bench/RESULTS.md, "NATS: writes within a turn".
 */
const FLUSH_EVERY = 32;

/** The part of nats.js 2.x's connection this needs (not in its public types). */
interface RawConnection {
  readonly protocol?: { flushPending?: () => void };
}

const counters = new WeakMap<NatsConnection, { count: number }>();

/** Notes one message published on `connection`; every {@link FLUSH_EVERY}th sends what is buffered. */
export function publishedOn(connection: NatsConnection): void {
  let counter = counters.get(connection);
  if (counter === undefined) counters.set(connection, (counter = { count: 0 }));
  if (++counter.count < FLUSH_EVERY) return;
  counter.count = 0;
  const protocol = (connection as unknown as RawConnection).protocol;
  // Another nats.js (or a stand-in connection) without it: its own end-of-turn write stands.
  if (typeof protocol?.flushPending === 'function') protocol.flushPending();
}
