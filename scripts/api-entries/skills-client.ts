/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640), host side. See docs/extensions.md.
 *
 * @module rxmcp/skills/client
 */
export * from '../../client/skills/index.ts';
