/**
 * One MCP server whose catalog is the union of the rxmcp servers served on NATS that a source announces: `createMesh`,
 * what it is given, and what it says about its members. See docs/mesh.md.
 *
 * @module rxmcp/mesh
 */
export * from '../../mesh/index.ts';
