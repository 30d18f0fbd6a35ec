/**
 * rxmcp over NATS: `serveNats(server, { connection, name })` serves a server (every process serving the same
 * name shares the load), `createNatsClientTransport({ connection, name })` connects a client. The wire is documented
 * in docs/nats-binding.md. `JetStreamEventStore` keeps the SSE events of `rxmcp/http` servers in JetStream, so
 * replicas behind a load balancer resume each other's streams. `createJetStreamTaskStore` keeps modern tasks in
 * JetStream KV, so any process of the queue group answers for any task (docs/nats-binding.md, "Tasks across
 * processes"). Every served process announces itself on the NATS services protocol (`nats micro ls`);
 * `discoverNatsServers` and `watchNatsServers` list the MCP servers announced (docs/nats-binding.md, "Discovery").
 */
export { type NatsServeOptions, type NatsServing, serveNats } from './server/serve-nats.ts';
export { connectNatsClientTransport, createNatsClientTransport } from './nats-client-transport.ts';
export type { NatsClientTransport } from './client/client-transport.ts';
export type { NatsClientConnectOptions, NatsClientTransportOptions } from './client/transport-options.ts';
export { JetStreamEventStore, type JetStreamEventStoreOptions } from './jetstream-event-store.ts';
export { JetStreamTaskStore, type JetStreamTaskStoreOptions, createJetStreamTaskStore } from './jetstream-task-store.ts';
export type { BodyEncoding } from './body-codec.ts';
export type { ClaimCheckOptions } from './claim-check.ts';
export type { SessionRecordOptions } from './server/session-records.ts';
export type { LegacySessionOptions } from './server/legacy-sessions.ts';
export type { SessionStateWarning } from './server/session-state-warning.ts';
export type { LaneOptions } from './server/lanes.ts';
export { NatsHeader } from './headers.ts';
export { serverSubjects } from './subjects.ts';
export { type NatsIdentitySigner, type NatsIdentitySignerOptions, createIdentitySigner } from './identity/identity-signer.ts';
export { type NatsIdentityOptions } from './identity/identity-verifier.ts';
export { type NatsCredentials, natsConnectionOptions } from './connect-options.ts';
export { type NatsPermissionOptions, type NatsPermissions, type NatsRole, natsPermissions } from './permissions.ts';
export type { NatsAnnounceOptions } from './announce/announcer.ts';
export type { AnnouncedServer } from './discovery/announced-server.ts';
export { type DiscoverNatsServersOptions, discoverNatsServers } from './discovery/discover.ts';
export { type WatchNatsServersOptions, watchNatsServers } from './discovery/watch.ts';
