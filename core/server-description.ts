/**
 * What a server says of itself to media that announce it beyond its sessions (the NATS binding answers the NATS
 * services protocol with it): who it is, which protocol revisions it serves, and a revision of its catalog, so a
 * directory can tell when the tools, prompts or resources it lists went stale without asking for the lists.
 */
import type { Revision } from './protocol/versions.ts';

export interface ServerDescription {
  /** Its `serverInfo` name and version. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The protocol revisions it serves, oldest first (both eras' when it serves both). */
  readonly revisions: readonly Revision[];
  /**
   * A digest of its catalog (tools, prompts, resources, resource templates as lists show them): it changes when
   * one is added, removed or replaced by a different one, and is the same for two servers whose catalogs are the
   * same. Not a security property: a short hex string to compare, nothing more.
   */
  readonly catalogRevision: string;
}
