/**
 * rxmcp/engine: the engine's building blocks, for authors of transports, task stores and runtimes built on rxmcp
 * (the root entry, `rxmcp`, is for server and client authors). Nothing here is needed to serve or call tools:
 * `createServer` and `createClient` use these on a program's behalf. See "Entry points" in docs/design.md.
 *
 * No other entry point exports these values (specs/package/surface.spec.ts holds that). The types of the ports they
 * serve (`Codec`, `Clock`, `Transport`, ...) are on the root too, where the options that take them are.
 */
// Sessions without the server or client around them: one session per transport, on the handler tables given.
export { connectSession } from './client/connect-session.ts';
export { createSessionAcceptor } from './server/session-acceptor.ts';
// Framing: what stream transports (stdio, NATS bodies) put on the wire, and Streamable HTTP's SSE and Host header.
export { jsonCodec, createStreamDecoder, encodeFrame } from './core/codecs/index.ts';
export { encodeSseComment, encodeSseEvent, encodeSseRetry } from './transports/http/shared/sse.ts';
export type { SseEventInit } from './transports/http/shared/sse.ts';
export { parseHost, type HostAndPort } from './transports/http/shared/host-origin.ts';
export { toWireError } from './core/errors.ts';
// Protocol revisions and the method table, as the engine negotiates and routes with them.
export { negotiateServerVersion, acceptServerVersion, allowsBatches, atLeast, eraOf, newestOf } from './core/protocol/versions.ts';
export { methodRule, methodAvailable } from './core/protocol/methods.ts';
export { levelAtLeast } from './core/protocol/logging.ts';
export { MAX_COMPLETION_VALUES } from './core/protocol/completion.ts';
export { RELATED_TASK_META_KEY } from './core/protocol/tasks.ts';
export { isImplementation } from './core/protocol/capabilities.ts';
export { isCreateMessageResult, isElicitResult, isSamplingMessageContentBlock } from './core/protocol/guards.ts';
// The ports' defaults: the real clock, the backpressure policy, the task TTL a store applies.
export { systemClock } from './core/clock.ts';
export { defaultBackpressure } from './core/backpressure.ts';
export { resolveTaskTtl } from './core/catalog/task-store.ts';
export { parseUriTemplate } from './core/uri-template/index.ts';
// The error it throws is the root's (a server author meets it from createServer); named here for the reference.
export type { UriTemplate, UriTemplateError } from './core/uri-template/index.ts';
