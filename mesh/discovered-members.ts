/**
 * The mesh's members when nobody names them: the rxmcp servers announced on the NATS services protocol
 * (transports/nats/discovery/), followed with `watchNatsServers`. The processes of one binding are one member (they
 * share a queue group, so a request reaches any of them); its catalog revision is that of all its processes
 * together, so a process of a rolling deploy that serves another catalog makes the mesh list the member again.
 */
import type { NatsConnection } from '@nats-io/nats-core';
import { type Observable, distinctUntilChanged, map, retry } from 'rxjs';
import type { AnnouncedServer } from '../transports/nats/discovery/announced-server.ts';
import { type WatchNatsServersOptions, watchNatsServers } from '../transports/nats/discovery/watch.ts';
import type { MeshMember } from './options.ts';

/** After a failed discovery round (the connection reconnecting, say), the next one starts this much later. */
const ROUND_RETRY_MS = 2000;

/**
 * One member per binding (and prefix) among `servers`, in their order, without the servers named `ownName`: a
 * mesh served on NATS announces itself too, and must not join itself.
 */
export function membersOf(servers: readonly AnnouncedServer[], ownName: string): MeshMember[] {
  const grouped = new Map<string, { readonly first: AnnouncedServer; readonly revisions: Set<string> }>();
  for (const server of servers) {
    if (server.serverInfo.name === ownName) continue;
    const key = `${server.prefix} ${server.binding}`;
    const group = grouped.get(key);
    if (group === undefined) grouped.set(key, { first: server, revisions: new Set([server.catalogRevision]) });
    else group.revisions.add(server.catalogRevision);
  }
  return [...grouped.values()].map(({ first, revisions }) => ({
    binding: first.binding,
    prefix: first.prefix,
    serverInfo: { name: first.serverInfo.name, version: first.serverInfo.version },
    catalogRevision: [...revisions].sort().join(','),
  }));
}

function sameMembers(a: readonly MeshMember[], b: readonly MeshMember[]): boolean {
  return a.length === b.length && a.every((member, index) => {
    const other = b[index] as MeshMember;
    return member.binding === other.binding && member.prefix === other.prefix && member.catalogRevision === other.catalogRevision;
  });
}

/** The members announced on `connection`'s NATS system as they come and go; a failed round is tried again. */
export function discoveredMembers(connection: NatsConnection, ownName: string, options: WatchNatsServersOptions = {}): Observable<readonly MeshMember[]> {
  return watchNatsServers(connection, options).pipe(
    map((servers) => membersOf(servers, ownName)),
    // The processes of one member coming and going (a scale-out) change the servers, not the members.
    distinctUntilChanged(sameMembers),
    retry({ delay: ROUND_RETRY_MS }),
  );
}
