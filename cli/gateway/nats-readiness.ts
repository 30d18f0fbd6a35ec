/**
 * The gateway's readiness as its NATS connection makes it: every request it serves goes over that connection,
 * so while the client is disconnected (reconnecting), draining or closed, the gateway is not ready and its
 * `/readyz` says why; a load balancer then sends new sessions to a replica that can serve them.
 *
 * The connection's state comes from its status events (disconnect, reconnect) read as they happen, so a probe
 * costs no round trip to the NATS server.
 */
import type { NatsConnection } from '@nats-io/transport-node';

export interface NatsReadiness {
  /** Why the gateway cannot serve now, or undefined while its connection is up. */
  reason(): string | undefined;
  /** Stops following the connection's events. */
  stop(): void;
}

export function watchNatsConnection(connection: NatsConnection): NatsReadiness {
  let disconnected = false;
  const statuses = connection.status();
  void (async () => {
    // Ends when the connection closes or `stop` stops the iterator.
    for await (const status of statuses) {
      if (status.type === 'disconnect') disconnected = true;
      else if (status.type === 'reconnect') disconnected = false;
    }
  })().catch(() => undefined);
  return {
    reason() {
      if (connection.isClosed()) return 'the NATS connection is closed';
      if (connection.isDraining()) return 'the NATS connection is draining';
      return disconnected ? 'the NATS connection is down (reconnecting)' : undefined;
    },
    stop() {
      // The nats client's status iterator can be stopped; the interface only promises an AsyncIterable.
      (statuses as { stop?: () => void }).stop?.();
    },
  };
}
