/** The NATS connection of a command, with its credentials, and a failure that says where it tried; and its end. */
import { type ConnectionOptions, type NatsConnection, connect } from '@nats-io/transport-node';
import { type NatsCredentials, natsConnectionOptions } from '../../transports/nats/connect-options.ts';
import { connectionState } from '../../transports/nats/connection-state.ts';
import { NATS_CLOSE_MS } from '../stopping.ts';

export async function connectNats(url: string, name: string, credentials: NatsCredentials = {}, extra: ConnectionOptions = {}): Promise<NatsConnection> {
  let options: ConnectionOptions;
  try {
    // A comma-separated list names a cluster's nodes: the client fails over from one to the next.
    const servers = url.split(',').map((one) => one.trim()).filter((one) => one !== '');
    options = natsConnectionOptions(credentials, { ...extra, servers, name });
  } catch (error) {
    throw new Error(`could not connect to NATS at ${url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  let connection: NatsConnection;
  try {
    connection = await connect(options);
  } catch (error) {
    throw new Error(`could not connect to NATS at ${url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // Followed from the start, so that closeNats knows whether the connection is down.
  connectionState(connection);
  return connection;
}

/**
 * Ends a command's NATS connection, in at most about `ms` twice: drained while it is up (what was published
 * reaches the NATS server), closed at once while it is down (nats.js reconnecting) or when the drain does not
 * finish in time (a NATS server that stopped answering).
 *
 * nats.js alone does not end it in time: a drain while disconnected waits for a flush that fails at the next
 * reconnection attempt, then swallows that failure and leaves the connection open, reconnecting forever
 * (`maxReconnectAttempts: -1`); the process then never exits.
 */
export async function closeNats(connection: NatsConnection, ms = NATS_CLOSE_MS): Promise<void> {
  if (connection.isClosed()) return;
  if (!connectionState(connection).down && !connection.isDraining()) await within(connection.drain().catch(() => undefined), ms);
  if (!connection.isClosed()) await within(connection.close().catch(() => undefined), ms);
}

/** Waits for `promise`, at most `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
