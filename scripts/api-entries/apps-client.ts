/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865), host side. See docs/apps.md.
 *
 * @module rxmcp/apps/client
 */
export * from '../../client/apps/index.ts';
