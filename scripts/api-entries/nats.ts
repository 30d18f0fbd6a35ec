/**
 * MCP over NATS: serveNats and natsClientTransport (needs the nats package). See docs/nats-binding.md.
 *
 * @module rxmcp/nats
 */
export * from '../../transports/nats/index.ts';
