/**
 * Effect Schema for tool schemas (needs the effect package).
 *
 * @module rxmcp/effect
 */
export * from '../../core/schema/effect-schema.ts';
