/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640), server side. See docs/extensions.md.
 *
 * @module rxmcp/skills
 */
export * from '../../server/skills/index.ts';
