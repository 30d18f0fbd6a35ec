/** The NATS client transport of rxmcp/nats: rxmcp/nats/client's, with claim-check through the object store. */
import { redeemClaim } from './claim-check.ts';
import { type NatsClientTransport, makeNatsClientTransport } from './client/client-transport.ts';
import type { NatsClientConnectOptions, NatsClientTransportOptions } from './client/transport-options.ts';

/** A client transport on `options.connection`; with `options.connect` instead, a promise of one on the connection it makes. */
export function natsClientTransport(options: NatsClientTransportOptions): NatsClientTransport;
export function natsClientTransport(options: NatsClientConnectOptions): Promise<NatsClientTransport>;
export function natsClientTransport(options: NatsClientTransportOptions | NatsClientConnectOptions): NatsClientTransport | Promise<NatsClientTransport> {
  return makeNatsClientTransport(options, redeemClaim);
}
