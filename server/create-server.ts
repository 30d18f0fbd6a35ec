/**
 * `createServer`: the public server API. One server holds one catalog (tools, resources, templates,
 * prompts, completions), built once and shared by every session it accepts; a session holds only its own
 * state (its log level and resource subscriptions, kept here in a WeakMap so idle sessions pay nothing).
 */
import type { HandlerTable, NotificationHandler, RequestHandler, SessionView } from '../actors/handler-types.ts';
import { type PromptGetter, type ResourceReader, ServerCatalog, type TemplateReader, type ToolHandler } from '../actors/features/catalog.ts';
import { completionHandlers } from '../actors/features/completion-feature.ts';
import { createFeatureContext, type FeatureContext } from '../actors/features/feature-context.ts';
import { loggingHandlers } from '../actors/features/logging-feature.ts';
import { promptHandlers } from '../actors/features/prompts-feature.ts';
import { resourceHandlers } from '../actors/features/resources-feature.ts';
import { toolHandlers } from '../actors/features/tools-feature.ts';
import { type TasksFeature, createTasksFeature } from '../actors/features/tasks-feature.ts';
import type { TaskStore } from '../core/catalog/task-store.ts';
import { InMemoryTaskStore } from './in-memory-task-store.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { Icon } from '../core/protocol/content.ts';

import { type LoggingLevel, levelAtLeast } from '../core/protocol/logging.ts';
import type { ServerCapabilities } from '../core/protocol/capabilities.ts';
import { LEGACY_REVISIONS, type LegacyRevision } from '../core/protocol/versions.ts';
import type { Clock } from '../core/clock.ts';
import type { Transport } from '../core/transport.ts';
import { buildPrompt, buildResource, buildTemplate, buildTool } from './registration.ts';
import { createSessionAcceptor } from './session-acceptor.ts';
import type { ArgsOf, PromptDefinition, ResourceDefinition, SchemaInput, TemplateDefinition, ToolDefinition } from './types.ts';
import type { McpSession, SessionRuntimeOptions } from '../session/session-core.ts';
import { type ModernOptions, createModernServing } from './modern.ts';
import { checkParamHeaders } from '../core/protocol/header-mirror.ts';
import { nextTurn } from '../core/next-turn.ts';
import type { ChangeFeedPort, ServerChange } from '../core/server-change.ts';
import { Subject } from 'rxjs';

export interface ServerOptions {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly Icon[];
  readonly instructions?: string;
  /** Items per page of every list (default 100). */
  readonly pageSize?: number;
  readonly supportedVersions?: readonly LegacyRevision[];
  /** Extra capabilities to declare (for example `experimental`), merged over the derived ones. */
  readonly capabilities?: ServerCapabilities;
  /** Runtime options every accepted session gets (limits, clock, keepalive). */
  readonly session?: SessionRuntimeOptions;
  /** Resource subscriptions one session may hold (default 1000). */
  readonly maxSubscriptionsPerSession?: number;
  /** Called when a client announces that its roots changed. */
  readonly onRootsListChanged?: (session: McpSession) => void;
  /** Task-augmented `tools/call` and `tasks/*` (2025-11-25, experimental); see actors/features/tasks-feature.ts. */
  readonly tasks?: ServerTaskOptions;
  /**
   * Which protocol eras to serve (default `"both"`): a connection that opens with `initialize` gets a legacy
   * session, one that opens with any other request is served statelessly in revision 2026-07-28.
   */
  readonly eras?: 'both' | 'legacy' | 'modern';
  /** Modern-era settings: request state keys, caching hints. */
  readonly modern?: ModernOptions;
}

export interface ServerTaskOptions {
  /** Where tasks are kept (default: an {@link InMemoryTaskStore} on the session clock). */
  readonly store?: TaskStore;
  /** Retention of a task whose request names no ttl (default 1 h); `null` keeps it until its session closes. */
  readonly defaultTtlMs?: number | null;
  /** The longest retention a request may obtain (default 24 h). */
  readonly maxTtlMs?: number;
  /** The polling interval suggested to clients (default 1000 ms). */
  readonly pollIntervalMs?: number;
}

/** Undoes a registration. */
export interface Registration {
  remove(): void;
}

export interface McpServer {
  tool<S extends SchemaInput>(definition: ToolDefinition<S>, handler: ToolHandler<ArgsOf<S>>): Registration;
  resource(definition: ResourceDefinition, read: ResourceReader): Registration;
  resourceTemplate(definition: TemplateDefinition, read: TemplateReader): Registration;
  prompt(definition: PromptDefinition, get: PromptGetter): Registration;
  /** Tells every session subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri: string): void;
  /** Tells a client that the URL-mode elicitation it was given has completed (2025-11-25). */
  notifyElicitationComplete(session: McpSession, elicitationId: string): void;
  /** Logs to every session (each at its own level). */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Serves one client on `transport`. */
  accept(transport: Transport, runtime?: SessionRuntimeOptions): McpSession;
  /** The sessions open now. */
  readonly sessions: ReadonlySet<McpSession>;
  /** The protocol eras this server serves. */
  readonly eras: 'both' | 'legacy' | 'modern';
  /** Its changes, for media that carry them to other processes serving the same name (NATS). */
  readonly changes: ChangeFeedPort;
  /** Closes every session. */
  close(): Promise<void>;
}

interface SessionState {
  logLevel?: LoggingLevel;
  subscriptions?: Set<string>;
}

export function createServer(options: ServerOptions): McpServer {
  const catalog = new ServerCatalog();
  const pageSize = options.pageSize ?? 100;
  const maxSubscriptions = options.maxSubscriptionsPerSession ?? 1000;
  const sessions = new Set<McpSession>();
  const state = new WeakMap<SessionView, SessionState>();
  const subscribers = new Map<string, Set<McpSession>>();
  const stateOf = (session: SessionView): SessionState => {
    let found = state.get(session);
    if (found === undefined) state.set(session, (found = {}));
    return found;
  };
  const logging = { loggingEnabled: true, logLevel: (session: SessionView) => state.get(session)?.logLevel };
  const context = (request: Parameters<RequestHandler>[1]): FeatureContext => createFeatureContext(request, logging);
  const tasks = options.tasks === undefined ? undefined : serverTasks(options.tasks, options.session?.clock, pageSize);

  const requests = new Map<string, RequestHandler>(Object.entries({
    ...toolHandlers(catalog, pageSize, tasks === undefined ? { context } : { context, tasks: tasks.tools }),
    ...resourceHandlers(catalog, pageSize, {
      context,
      // 2026-07-28 reports a missing resource as invalid params; -32002 is legacy only.
      notFoundCode: (session) => (session.revision === '2026-07-28' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound),
      subscriptions: {
        subscribe(session, uri) {
          const own = (stateOf(session).subscriptions ??= new Set());
          if (!own.has(uri) && own.size >= maxSubscriptions) {
            throw new WireError(ErrorCode.InvalidParams, `Invalid params: a session may hold at most ${maxSubscriptions} resource subscriptions`);
          }
          own.add(uri);
          let set = subscribers.get(uri);
          if (set === undefined) subscribers.set(uri, (set = new Set()));
          set.add(session as McpSession);
        },
        unsubscribe(session, uri) {
          state.get(session)?.subscriptions?.delete(uri);
          dropSubscriber(uri, session as McpSession);
        },
      },
    }),
    ...promptHandlers(catalog, pageSize, context),
    ...completionHandlers(catalog),
    ...loggingHandlers({ setLogLevel: (session, level) => void (stateOf(session).logLevel = level) }),
    ...tasks?.handlers,
  }));
  const notifications = new Map<string, NotificationHandler>();
  if (options.onRootsListChanged !== undefined) {
    const onRoots = options.onRootsListChanged;
    notifications.set('notifications/roots/list_changed', (_params, session) => onRoots(session as McpSession));
  }
  const handlers: HandlerTable = { requests, notifications };

  function dropSubscriber(uri: string, session: McpSession): void {
    const set = subscribers.get(uri);
    if (set === undefined) return;
    set.delete(session);
    if (set.size === 0) subscribers.delete(uri);
  }

  /** Capabilities follow the catalog; one object per catalog shape, so handshake results stay cached. */
  let capabilityCache: { key: string; value: ServerCapabilities } | undefined;
  function capabilities(): ServerCapabilities {
    const hasResources = catalog.resources.size > 0 || catalog.templates.size > 0;
    const key = `${catalog.tools.size > 0}${hasResources}${catalog.prompts.size > 0}`;
    if (capabilityCache?.key === key) return capabilityCache.value;
    const value: ServerCapabilities = Object.freeze({
      logging: {},
      ...(catalog.prompts.size > 0 || catalog.templates.size > 0 ? { completions: {} } : {}),
      ...(catalog.tools.size > 0 ? { tools: { listChanged: true } } : {}),
      ...(hasResources ? { resources: { subscribe: true, listChanged: true } } : {}),
      ...(catalog.prompts.size > 0 ? { prompts: { listChanged: true } } : {}),
      ...(tasks === undefined ? {} : { tasks: tasks.capabilities }),
      ...options.capabilities,
    });
    capabilityCache = { key, value };
    return value;
  }

  const onClosed = (session: McpSession): void => {
    sessions.delete(session);
    tasks?.sessionClosed(session);
    const own = state.get(session)?.subscriptions;
    if (own !== undefined) for (const uri of own) dropSubscriber(uri, session);
  };
  // The runtime each session keeps: one object per distinct runtime passed in (a host passes the same one for
  // every session), so sessions do not each hold a copy and a closure.
  const runtimes = new WeakMap<SessionRuntimeOptions, SessionRuntimeOptions>();
  function mergeRuntime(runtime: SessionRuntimeOptions | undefined): SessionRuntimeOptions {
    const own = runtime?.onClosed ?? options.session?.onClosed;
    return {
      ...options.session,
      ...runtime,
      onClosed: own === undefined ? onClosed : (session, reason) => {
        onClosed(session);
        own(session, reason);
      },
    };
  }
  const defaultRuntime = mergeRuntime(undefined);
  function runtimeFor(runtime: SessionRuntimeOptions | undefined): SessionRuntimeOptions {
    if (runtime === undefined) return defaultRuntime;
    // Options made for one connection (a stateless request's) are merged as they come, not remembered.
    if (runtime.preinitialized !== undefined || runtime.knownEra !== undefined || runtime.limits !== undefined) return mergeRuntime(runtime);
    let merged = runtimes.get(runtime);
    if (merged === undefined) runtimes.set(runtime, (merged = mergeRuntime(runtime)));
    return merged;
  }
  const serverInfo = {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.websiteUrl === undefined ? {} : { websiteUrl: options.websiteUrl }),
    ...(options.icons === undefined ? {} : { icons: options.icons }),
  };
  // What modern listeners hear about; legacy sessions are told directly (broadcast below).
  const changes$ = new Subject<ServerChange>();
  const ending$ = new Subject<void>();
  const eras = options.eras ?? 'both';
  const modern = eras === 'legacy' ? undefined : createModernServing({
    options: options.modern ?? {},
    acceptsLegacy: eras === 'both',
    legacyVersions: options.supportedVersions ?? LEGACY_REVISIONS,
    serverInfo,
    instructions: options.instructions,
    capabilities,
    // tools/call without the 2025-11-25 task augmentation, which the modern era does not have.
    handlers: new Map([...requests, ['tools/call', toolHandlers(catalog, pageSize, { context })['tools/call'] as RequestHandler]]),
    changes$,
    ending$,
    clock: options.session?.clock,
    // The tasks extension (modern.tasks) wraps this era's tools/call; see server-modern-tasks.ts.
    tools: { tool: (name) => catalog.tools.get(name), toolsCall: (wrap) => toolHandlers(catalog, pageSize, { context: wrap(context) })['tools/call'] as RequestHandler },
    checkMirror: (method, params, mirror) => {
      if (method !== 'tools/call') return undefined;
      const entry = catalog.tools.get(params?.['name'] as string);
      if (entry === undefined || entry.headers.length === 0) return undefined;
      const args = params?.['arguments'];
      return checkParamHeaders(mirror, entry.headers, typeof args === 'object' && args !== null ? (args as JsonObject) : undefined)?.message;
    },
  });
  const acceptor = createSessionAcceptor({
    serverInfo,
    capabilities,
    handlers,
    ...(modern === undefined ? {} : { modern }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.supportedVersions === undefined ? {} : { supportedVersions: options.supportedVersions }),
  });

  function broadcast(method: string, allowed: (capabilities: ServerCapabilities) => boolean): void {
    for (const session of sessions) {
      if (session.state !== 'operating' || !allowed(session.ownCapabilities as ServerCapabilities)) continue;
      session.notify(method);
    }
  }
  /** Tells this process's legacy sessions and modern listeners about a change, wherever it was made. */
  function announce(change: ServerChange): void {
    switch (change.type) {
      case 'tools':
        broadcast('notifications/tools/list_changed', (c) => c.tools?.listChanged === true);
        break;
      case 'prompts':
        broadcast('notifications/prompts/list_changed', (c) => c.prompts?.listChanged === true);
        break;
      case 'resources':
        broadcast('notifications/resources/list_changed', (c) => c.resources?.listChanged === true);
        break;
      case 'resource-updated': {
        const set = subscribers.get(change.uri);
        if (set !== undefined) for (const session of set) if (session.state === 'operating') session.notify('notifications/resources/updated', { uri: change.uri });
        break;
      }
    }
    changes$.next(change);
  }
  // Changes made here also go to other processes (through `changes`, when a medium carries them).
  const localChanges$ = new Subject<ServerChange>();
  const changeHere = (change: ServerChange): void => {
    announce(change);
    localChanges$.next(change);
  };
  catalog.tools.changed$.subscribe(() => changeHere({ type: 'tools' }));
  catalog.prompts.changed$.subscribe(() => changeHere({ type: 'prompts' }));
  // Resources and templates are one list for clients: a burst touching both sends one notification.
  let resourcesPending = false;
  const resourcesChanged = (): void => {
    if (resourcesPending) return;
    resourcesPending = true;
    queueMicrotask(() => {
      resourcesPending = false;
      changeHere({ type: 'resources' });
    });
  };
  catalog.resources.changed$.subscribe(resourcesChanged);
  catalog.templates.changed$.subscribe(resourcesChanged);

  return {
    tool(definition, handler) {
      const entry = buildTool(definition, handler as ToolHandler<never>);
      return register(catalog.tools, entry.definition.name, entry, 'tool');
    },
    resource(definition, read) {
      return register(catalog.resources, definition.uri, buildResource(definition, read), 'resource');
    },
    resourceTemplate(definition, read) {
      return register(catalog.templates, definition.uriTemplate, buildTemplate(definition, read), 'resource template');
    },
    prompt(definition, get) {
      return register(catalog.prompts, definition.name, buildPrompt(definition, get), 'prompt');
    },
    notifyResourceUpdated(uri) {
      changeHere({ type: 'resource-updated', uri });
    },
    notifyElicitationComplete(session, elicitationId) {
      if (session.state === 'operating') session.notify('notifications/elicitation/complete', { elicitationId });
    },
    log(level, data, logger) {
      for (const session of sessions) {
        if (session.state !== 'operating') continue;
        const threshold = state.get(session)?.logLevel;
        if (threshold !== undefined && !levelAtLeast(level, threshold)) continue;
        session.notify('notifications/message', { level, data: data as JsonObject, ...(logger === undefined ? {} : { logger }) });
      }
    },
    accept(transport, runtime) {
      const session = acceptor.accept(transport, runtimeFor(runtime));
      sessions.add(session);
      return session;
    },
    sessions,
    eras,
    changes: { local$: localChanges$.asObservable(), apply: announce },
    async close() {
      // Open listens end gracefully first (a complete result each), then every connection closes.
      ending$.next();
      await new Promise<void>((resolve) => nextTurn(resolve));
      await Promise.all(Array.from(sessions, (session) => session.close()));
    },
  };
}

/** The tasks feature, with its store (an in-memory one unless given) on the sessions' clock. */
function serverTasks(options: ServerTaskOptions, clock: Clock | undefined, pageSize: number): TasksFeature {
  const store = options.store ?? new InMemoryTaskStore({ pageSize, ...(clock === undefined ? {} : { clock }) });
  return createTasksFeature({
    store,
    // A task outlives the request that created it: it reaches its session directly.
    peer: (session) => session as McpSession,
    ...(options.defaultTtlMs === undefined ? {} : { defaultTtlMs: options.defaultTtlMs }),
    ...(options.maxTtlMs === undefined ? {} : { maxTtlMs: options.maxTtlMs }),
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
  });
}

interface Keyed<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): boolean;
}

function register<V>(registry: Keyed<V>, key: string, entry: V, kind: string): Registration {
  if (registry.get(key) !== undefined) throw new RangeError(`A ${kind} named "${key}" is already registered; remove it first`);
  registry.set(key, entry);
  return {
    remove() {
      // Only this registration: a later one under the same key stays.
      if (registry.get(key) === entry) registry.delete(key);
    },
  };
}
