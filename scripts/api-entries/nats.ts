/**
 * MCP over NATS: serveNats, createNatsClientTransport and connectNatsClientTransport (needs nats.js v3: @nats-io/transport-node, @nats-io/jetstream, @nats-io/kv). See docs/nats-binding.md.
 *
 * @module rxmcp/nats
 */
export * from '../../transports/nats/index.ts';
