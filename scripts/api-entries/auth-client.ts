/**
 * The OAuth 2.1 client for MCP authorization, for the HTTP client transports. See docs/auth.md.
 *
 * @module rxmcp/auth/client
 */
export * from '../../auth/client/index.ts';
