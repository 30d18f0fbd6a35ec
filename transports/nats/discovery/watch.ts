/**
 * The MCP servers of a NATS system as they come and go: a discovery round at once and then every `intervalMs`
 * (on the injected clock), the current set emitted whenever it differs from the last one emitted: a server
 * appeared or vanished, or one of them announces something else (a new catalog revision). One round at a time;
 * unsubscribing cancels the timer and ends the round under way.
 */
import { Observable } from 'rxjs';
import type { NatsConnection } from '@nats-io/nats-core';
import { type AnnouncedServer, sameAnnouncement } from './announced-server.ts';
import { type DiscoverNatsServersOptions, type DiscoveryRound, discoveryRound, discoverySettings } from './discover.ts';

export interface WatchNatsServersOptions extends DiscoverNatsServersOptions {
  /** Time between the starts of two rounds (default 5 s; never less than the window). */
  readonly intervalMs?: number;
}

const DEFAULT_WATCH_INTERVAL_MS = 5000;

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
export function watchNatsServers(connection: NatsConnection, options: WatchNatsServersOptions = {}): Observable<readonly AnnouncedServer[]> {
  const intervalMs = options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  if (!Number.isFinite(intervalMs) || intervalMs <= 0) throw new RangeError(`watch intervalMs must be a finite number > 0, got ${intervalMs}`);
  // Bad options fail here, not at the first round.
  const { clock, windowMs } = discoverySettings(options);
  return new Observable<readonly AnnouncedServer[]>((subscriber) => {
    let last: readonly AnnouncedServer[] | undefined;
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
        (servers) => {
          round = undefined;
          if (ended) return;
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
