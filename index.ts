/**
 * rxmcp: a reactive, stream-based Model Context Protocol runtime.
 *
 * This is the curated public surface: the values a server or client author uses (40 at most, held by
 * specs/package/surface.spec.ts), and the types. Transports live behind their own subpaths (`rxmcp/http`, ...),
 * msgpack behind `rxmcp/msgpack`, so nobody loads what they do not use. The engine's building blocks (codecs,
 * version negotiation, the method table, the session acceptor and connector) are `rxmcp/engine`, writing an
 * extension is `rxmcp/extensions`, and test helpers are `rxmcp/testing`: see "Entry points" in docs/design.md.
 */
export type { ClientConfig } from './client/connect-session.ts';
export type { ServerConfig, SessionAcceptor } from './server/session-acceptor.ts';
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
export { WireError, LocalError, isLocalError, isWireError, type LocalErrorCode } from './core/errors.ts';
export { ErrorCode } from './core/error-codes.ts';
export { defaultLimits, type Limits } from './core/limits.ts';
export type { BackpressureOptions, BackpressurePolicy, FlowStatus } from './core/backpressure.ts';
export type { Clock, TimerHandle } from './core/clock.ts';
export type { Transport, InboundFrame, OutboundFrame, TransportStatus, ExchangeKey, FrameOrigin, PortableSessionState } from './core/transport.ts';
export type { FrameEnvelope } from './core/frame-envelope.ts';
export type { ServerDescription } from './core/server-description.ts';
export { type AuthInfo, AuthRefusal, hasScopes, isAuthRefusal } from './core/auth.ts';
export type { JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId } from './core/jsonrpc.ts';
export type { ClientCapabilities, ServerCapabilities, Implementation } from './core/protocol/capabilities.ts';
export type { LegacyRevision, Revision, Era } from './core/protocol/versions.ts';
export type { Codec, DecodedItem, StreamDecoder } from './core/codecs/index.ts';
export { createServer, type McpServer, type ServerOptions, type ServerTaskOptions, type Registration } from './server/create-server.ts';
export type { ServerSessionEvent } from './server/session-events.ts';
export { createSessionHost, type HostEvent, type HostMetrics, type SessionHost, type SessionHostOptions } from './server/session-host.ts';
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from './server/in-memory-task-store.ts';
export {
  TaskStoreError,
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
  type TaskNotice,
  type TaskNoticeFeed,
  type TaskNoticeMember,
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
// Every protocol type; of the protocol's values only those a handler or a host reads (the revisions, the logging
// levels, the task statuses, the guards of what a peer sends). The rest run the engine: rxmcp/engine.
export type * from './core/protocol/content.ts';
export type * from './core/protocol/elicitation.ts';
export type * from './core/protocol/lifecycle-tags.ts';
export type * from './core/protocol/pagination.ts';
export type * from './core/protocol/prompts.ts';
export type * from './core/protocol/resources.ts';
export type * from './core/protocol/roots.ts';
export type * from './core/protocol/sampling.ts';
export type * from './core/protocol/tools.ts';
// These files also hold engine values, so their types are named one by one.
export type { AnyCapabilities, TaskCapabilities } from './core/protocol/capabilities.ts';
export type {
  PromptReference,
  ResourceTemplateReference,
  ResourceReference,
  CompletionReference,
  CompleteParams,
  CompleteResult,
} from './core/protocol/completion.ts';
export type { LoggingLevel, SetLevelParams, LoggingMessageParams } from './core/protocol/logging.ts';
export type { MethodRule, Role } from './core/protocol/methods.ts';
export type {
  TaskStatus,
  Task,
  TaskMetadata,
  RelatedTaskMetadata,
  CreateTaskResult,
  GetTaskParams,
  GetTaskPayloadParams,
  GetTaskResult,
  ListTasksResult,
  CancelTaskParams,
  CancelTaskResult,
  TaskStatusNotificationParams,
} from './core/protocol/tasks.ts';
export type { ModernRevision } from './core/protocol/versions.ts';
export {
  ALL_REVISIONS,
  LATEST_LEGACY_REVISION,
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  isLegacyRevision,
  isRevision,
  LOGGING_LEVELS,
  isLoggingLevel,
  TASK_STATUSES,
  isTerminalTaskStatus,
  isCallToolResult,
  isContentBlock,
  isResourceContents,
  isRoot,
  isTool,
} from './core/protocol/index.ts';
export { SchemaError, isSchemaError } from './core/schema/index.ts';
export { UriTemplateError, type UriTemplate } from './core/uri-template/index.ts';
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
// Extensions (docs/extensions.md): a server serves them with `createServer({ extensions })`, a client declares them
// with `createClient({ extensions })`; the ones rxmcp ships are `rxmcp/skills` and `rxmcp/apps`, and the values for
// writing one (defineExtension, declareRequest, extensionRequest, ...) are `rxmcp/extensions`. Their types stay here.
export type { ExtensionDefinition, ExtensionSettings } from './core/protocol/extensions.ts';
export type {
  Guard,
  LegacyRule,
  AccessRegistry,
  MethodDeclaration,
  MethodTarget,
  ModernFlags,
  ParamsOf,
  RequestDeclaration,
  ResultOf,
  TargetItem,
} from './core/protocol/declarations/declaration.ts';
export type { ServerExtension } from './server/server-api.ts';
