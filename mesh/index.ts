/**
 * rxmcp/mesh: one MCP server whose catalog is the union of the rxmcp servers served on NATS that a source
 * announces, each request routed to its server. See docs/mesh.md.
 */
export { createMesh, type Mesh, type MeshMemberStatus } from './create-mesh.ts';
export { MEMBER_UNAVAILABLE } from './errors.ts';
export { prefixedName } from './naming.ts';
export type { MeshCaller, MeshEvent, MeshHealthOptions, MeshItem, MeshItemKind, MeshMember, MeshNaming, MeshOptions } from './options.ts';
