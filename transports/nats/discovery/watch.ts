/**
 * The MCP servers of a NATS system as they come and go: a discovery round at once and then every `intervalMs`
 * (on the injected clock), the current set emitted whenever it differs from the last one emitted: a server
 * appeared or vanished, or one of them announces something else (a new catalog revision). One round at a time;
 * unsubscribing cancels the timer and ends the round under way.
 *
 * A server vanishes once it is missing from `graceRounds` + 1 rounds in a row (default 2): a round gathers answers
 * for a window of milliseconds, and a busy server (or a busy watcher) answering after it would otherwise come and
 * go with one late answer, and everything following the set (a mesh) with it. Its last announcement stands
 * meanwhile.
 */
import { Observable } from 'rxjs';
import type { NatsConnection } from '@nats-io/nats-core';
import { type AnnouncedServer, sameAnnouncement } from './announced-server.ts';
import { type DiscoverNatsServersOptions, type DiscoveryRound, byPlace, discoveryRound, discoverySettings } from './discover.ts';

export interface WatchNatsServersOptions extends DiscoverNatsServersOptions {
  /** Time between the starts of two rounds (default 5 s; never less than the window). */
  readonly intervalMs?: number;
  /** Rounds a server may miss and still be in the set (default 1; 0 drops it at the first round without it). */
  readonly graceRounds?: number;
}

const DEFAULT_WATCH_INTERVAL_MS = 5000;
const DEFAULT_GRACE_ROUNDS = 1;

function sameSet(a: readonly AnnouncedServer[], b: readonly AnnouncedServer[]): boolean {
  // Both are sorted the same way (discover.ts), so equal sets are equal lists.
  return a.length === b.length && a.every((server, index) => sameAnnouncement(server, b[index] as AnnouncedServer));
}

/**
 * An Observable of the MCP servers announced on `connection`'s NATS system: the first set after one discovery
 * round, then a new set each time a later round finds a different one. It errors when a round fails (the
 * connection closed, the discovery's inbox refused).
 *
 * @example
 * ```ts
 * const watching = watchNatsServers(connection, { intervalMs: 2000 }).subscribe((servers) => console.log(servers.length));
 * // later
 * watching.unsubscribe();
 * ```
 */
/**
 * A round's servers, and those of the last set it lacks that have missed fewer than `grace` + 1 rounds in a row
 * (`missing` counts, and forgets a server that answers again or is dropped). Bounded by the last set's size.
 */
function withGrace(found: readonly AnnouncedServer[], last: readonly AnnouncedServer[], missing: Map<string, { readonly server: AnnouncedServer; misses: number }>, grace: number): readonly AnnouncedServer[] {
  const present = new Set(found.map((server) => server.instanceId));
  for (const id of missing.keys()) if (present.has(id)) missing.delete(id);
  const kept: AnnouncedServer[] = [];
  for (const server of last) {
    if (present.has(server.instanceId)) continue;
    const entry = missing.get(server.instanceId) ?? { server, misses: 0 };
    entry.misses++;
    if (entry.misses > grace) {
      missing.delete(server.instanceId);
      continue;
    }
    missing.set(server.instanceId, entry);
    kept.push(server);
  }
  return kept.length === 0 ? found : Object.freeze([...found, ...kept].sort(byPlace));
}

export function watchNatsServers(connection: NatsConnection, options: WatchNatsServersOptions = {}): Observable<readonly AnnouncedServer[]> {
  const intervalMs = options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`watch intervalMs must be a finite number > 0, got ${intervalMs}`);
  const graceRounds = options.graceRounds ?? DEFAULT_GRACE_ROUNDS;
  if (!Number.isInteger(graceRounds) || graceRounds < 0) throw new RangeError(`watch graceRounds must be a whole number >= 0, got ${graceRounds}`);
  // Bad options fail here, not at the first round.
  const { clock, windowMs } = discoverySettings(options);
  return new Observable<readonly AnnouncedServer[]>((subscriber) => {
    let last: readonly AnnouncedServer[] | undefined;
    /** The servers of the set missing from the latest rounds, with how many rounds in a row they missed. */
    const missing = new Map<string, { readonly server: AnnouncedServer; misses: number }>();
    let round: DiscoveryRound | undefined;
    let ended = false;
    const poll = (): void => {
      if (ended || round !== undefined) return;
      let started: DiscoveryRound;
      try {
        started = discoveryRound(connection, options);
      } catch (error) {
        subscriber.error(error);
        return;
      }
      round = started;
      started.servers.then(
        (found) => {
          round = undefined;
          if (ended) return;
          const servers = withGrace(found, last ?? [], missing, graceRounds);
          if (last !== undefined && sameSet(last, servers)) return;
          last = servers;
          subscriber.next(servers);
        },
        (error: unknown) => {
          round = undefined;
          if (!ended) subscriber.error(error);
        },
      );
    };
    const timer = clock.setInterval(poll, Math.max(intervalMs, windowMs));
    poll();
    return () => {
      ended = true;
      timer.cancel();
      round?.stop();
    };
  });
}
