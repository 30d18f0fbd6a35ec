/**
 * rxmcp/nats/client: the NATS client transport alone, for browsers (over `wsconnect` of @nats-io/nats-core, the
 * nats.js WebSocket transport) and any runtime without Node. It needs only @nats-io/nats-core: no JetStream, so
 * no claim-check (answers too large for `max_payload`); rxmcp/nats has the same transport with it.
 *
 * ```ts
 * import { wsconnect } from '@nats-io/nats-core';
 * import { connectNatsClientTransport } from 'rxmcp/nats/client';
 * const transport = await connectNatsClientTransport({ connect: () => wsconnect({ servers: 'ws://127.0.0.1:8080' }), name: 'files' });
 * ```
 */
import { type NatsClientTransport, connectNatsClient, makeNatsClientTransport } from './client-transport.ts';
import type { NatsClientConnectOptions, NatsClientTransportOptions } from './transport-options.ts';

export type { NatsClientTransport } from './client-transport.ts';
export type { NatsClientConnectOptions, NatsClientTransportOptions } from './transport-options.ts';

/** A client transport on `options.connection`, which the caller keeps owning; no I/O until a session uses it. */
export function createNatsClientTransport(options: NatsClientTransportOptions): NatsClientTransport {
  return makeNatsClientTransport(options, undefined);
}

/** Connects with `options.connect`, then a client transport on that connection, which the transport owns (drains on close). */
export function connectNatsClientTransport(options: NatsClientConnectOptions): Promise<NatsClientTransport> {
  return connectNatsClient(options, undefined);
}
