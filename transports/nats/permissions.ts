/**
 * The least-privilege NATS subject permissions of each role of the binding, for one served name: what to put in
 * a nats-server `authorization` block (or an account's user JWTs) so that each process can do its job and
 * nothing else. docs/nats-binding.md ("Permissions") explains each line; specs/transports/nats/permissions.spec.ts
 * runs every role with exactly these against a real nats-server.
 */
import { DEFAULT_PREFIX, serverSubjects } from './subjects.ts';
import { SERVICE_VERBS, SERVICES_ROOT, serviceNameOf } from './announce/service-identity.ts';

export type NatsRole = 'server' | 'gateway' | 'client';

export interface NatsPermissionOptions {
  /** The served name. */
  readonly name: string;
  /** Subject prefix (default `mcp`). */
  readonly prefix?: string;
  /**
   * The inbox prefix the role's connection and transports use (`inboxPrefix` of the nats connection and of
   * `createNatsClientTransport`). Default `_INBOX`; give each client user a prefix of its own (`_INBOX.<user>`) so no
   * client can subscribe to another's answers.
   */
  readonly inboxPrefix?: string;
  /** Legacy sessions recorded in JetStream KV (servers; default true). */
  readonly sessionRecords?: boolean;
  /**
   * A JetStream task store shared by the server processes (`createJetStreamTaskStore`): `true`, or the `bucket`
   * and `subjectPrefix` given to it (defaults `mcp_tasks` and `mcp.tasks.<bucket>`). Servers get its bucket and
   * every subject under its prefix (its runners' subjects and its task notices); clients and gateways are denied
   * publishing there, whatever else they are allowed (default: no task store).
   */
  readonly taskStore?: boolean | { readonly bucket?: string; readonly subjectPrefix?: string };
  /**
   * Servers: the `$SRV` subjects on which `serveNats` announces the process (services protocol; default true, as
   * `serveNats`'s `announce`; the service name is the served name unless `announce` names another).
   */
  readonly announce?: boolean | { readonly serviceName?: string };
  /** Clients and gateways: may ask `$SRV.INFO` (`discoverNatsServers`, `nats micro ls`) (default false). */
  readonly discovery?: boolean;
}

export interface NatsPermissions {
  /** `deny` wins over `allow` (nats-server semantics). */
  readonly publish: { readonly allow: readonly string[]; readonly deny?: readonly string[] };
  readonly subscribe: { readonly allow: readonly string[] };
  /** Let the user answer requests it received (keepalives) wherever their reply subjects are. */
  readonly allow_responses: boolean;
}

/** The JetStream API subjects of one KV bucket (open or create it, read and write its keys). */
function kvSubjects(bucket: string): string[] {
  const stream = `KV_${bucket}`;
  return [
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.CREATE.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$KV.${bucket}.>`,
  ];
}

/**
 * The JetStream task store's bucket and the wildcard of its subjects (defaults as in jetstream-task-store.ts): its
 * runners' `<prefix>.<runner id>` and its task notices' `<prefix>.notices.<task id>`.
 */
function taskStoreOf(option: NatsPermissionOptions['taskStore']): { readonly bucket: string; readonly runners: string } {
  const given = typeof option === 'object' ? option : {};
  const bucket = given.bucket ?? 'mcp_tasks';
  return { bucket, runners: `${given.subjectPrefix ?? `mcp.tasks.${bucket}`}.>` };
}

/**
 * A task store's subjects for a server process: its KV bucket, the consumers that list its keys, its runners'
 * subjects (forwarded calls to other processes' tasks; its own runner's requests) and its task notices.
 */
function taskStoreSubjects(bucket: string, runners: string): { readonly publish: string[]; readonly subscribe: string[] } {
  const stream = `KV_${bucket}`;
  return {
    publish: [
      ...kvSubjects(bucket),
      `$JS.API.CONSUMER.CREATE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.>`,
      `$JS.API.CONSUMER.DELETE.${stream}.>`,
      // nats.js v3's ordered consumer (which lists the keys) asks for its consumer's info too.
      `$JS.API.CONSUMER.INFO.${stream}.>`,
      runners,
    ],
    subscribe: [runners],
  };
}

/** The services protocol's subjects a server process of `service` answers: every verb for all, for its name, for itself. */
function announceSubjects(service: string): string[] {
  return SERVICE_VERBS.flatMap((verb) => [`${SERVICES_ROOT}.${verb}`, `${SERVICES_ROOT}.${verb}.${service}`, `${SERVICES_ROOT}.${verb}.${service}.*`]);
}

export function natsPermissions(role: NatsRole, options: NatsPermissionOptions): NatsPermissions {
  const subjects = serverSubjects(options.prefix ?? DEFAULT_PREFIX, options.name);
  const inbox = `${options.inboxPrefix ?? '_INBOX'}.>`;
  const sendToServers = [subjects.callWildcard, subjects.session('*'), subjects.adopt, subjects.cancel];
  const tasks = taskStoreOf(options.taskStore);
  // A forwarded task call, like a task notice, names the owner it acts for: only server processes may send one.
  // Denied explicitly, so a user given more than these permissions still cannot.
  const noForwarding = [tasks.runners];
  // Discovery asks every service at once, or one name's instances.
  const discovery = options.discovery === true ? [`${SERVICES_ROOT}.INFO`, `${SERVICES_ROOT}.INFO.>`] : [];
  if (role === 'client') {
    return { publish: { allow: [...sendToServers, ...discovery], deny: noForwarding }, subscribe: { allow: [inbox] }, allow_responses: true };
  }
  const gatewayBase = `${options.prefix ?? DEFAULT_PREFIX}-gw.${options.name}`;
  if (role === 'gateway') {
    const events = `MCP_GATEWAY_EVENTS_${options.name}`;
    return {
      publish: {
        allow: [
          ...sendToServers,
          ...kvSubjects(`mcp_gateway_${options.name}`),
          `${gatewayBase}.events.>`,
          // Is the replica producing a followed stream alive? (pings, answered by each replica's event store)
          `${gatewayBase}.events-alive.*`,
          `$JS.API.STREAM.INFO.${events}`,
          `$JS.API.STREAM.CREATE.${events}`,
          `$JS.API.STREAM.MSG.GET.${events}`,
          `$JS.API.DIRECT.GET.${events}`,
          `$JS.API.DIRECT.GET.${events}.>`,
          `$JS.API.STREAM.PURGE.${events}`,
          ...discovery,
        ],
        deny: noForwarding,
      },
      // The events' subjects too: a follow reads on when one is published there (its doorbell).
      subscribe: { allow: [inbox, `${gatewayBase}.inbox.>`, `${gatewayBase}.events.>`, `${gatewayBase}.events-alive.*`] },
      allow_responses: true,
    };
  }
  const taskStore = options.taskStore === undefined || options.taskStore === false ? undefined : taskStoreSubjects(tasks.bucket, tasks.runners);
  const announce = options.announce === false ? [] : announceSubjects(serviceNameOf(typeof options.announce === 'object' && options.announce.serviceName !== undefined ? options.announce.serviceName : options.name));
  return {
    publish: {
      // Once each ($JS.API.INFO is in every bucket's list).
      allow: [...new Set([
        subjects.changes,
        subjects.session('*'),
        subjects.ping('*'),
        subjects.taken('*'),
        // Answers, progress and keepalives to the clients' inboxes and the gateways' session inboxes.
        '_INBOX.>',
        `${gatewayBase}.inbox.>`,
        ...(options.sessionRecords === false ? [] : kvSubjects(`mcp_sessions_${options.name}`)),
        ...(taskStore?.publish ?? []),
      ])],
    },
    subscribe: { allow: [subjects.callWildcard, subjects.adopt, subjects.cancel, subjects.changes, subjects.ping('*'), subjects.taken('*'), subjects.session('*'), inbox, ...(taskStore?.subscribe ?? []), ...announce] },
    allow_responses: true,
  };
}
