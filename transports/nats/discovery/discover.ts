/**
 * Discovery of the MCP servers on a NATS system, the way `nats micro ls` finds services: one `$SRV.INFO` request,
 * every answer that comes back within a short window gathered (there is no count of instances to wait for), the
 * well-formed MCP announcements among them kept. Bounded in time (the window), in count (`maxServers`) and in
 * the size of each answer read.
 */
import { Empty, type NatsConnection } from '@nats-io/nats-core';
import { type Clock, systemClock } from '../../../core/clock.ts';
import { randomBytes } from '../../../core/crypto/random.ts';
import { isPlainSubject } from '../subjects.ts';
import { SERVICES_ROOT, serviceNameOf } from '../announce/service-identity.ts';
import { type AnnouncedServer, parseAnnouncement } from './announced-server.ts';

export interface DiscoverNatsServersOptions {
  /** How long answers are gathered (default 250 ms, as `nats micro ls`). */
  readonly windowMs?: number;
  /** Most answers read (each process sends one); the round ends when that many came (default 1000). */
  readonly maxServers?: number;
  /** Ask only the instances of this service name (`$SRV.INFO.<name>`; the binding's name unless it announces another). */
  readonly serviceName?: string;
  /** Keep only servers served under this subject prefix. */
  readonly prefix?: string;
  /** Where the answers come back (default `_INBOX`; the connection's user must be allowed to subscribe there). */
  readonly inboxPrefix?: string;
  /** The window's timer (default: the system clock). */
  readonly clock?: Clock;
}

const DEFAULT_DISCOVERY_WINDOW_MS = 250;
const DEFAULT_MAX_SERVERS = 1000;

/** One discovery under way: its result, and a way to end it early (with what was gathered so far). */
export interface DiscoveryRound {
  readonly servers: Promise<readonly AnnouncedServer[]>;
  stop(): void;
}

/** Servers in a stable order: by prefix, binding, then instance. */
/** The order of a round's servers: by prefix, binding, then instance. */
export function byPlace(a: AnnouncedServer, b: AnnouncedServer): number {
  return a.prefix.localeCompare(b.prefix) || a.binding.localeCompare(b.binding) || a.instanceId.localeCompare(b.instanceId);
}

interface DiscoverySettings {
  readonly windowMs: number;
  readonly maxServers: number;
  readonly inboxPrefix: string;
  readonly subject: string;
  readonly clock: Clock;
}

/** The options, checked (a watch checks them once, when it is made), with their defaults. */
export function discoverySettings(options: DiscoverNatsServersOptions): DiscoverySettings {
  const windowMs = options.windowMs ?? DEFAULT_DISCOVERY_WINDOW_MS;
  const maxServers = options.maxServers ?? DEFAULT_MAX_SERVERS;
  if (!Number.isFinite(windowMs) || windowMs < 0) throw new RangeError(`discovery windowMs must be a finite number >= 0, got ${windowMs}`);
  if (!Number.isInteger(maxServers) || maxServers < 1) throw new RangeError(`discovery maxServers must be a whole number >= 1, got ${maxServers}`);
  const inboxPrefix = options.inboxPrefix ?? '_INBOX';
  if (!isPlainSubject(inboxPrefix)) throw new TypeError(`discovery inboxPrefix ${JSON.stringify(inboxPrefix)} is not a plain NATS subject`);
  const subject = options.serviceName === undefined ? `${SERVICES_ROOT}.INFO` : `${SERVICES_ROOT}.INFO.${serviceNameOf(options.serviceName)}`;
  return { windowMs, maxServers, inboxPrefix, subject, clock: options.clock ?? systemClock };
}

/** Starts one discovery round (discoverNatsServers and watchNatsServers share it). */
export function discoveryRound(connection: NatsConnection, options: DiscoverNatsServersOptions = {}): DiscoveryRound {
  const { windowMs, maxServers, inboxPrefix, subject, clock } = discoverySettings(options);
  const inbox = `${inboxPrefix}.${Array.from(randomBytes(12), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  const found = new Map<string, AnnouncedServer>();
  let finish: (error?: Error) => void = () => undefined;
  const servers = new Promise<readonly AnnouncedServer[]>((resolve, reject) => {
    let done = false;
    finish = (error) => {
      if (done) return;
      done = true;
      timer.cancel();
      if (!subscription.isClosed()) subscription.unsubscribe();
      if (error !== undefined) reject(error);
      else resolve(Object.freeze([...found.values()].sort(byPlace)));
    };
    // Every answer counts toward the bound, well-formed or not: a flood of junk ends the round, never grows it.
    let answers = 0;
    const subscription = connection.subscribe(inbox, {
      callback: (error, msg) => {
        if (error !== null) return finish(new Error(`NATS refused the discovery's inbox ${inbox}: ${error.message}; give the user subscribe permission there, or an inboxPrefix it has`));
        answers++;
        const server = parseAnnouncement(msg.data);
        if (server !== undefined && (options.prefix === undefined || server.prefix === options.prefix) && !found.has(server.instanceId)) found.set(server.instanceId, server);
        if (answers >= maxServers) finish();
      },
    });
    const timer = clock.setTimeout(() => finish(), windowMs);
    try {
      connection.publish(subject, Empty, { reply: inbox });
    } catch (error) {
      finish(error instanceof Error ? error : new Error(String(error)));
    }
  });
  return { servers, stop: () => finish() };
}

/**
 * The MCP servers announced on `connection`'s NATS system now: one `$SRV.INFO` request, the answers of a short
 * window (`windowMs`, default 250 ms). Each process is one entry (two processes serving the same name are two
 * instances); malformed answers and other services are left out.
 *
 * @example
 * ```ts
 * const servers = await discoverNatsServers(connection);
 * for (const server of servers) console.log(server.binding, server.serverInfo.name, server.catalogRevision);
 * ```
 */
export async function discoverNatsServers(connection: NatsConnection, options?: DiscoverNatsServersOptions): Promise<readonly AnnouncedServer[]> {
  // Async, so bad options and a closed connection reject the promise rather than throw.
  return discoveryRound(connection, options).servers;
}
