/**
 * A load, soak and chaos tester for any MCP server: `runLoad`, the result it resolves with, and what it is asked
 * to do. See docs/load.md.
 *
 * @module rxmcp/load
 */
export * from '../../load/index.ts';
