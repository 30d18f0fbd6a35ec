/**
 * Writing an MCP extension of your own: method declarations, the extension's definition, the typed request. See docs/extensions.md.
 *
 * @module rxmcp/extensions
 */
export * from '../../extensions.ts';
