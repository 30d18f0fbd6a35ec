/** What a NATS client transport is given (see client-transport.ts). */
import type { NatsConnection } from '@nats-io/nats-core';
import type { Clock } from '../../../core/clock.ts';
import type { BodyEncoding } from '../body-codec.ts';

export interface NatsClientTransportOptions {
  /**
   * A connected nats.js client (`connect` of @nats-io/transport-node, or `wsconnect` of @nats-io/nats-core in a
   * browser); the transport never closes it. (Or see {@link NatsClientConnectOptions}.)
   */
  readonly connection: NatsConnection;
  /** The server's name (one subject token). */
  readonly name: string;
  /** Subject prefix (default `mcp`). */
  readonly prefix?: string;
  /** Ask for msgpack bodies (used once the server answers in msgpack; default JSON). */
  readonly encoding?: BodyEncoding;
  /** A request that hears nothing for this long fails (default 30 s; servers send keepalives every 5 s). */
  readonly silenceMs?: number;
  /** Accept oversized answers through the JetStream object store (default false; rxmcp/nats only). */
  readonly claimCheck?: boolean;
  /** Largest decoded message accepted (default 4 MiB). */
  readonly maxMessageBytes?: number;
  /** Inbox prefix (default `_INBOX`), for deployments whose permissions name the inboxes. */
  readonly inboxPrefix?: string;
  /**
   * Where the server sends a legacy session's own requests and notifications (default: under this
   * connection's inbox). A gateway names one subject per HTTP session so any replica can serve it.
   */
  readonly clientInbox?: string;
  /** Continue a legacy session that already exists (a gateway replica picking up another's session). */
  readonly resumeSession?: string;
  /** On close, keep the legacy session open on the server (another transport will resume it). */
  readonly keepSessionOnClose?: boolean;
  /**
   * The identity assertion to send with every message (the `Mcp-Identity` header), asked for each one: a gateway
   * vouching for the caller it authenticated (docs/nats-binding.md, "Identity across NATS"). Undefined: none.
   */
  readonly identity?: () => string | undefined;
  /**
   * How long a message sent while the NATS connection is down (nats.js reconnecting, to the same server or another
   * node of a cluster) waits for it to come back before a request fails with `TransportFailed` (default 2 s; 0:
   * fail at once). nats.js itself would drop such a message, so the transport keeps it meanwhile.
   */
  readonly reconnectWaitMs?: number;
  /** The silence check, its clock and the adoption backoff run on this clock (default: the system clock). */
  readonly clock?: Clock;
}

/** Fetches, checks and deletes a claimed answer (claim-check.ts `redeemClaim`). */
export type ClaimRedeemer = (connection: NatsConnection, bucket: string, name: string, digest: string | undefined) => Promise<Uint8Array>;

/**
 * A NATS client transport that connects by itself: `connect` makes its connection (`() => wsconnect({ servers })`
 * in a browser), which the transport then owns and drains when it closes. The factory answers a promise.
 */
export type NatsClientConnectOptions = Omit<NatsClientTransportOptions, 'connection'> & {
  readonly connect: () => Promise<NatsConnection>;
};
