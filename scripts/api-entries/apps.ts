/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865), server side. See docs/apps.md.
 *
 * @module rxmcp/apps
 */
export * from '../../server/apps/index.ts';
