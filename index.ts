/**
 * rxmcp: a reactive, stream-based Model Context Protocol runtime.
 *
 * This is the curated public surface. Transports live behind their own subpaths (`rxmcp/memory`, ...), and
 * msgpack behind `rxmcp/msgpack`, so nobody loads what they do not use.
 */
export { connectSession, type ClientConfig } from './client/connect-session.ts';
export { createSessionAcceptor, type ServerConfig, type SessionAcceptor } from './server/session-acceptor.ts';
export type { CloseOptions, McpSession, SessionRuntimeOptions } from './session/session-core.ts';
export type { SessionMessage } from './session/message-tap.ts';
export type { LifecycleState } from './machines/session-lifecycle.ts';
export type { MachineInspection, MachineInspector } from './machines/executor.ts';
export type {
  HandlerOutput,
  HandlerTable,
  NotificationHandler,
  ProgressUpdate,
  PromiseRequestOptions,
  RequestContext,
  RequestEvent,
  RequestHandler,
  RequestOptions,
  SessionView,
} from './actors/handler-types.ts';
export type { KeepaliveOptions } from './actors/keepalive.ts';
export type { SessionDiagnostic } from './actors/session-context.ts';
export { WireError, LocalError, isLocalError, isWireError, toWireError, type LocalErrorCode } from './core/errors.ts';
export { ErrorCode } from './core/error-codes.ts';
export { defaultLimits, type Limits } from './core/limits.ts';
export { type BackpressureOptions, type BackpressurePolicy, type FlowStatus, defaultBackpressure } from './core/backpressure.ts';
export { systemClock, type Clock, type TimerHandle } from './core/clock.ts';
export type { Transport, InboundFrame, OutboundFrame, TransportStatus, ExchangeKey, FrameOrigin, PortableSessionState } from './core/transport.ts';
export type { FrameEnvelope } from './core/frame-envelope.ts';
export { type AuthInfo, AuthRefusal, hasScopes, isAuthRefusal } from './core/auth.ts';
export type { JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId } from './core/jsonrpc.ts';
export type { ClientCapabilities, ServerCapabilities, Implementation } from './core/protocol/capabilities.ts';
export {
  LEGACY_REVISIONS,
  LATEST_LEGACY_REVISION,
  negotiateServerVersion,
  acceptServerVersion,
  type LegacyRevision,
  type Revision,
  type Era,
} from './core/protocol/versions.ts';
export { jsonCodec, createStreamDecoder, encodeFrame, type Codec, type DecodedItem, type StreamDecoder } from './core/codecs/index.ts';
export { createServer, type McpServer, type ServerOptions, type ServerTaskOptions, type Registration } from './server/create-server.ts';
export type { ServerSessionEvent } from './server/session-events.ts';
export { createSessionHost, type HostEvent, type HostMetrics, type SessionHost, type SessionHostOptions } from './server/session-host.ts';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './server/in-memory-task-store.ts';
export {
  TaskStoreError,
  resolveTaskTtl,
  type TaskStore,
  type TaskOutcome,
  type TaskChange,
  type FinishedTask,
  type TaskPage,
  type NewTask,
  type TaskTtlPolicy,
  type TaskRelay,
  type TaskRunnerCalls,
  type RunnerView,
  type RelayAnswer,
} from './core/catalog/task-store.ts';
export type { CallToolAsTaskOptions, TaskUpdatesOptions } from './client/tasks.ts';
export type { TaskFollowOptions } from './client/task-follower.ts';
export type { ToolDefinition, ResourceDefinition, TemplateDefinition, PromptDefinition, SchemaInput, ArgsOf } from './server/types.ts';
export type { AccessRule } from './actors/features/access.ts';
export { createClient, type McpClient, type ClientOptions, type ConnectOptions } from './client/create-client.ts';
export type { ClientSession, CallToolOptions, ListChange } from './client/session-api.ts';
export type { ClientFeature, DeclaredClient, FeatureContext } from './actors/features/feature-context.ts';
export type { ToolHandler, ToolReturn, ResourceReader, TemplateReader, PromptGetter, Completer, ResourceReturn, PromptReturn } from './actors/features/catalog.ts';
export type { Output } from './actors/features/handler-output.ts';
export type { SamplingHandler, FormElicitationHandler, UrlElicitationHandler, RootsSource, ClientRequestContext } from './actors/features/client-requests.ts';
export { urlElicitationRequired } from './core/errors.ts';
export * from './core/protocol/index.ts';
export { SchemaError, isSchemaError } from './core/schema/index.ts';
export { parseUriTemplate, UriTemplateError, type UriTemplate } from './core/uri-template/index.ts';
export { taskTool, continueAsTask, type TaskStart } from './actors/features/tool-tasks.ts';
export type { ModernTaskOptions } from './server/modern-tasks.ts';
export type { ModernOptions } from './server/modern.ts';
export type { InputCallOptions, InputRound, ModernRequest } from './actors/handler-types.ts';
// A value a handler's stream emits that is progress, never the result (see HandlerOutput).
export { progress, type Progress, type ProgressFields } from './actors/progress.ts';
export type { SubscriptionFilter, CacheHints, RequestEnvelope } from './core/protocol/modern.ts';
export type {
  Interceptor,
  InterceptorNext,
  InterceptorScope,
  InterceptedRequest,
  InterceptedSession,
  InterceptedDirection,
  RequestChanges,
} from './actors/interceptors.ts';
// The request log: an interceptor over a logger port (pino or console); no dependency, so it is here.
export { jsonLinesLogger, requestLog, type LoggerPort, type RequestLogEntry, type RequestLogOptions } from './actors/request-log.ts';
// Extensions (docs/extensions.md): declared once as data, served by `createServer({ extensions })`, declared by
// `createClient({ extensions })`; the skills extension lives behind `rxmcp/skills` and `rxmcp/skills/client`.
export {
  defineExtension,
  declaresExtension,
  extensionSettings,
  isExtensionId,
  withExtensions,
  type ExtensionDefinition,
  type ExtensionSettings,
} from './core/protocol/extensions.ts';
export {
  request as declareRequest,
  notification as declareNotification,
  type Guard,
  type LegacyRule,
  type AccessRegistry,
  type MethodDeclaration,
  type MethodTarget,
  type ModernFlags,
  type ParamsOf,
  type RequestDeclaration,
  type ResultOf,
  type TargetItem,
} from './core/protocol/declarations/declaration.ts';
export type { ServerExtension } from './server/server-api.ts';
export { extensionRequest, serverExtension } from './client/extensions.ts';
