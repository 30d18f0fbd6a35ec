/**
 * Whether a NATS connection is up, shared by everything that uses the connection (one status watcher per
 * connection, however many transports use it). nats.js drops what is published while it is disconnected, so
 * callers fail such sends at once instead of letting them wait for an answer that cannot come.
 */
import { type NatsConnection, PermissionViolationError } from '@nats-io/nats-core';

export interface ConnectionState {
  /** The client library is reconnecting. */
  readonly down: boolean;
  /** Called on each disconnect and reconnect; returns the unsubscribe. */
  on(listener: (event: 'disconnect' | 'reconnect') => void): () => void;
  /**
   * Called when the NATS server refuses a publish or a subscription for want of permission (it drops the message
   * and says so only on the connection); returns the unsubscribe.
   */
  onRefused(listener: (refusal: PermissionRefusal) => void): () => void;
}

/** A permissions violation the NATS server reported. */
export interface PermissionRefusal {
  readonly operation: 'publish' | 'subscription';
  readonly subject: string;
}

const states = new WeakMap<NatsConnection, ConnectionState>();

export function connectionState(connection: NatsConnection): ConnectionState {
  const known = states.get(connection);
  if (known !== undefined) return known;
  const listeners = new Set<(event: 'disconnect' | 'reconnect') => void>();
  const refusalListeners = new Set<(refusal: PermissionRefusal) => void>();
  let down = false;
  const state: ConnectionState = {
    get down() {
      return down;
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onRefused(listener) {
      refusalListeners.add(listener);
      return () => refusalListeners.delete(listener);
    },
  };
  states.set(connection, state);
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'error' && status.error instanceof PermissionViolationError) {
        const refusal: PermissionRefusal = { operation: status.error.operation, subject: status.error.subject };
        for (const listener of refusalListeners) listener(refusal);
        continue;
      }
      if (status.type !== 'disconnect' && status.type !== 'reconnect') continue;
      down = status.type === 'disconnect';
      for (const listener of listeners) listener(status.type);
    }
  })().catch(() => undefined);
  return state;
}
