/**
 * One MCP server process as it announces itself on the NATS services protocol, read from its `$SRV.INFO` answer.
 * Nothing a peer sends is trusted: an answer that is too large, not JSON, not an info response, or lacks any of
 * the MCP facts is not a server; every field is checked for type, form and size.
 */
import { isPlainSubject, isSubjectToken } from '../subjects.ts';
import { McpMetadata, RESPONSE_TYPES, isServiceName } from '../announce/service-identity.ts';

export interface AnnouncedServer {
  /** The `$SRV` instance id (the process's `NatsServing.processId`). */
  readonly instanceId: string;
  /** The binding name: the subject token the server is served under. */
  readonly binding: string;
  /** The binding's subject prefix. */
  readonly prefix: string;
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The protocol revisions it serves. */
  readonly revisions: readonly string[];
  readonly eras: readonly ('legacy' | 'modern')[];
  readonly catalogRevision: string;
}

/** The largest info answer read (an MCP server's is a few hundred bytes). */
const MAX_ANNOUNCEMENT_BYTES = 64 * 1024;
/** Longest name, version or catalog revision kept. */
const MAX_TEXT = 256;
/** Most revisions one server may list. */
const MAX_REVISIONS = 32;
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

const decoder = new TextDecoder();

function text(metadata: Readonly<Record<string, unknown>>, key: string, allowEmpty = false): string | undefined {
  const value = metadata[key];
  return typeof value === 'string' && value.length <= MAX_TEXT && (allowEmpty || value.length > 0) ? value : undefined;
}

/** The server an `$SRV.INFO` answer announces, or undefined when it is not a well-formed MCP announcement. */
export function parseAnnouncement(data: Uint8Array): AnnouncedServer | undefined {
  if (data.byteLength === 0 || data.byteLength > MAX_ANNOUNCEMENT_BYTES) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const info = value as Readonly<Record<string, unknown>>;
  if (info['type'] !== RESPONSE_TYPES.INFO) return undefined;
  const id = info['id'];
  if (typeof id !== 'string' || !isServiceName(id)) return undefined;
  const metadata = info['metadata'];
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return undefined;
  const facts = metadata as Readonly<Record<string, unknown>>;
  const binding = text(facts, McpMetadata.binding);
  const prefix = text(facts, McpMetadata.prefix);
  const name = text(facts, McpMetadata.name);
  const version = text(facts, McpMetadata.version, true);
  const catalogRevision = text(facts, McpMetadata.catalog, true);
  const revisionList = facts[McpMetadata.revisions];
  const eraList = facts[McpMetadata.eras];
  if (binding === undefined || !isSubjectToken(binding) || prefix === undefined || !isPlainSubject(prefix)) return undefined;
  if (name === undefined || version === undefined || catalogRevision === undefined) return undefined;
  if (typeof revisionList !== 'string' || revisionList.length > MAX_REVISIONS * 11 || typeof eraList !== 'string' || eraList.length > 32) return undefined;
  const revisions = revisionList === '' ? [] : revisionList.split(',');
  if (revisions.length > MAX_REVISIONS || !revisions.every((revision) => REVISION.test(revision))) return undefined;
  const eras: ('legacy' | 'modern')[] = [];
  for (const era of eraList.split(',')) {
    if (era !== 'legacy' && era !== 'modern') return undefined;
    if (!eras.includes(era)) eras.push(era);
  }
  return Object.freeze({
    instanceId: id,
    binding,
    prefix,
    serverInfo: Object.freeze({ name, version }),
    revisions: Object.freeze(revisions),
    eras: Object.freeze(eras),
    catalogRevision,
  });
}

/** Whether two announcements say the same (the set a watch emits changes when any member's do). */
export function sameAnnouncement(a: AnnouncedServer, b: AnnouncedServer): boolean {
  return a.instanceId === b.instanceId && a.binding === b.binding && a.prefix === b.prefix && a.serverInfo.name === b.serverInfo.name
    && a.serverInfo.version === b.serverInfo.version && a.catalogRevision === b.catalogRevision
    && a.revisions.join(',') === b.revisions.join(',') && a.eras.join(',') === b.eras.join(',');
}
