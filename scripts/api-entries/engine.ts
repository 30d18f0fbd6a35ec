/**
 * The engine's building blocks, for authors of transports, task stores and runtimes on rxmcp: sessions without a
 * server or client around them, framing and codecs, version negotiation, the method table. See docs/design.md, "Entry points".
 *
 * @module rxmcp/engine
 */
export * from '../../engine.ts';
