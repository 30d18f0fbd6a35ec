/**
 * rxmcp/nats/client: the NATS client transport alone, for browsers (over `wsconnect` of @nats-io/nats-core, the
 * nats.js WebSocket transport) and any runtime without Node. It needs only @nats-io/nats-core: no JetStream, so
 * no claim-check (answers too large for `max_payload`); rxmcp/nats has the same transport with it.
 *
 * ```ts
 * import { wsconnect } from '@nats-io/nats-core';
 * import { natsClientTransport } from 'rxmcp/nats/client';
 * const transport = await natsClientTransport({ connect: () => wsconnect({ servers: 'ws://127.0.0.1:8080' }), name: 'files' });
 * ```
 */
import { type NatsClientTransport, makeNatsClientTransport } from './client-transport.ts';
import type { NatsClientConnectOptions, NatsClientTransportOptions } from './transport-options.ts';

export type { NatsClientTransport } from './client-transport.ts';
export type { NatsClientConnectOptions, NatsClientTransportOptions } from './transport-options.ts';

/** A client transport on `options.connection`; with `options.connect` instead, a promise of one on the connection it makes. */
export function natsClientTransport(options: NatsClientTransportOptions): NatsClientTransport;
export function natsClientTransport(options: NatsClientConnectOptions): Promise<NatsClientTransport>;
export function natsClientTransport(options: NatsClientTransportOptions | NatsClientConnectOptions): NatsClientTransport | Promise<NatsClientTransport> {
  return makeNatsClientTransport(options, undefined);
}
