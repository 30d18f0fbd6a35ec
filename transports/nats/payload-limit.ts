/**
 * How large a body may be to go as one NATS message: the server's `max_payload` (1 MiB when the connection has
 * not said), less room for the headers.
 */
import type { NatsConnection } from '@nats-io/nats-core';

/** Room left in `max_payload` for a message's headers. */
const HEADER_ALLOWANCE = 1024;

export function maxPayloadOf(connection: NatsConnection): number {
  return connection.info?.max_payload ?? 1024 * 1024;
}

export function fitsPayload(connection: NatsConnection, bodyBytes: number): boolean {
  return bodyBytes + HEADER_ALLOWANCE <= maxPayloadOf(connection);
}
