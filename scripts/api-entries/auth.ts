/**
 * The resource-server kit: bearer verification, protected-resource metadata, `ctx.auth`. See docs/auth.md.
 *
 * @module rxmcp/auth
 */
export * from '../../auth/index.ts';
