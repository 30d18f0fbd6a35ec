/**
 * The handler table of a server: every feature's request handlers (tools, resources, prompts, completion,
 * logging, the 2025-11-25 tasks) and its notification handlers, built once over the one catalog and shared by
 * every session of both eras. The modern era serves the same table (modern.ts adds its own methods and takes the
 * 2025-11-25 task methods out); its `tools/call` is this one too, since the 2025-11-25 task path declines every
 * revision without those tasks, 2026-07-28 included.
 */
import type { ServerCatalog } from '../actors/features/catalog.ts';
import { completionHandlers } from '../actors/features/completion-feature.ts';
import { type FeatureContext, createFeatureContext } from '../actors/features/feature-context.ts';
import { loggingHandlers } from '../actors/features/logging-feature.ts';
import { promptHandlers } from '../actors/features/prompts-feature.ts';
import { resourceHandlers } from '../actors/features/resources-feature.ts';
import type { TasksFeature } from '../actors/features/tasks-feature.ts';
import { toolHandlers } from '../actors/features/tools-feature.ts';
import type { NotificationHandler, RequestContext, RequestHandler } from '../actors/handler-types.ts';
import type { InterceptableHandlerTable } from '../actors/outgoing-request.ts';
import { ErrorCode } from '../core/error-codes.ts';
import type { McpSession } from '../session/session-core.ts';
import type { SessionLogLevels } from './session-logging.ts';
import type { ResourceSubscriptions } from './subscriptions.ts';

/** Makes the handler context of one request. */
export type ContextFactory = (request: RequestContext) => FeatureContext;

export interface FeatureHandlerSetup {
  readonly catalog: ServerCatalog;
  readonly pageSize: number;
  readonly subscriptions: ResourceSubscriptions;
  readonly logLevels: SessionLogLevels;
  /** The 2025-11-25 tasks, when the server enables them. */
  readonly tasks?: TasksFeature | undefined;
  readonly onRootsListChanged?: ((session: McpSession) => void) | undefined;
}

export interface FeatureHandlers {
  /** Its request map is rewrapped in place when interceptors are added (server.use). */
  readonly table: InterceptableHandlerTable & { readonly requests: Map<string, RequestHandler> };
  /**
   * Decorates the contexts `tools/call` makes for its handlers (the modern tasks extension binds a call that
   * became a task to its context). Decorations apply in order, to calls made from then on.
   */
  wrapToolContext(wrap: (base: ContextFactory) => ContextFactory): void;
}

export function createFeatureHandlers(setup: FeatureHandlerSetup): FeatureHandlers {
  const { catalog, pageSize, logLevels, tasks } = setup;
  const context: ContextFactory = (request) => createFeatureContext(request, logLevels);
  let toolContext = context;
  const tools = toolHandlers(catalog, pageSize, {
    context: (request) => toolContext(request),
    ...(tasks === undefined ? {} : { tasks: tasks.tools }),
  });
  const requests = new Map<string, RequestHandler>(Object.entries({
    ...tools,
    ...resourceHandlers(catalog, pageSize, {
      context,
      // 2026-07-28 reports a missing resource as invalid params; -32002 is legacy only.
      notFoundCode: (session) => (session.revision === '2026-07-28' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound),
      subscriptions: setup.subscriptions,
    }),
    ...promptHandlers(catalog, pageSize, context),
    ...completionHandlers(catalog),
    ...loggingHandlers(logLevels),
    ...tasks?.handlers,
  }));
  const notifications = new Map<string, NotificationHandler>();
  const onRoots = setup.onRootsListChanged;
  if (onRoots !== undefined) notifications.set('notifications/roots/list_changed', (_params, session) => onRoots(session as McpSession));
  return {
    table: { requests, notifications },
    wrapToolContext(wrap) {
      toolContext = wrap(toolContext);
    },
  };
}
