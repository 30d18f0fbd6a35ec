/**
 * The NATS client transport alone, for browsers and any runtime without Node (over `wsconnect` of
 * @nats-io/nats-core): no JetStream, so no claim-check. See docs/nats-binding.md, "In a browser".
 *
 * @module rxmcp/nats/client
 */
export * from '../../transports/nats/client/index.ts';
