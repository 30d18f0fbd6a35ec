/** The NATS client transport of rxmcp/nats: rxmcp/nats/client's, with claim-check through the object store. */
import { redeemClaim } from './claim-check.ts';
import { type NatsClientTransport, connectNatsClient, makeNatsClientTransport } from './client/client-transport.ts';
import type { NatsClientConnectOptions, NatsClientTransportOptions } from './client/transport-options.ts';

/** A client transport on `options.connection`, which the caller keeps owning; no I/O until a session uses it. */
export function createNatsClientTransport(options: NatsClientTransportOptions): NatsClientTransport {
  return makeNatsClientTransport(options, redeemClaim);
}

/** Connects with `options.connect`, then a client transport on that connection, which the transport owns (drains on close). */
export function connectNatsClientTransport(options: NatsClientConnectOptions): Promise<NatsClientTransport> {
  return connectNatsClient(options, redeemClaim);
}
