/** The NATS connection of a command, with its credentials, and a failure that says where it tried. */
import { type ConnectionOptions, type NatsConnection, connect } from 'nats';
import { type NatsCredentials, natsConnectionOptions } from '../../transports/nats/connect-options.ts';

export async function connectNats(url: string, name: string, credentials: NatsCredentials = {}, extra: ConnectionOptions = {}): Promise<NatsConnection> {
  let options: ConnectionOptions;
  try {
    // A comma-separated list names a cluster's nodes: the client fails over from one to the next.
    const servers = url.split(',').map((one) => one.trim()).filter((one) => one !== '');
    options = natsConnectionOptions(credentials, { ...extra, servers, name });
  } catch (error) {
    throw new Error(`could not connect to NATS at ${url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    return await connect(options);
  } catch (error) {
    throw new Error(`could not connect to NATS at ${url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
