/**
 * A served binding's answers to the NATS services protocol (the `$SRV` subjects of ADR-32), so that `nats micro ls`
 * and `discoverNatsServers` list it: `PING` (who it is), `INFO` (that, its endpoint and its MCP facts in the
 * metadata) and `STATS` (what it served), each on the subject for every service, for its name, and for this
 * instance. Best effort: a NATS user without permission to subscribe to the `$SRV` subjects still serves; the
 * announcer then stops and warns once. A process that dies vanishes with its connection; one that closes stops
 * answering first (serve-nats.ts stops this before it leaves its queue groups).
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import type { Clock } from '../../../core/clock.ts';
import type { ServerDescription } from '../../../core/server-description.ts';
import type { ServerSubjects } from '../subjects.ts';
import type { RequestStats } from './request-stats.ts';
import { McpMetadata, RESPONSE_TYPES, SERVICE_VERBS, type ServiceVerb, controlSubjects, serviceNameOf, serviceVersionOf } from './service-identity.ts';

/** `NatsServeOptions.announce` when it is an object. */
export interface NatsAnnounceOptions {
  /** The service name (default: the binding's name; it must match `[A-Za-z0-9_-]+`). */
  readonly serviceName?: string;
  /** The service's description in `INFO` (default: `MCP server <serverInfo.name> on <prefix>.<name>`). */
  readonly description?: string;
}

export interface AnnouncerSettings {
  readonly connection: NatsConnection;
  readonly binding: string;
  readonly prefix: string;
  readonly subjects: ServerSubjects;
  readonly queue: string;
  readonly eras: 'both' | 'legacy' | 'modern';
  readonly instanceId: string;
  readonly describe: () => ServerDescription;
  readonly stats: RequestStats;
  readonly clock: Clock;
  readonly options: NatsAnnounceOptions;
}

export interface Announcer {
  /** Starts answering (the subscriptions are made at once, so the binding's first flush puts them in place). */
  open(): void;
  /** Stops answering and leaves the `$SRV` subjects. Idempotent. */
  stop(): void;
}

/** The eras as the metadata names them. */
function erasOf(eras: AnnouncerSettings['eras']): string {
  return eras === 'both' ? 'legacy,modern' : eras;
}

export function startAnnouncer(settings: AnnouncerSettings): Announcer {
  const { connection, subjects, instanceId, stats } = settings;
  const name = serviceNameOf(settings.options.serviceName ?? settings.binding);
  const started = new Date(settings.clock.now()).toISOString();
  const identity = (): { readonly version: string; readonly metadata: Record<string, string>; readonly description: ServerDescription } => {
    const description = settings.describe();
    return {
      version: serviceVersionOf(description.serverInfo.version),
      description,
      metadata: {
        [McpMetadata.name]: description.serverInfo.name,
        [McpMetadata.version]: description.serverInfo.version,
        [McpMetadata.revisions]: description.revisions.join(','),
        [McpMetadata.eras]: erasOf(settings.eras),
        [McpMetadata.catalog]: description.catalogRevision,
        [McpMetadata.prefix]: settings.prefix,
        [McpMetadata.binding]: settings.binding,
      },
    };
  };
  // One endpoint: the call subjects, where every new piece of work arrives. Its stats count every request this
  // process answered, whichever binding subject it came on (legacy sessions' own subjects included).
  const endpointInfo = {
    name: 'mcp',
    subject: subjects.callWildcard,
    queue_group: settings.queue,
    metadata: settings.eras === 'modern' ? {} : { 'mcp.sessions': subjects.session('*') },
  };
  const answer = (verb: ServiceVerb): string => {
    const { version, metadata, description } = identity();
    const head = { type: RESPONSE_TYPES[verb], name, id: instanceId, version, metadata };
    if (verb === 'PING') return JSON.stringify(head);
    if (verb === 'INFO') {
      const text = settings.options.description ?? `MCP server ${description.serverInfo.name} on ${subjects.base}`;
      return JSON.stringify({ ...head, description: text, endpoints: [endpointInfo] });
    }
    const processingNanos = Math.round(stats.processingMs * 1e6);
    return JSON.stringify({
      ...head,
      started,
      endpoints: [{
        name: endpointInfo.name,
        subject: endpointInfo.subject,
        queue_group: endpointInfo.queue_group,
        num_requests: stats.requests,
        num_errors: stats.errors,
        last_error: stats.lastError ?? '',
        processing_time: processingNanos,
        average_processing_time: stats.requests === 0 ? 0 : Math.round(processingNanos / stats.requests),
      }],
    });
  };

  let answering = false;
  let stopped = false;
  const subscriptions: Subscription[] = [];
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    answering = false;
    for (const subscription of subscriptions) if (!subscription.isClosed()) subscription.unsubscribe();
  };
  const refused = (error: Error): void => {
    if (stopped) return;
    stop();
    process.emitWarning(`NATS refused the subscriptions announcing ${subjects.base} on the services protocol (${error.message}); it serves, but discovery and \`nats micro ls\` do not list it (see "Discovery" in docs/nats-binding.md)`, { type: 'RxmcpNatsAnnounceWarning' });
  };
  const respond = (verb: ServiceVerb, msg: Msg): void => {
    if (!answering || msg.reply === undefined || msg.reply === '') return;
    try {
      msg.respond(answer(verb));
    } catch {
      // The connection closed meanwhile: the asker's window ends its wait.
    }
  };
  for (const verb of SERVICE_VERBS) {
    for (const subject of controlSubjects(verb, name, instanceId)) {
      subscriptions.push(connection.subscribe(subject, { callback: (error, msg) => (error === null ? respond(verb, msg) : refused(error)) }));
    }
  }
  return {
    open() {
      if (!stopped) answering = true;
    },
    stop,
  };
}
