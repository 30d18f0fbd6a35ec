/** The bridge's NATS connection, with a failure that says where it tried. */
import { type NatsConnection, connect } from 'nats';

export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  try {
    return await connect({ servers: url, name });
  } catch (error) {
    throw new Error(`could not connect to NATS at ${url}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
