/**
 * `createServer`: the public server API, wired from parts with one job each. One server holds one catalog
 * (tools, resources, templates, prompts), built once at registration and shared by every session it accepts, and
 * one handler table over it, shared by both eras; a session holds only its own state (its log level and resource
 * subscriptions, kept in WeakMaps so idle sessions pay nothing).
 *
 *   catalog-registrar.ts   tool/resource/resourceTemplate/prompt: build an entry once, put it in the catalog
 *   feature-handlers.ts    the handler table, built once
 *   capabilities.ts        what the server declares, derived from the catalog and the options
 *   subscriptions.ts       resource subscriptions per session
 *   session-logging.ts     log levels per session, and `log` to every session
 *   change-fan-out.ts      list changes and resource updates to every session and listen, and other processes
 *   open-sessions.ts       the open sessions and the runtime each is accepted with
 *   modern.ts              the modern era (2026-07-28) over the same table
 */
import { Subject } from 'rxjs';
import { ServerCatalog } from '../actors/features/catalog.ts';
import { scopeShortfall } from '../actors/features/scope-shortfall.ts';
import type { NotificationHandler, RequestHandler, SessionView } from '../actors/handler-types.ts';
import type { PortableSessionState, Transport } from '../core/transport.ts';
import { InterceptionPoint } from '../actors/interception-point.ts';
import type { Implementation } from '../core/protocol/capabilities.ts';
import { LEGACY_REVISIONS, MODERN_REVISIONS, type Revision } from '../core/protocol/versions.ts';
import { nextTurn } from '../core/next-turn.ts';
import { declaredCapabilities } from './capabilities.ts';
import { withExtensions } from '../core/protocol/extensions.ts';
import { installExtensions } from './extensions.ts';
import { catalogRegistrar } from './catalog-registrar.ts';
import { catalogRevisionOf } from './catalog-revision.ts';
import { ChangeFanOut } from './change-fan-out.ts';
import { createFeatureHandlers } from './feature-handlers.ts';
import { createLegacyTasks } from './legacy-tasks.ts';
import { createModernServing } from './modern.ts';
import { OpenSessions } from './open-sessions.ts';
import type { McpServer, ServerOptions } from './server-api.ts';
import { createSessionAcceptor } from './session-acceptor.ts';
import { SessionLogLevels } from './session-logging.ts';
import { ResourceSubscriptions } from './subscriptions.ts';

export type { McpServer, Registration, ServerOptions, ServerTaskOptions } from './server-api.ts';

export function createServer(options: ServerOptions): McpServer {
  const catalog = new ServerCatalog();
  const pageSize = options.pageSize ?? 100;
  const tasks = options.tasks === undefined ? undefined : createLegacyTasks(options.tasks, options.session?.clock, pageSize);
  // A session's portable state goes to its transport whenever it changes (a NATS binding records it, so the
  // session keeps it when another process takes it over).
  const transports = new WeakMap<SessionView, Transport>();
  const portableState = (session: SessionView): PortableSessionState => {
    const level = logLevels.logLevel(session);
    return { subscriptions: subscriptions.of(session), ...(level === undefined ? {} : { logLevel: level }) };
  };
  const reportState = (session: SessionView): void => transports.get(session)?.portableStateChanged?.(portableState(session));
  const subscriptions = new ResourceSubscriptions(options.maxSubscriptionsPerSession ?? 1000, reportState);
  const logLevels = new SessionLogLevels(reportState);
  const features = createFeatureHandlers({ catalog, pageSize, subscriptions, logLevels, tasks, onRootsListChanged: options.onRootsListChanged });
  // --- extensions (server/extensions.ts): their handlers join the table both eras serve ---
  const extensions = installExtensions(features.table.requests, features.table.notifications as Map<string, NotificationHandler>, options.extensions ?? []);
  const declared = withExtensions(options.capabilities ?? {}, extensions.declared);
  const capabilities = declaredCapabilities({ catalog, tasks: tasks?.capabilities, declared });
  const open = new OpenSessions(options.session, (session) => {
    tasks?.sessionClosed(session);
    subscriptions.sessionClosed(session);
  });
  const fanOut = new ChangeFanOut(open.all, subscriptions);
  fanOut.follow(catalog);
  const serverInfo = implementationOf(options);
  // Open modern listens end when the server closes, before its connections do.
  const ending$ = new Subject<void>();
  const eras = options.eras ?? 'both';
  const modern = eras === 'legacy' ? undefined : createModernServing({
    options: options.modern ?? {},
    acceptsLegacy: eras === 'both',
    legacyVersions: options.supportedVersions ?? LEGACY_REVISIONS,
    serverInfo,
    instructions: options.instructions,
    capabilities,
    handlers: features.table.requests,
    changes$: fanOut.changes$,
    mayHear: fanOut.mayHear,
    ending$,
    clock: options.session?.clock,
    tools: { tool: (name) => catalog.tools.get(name), wrapToolContext: (wrap) => features.wrapToolContext(wrap) },
    extensionMethods: extensions.modernMethods,
  });
  // Interceptors rewrap both eras' tables in place (the modern one is a Map that modern.ts built from the legacy one).
  const interception = new InterceptionPoint(
    modern === undefined ? [features.table.requests] : [features.table.requests, modern.handlers as Map<string, RequestHandler>],
    features.table,
  );
  const acceptor = createSessionAcceptor({
    serverInfo,
    capabilities,
    handlers: features.table,
    ...(modern === undefined ? {} : { modern }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.supportedVersions === undefined ? {} : { supportedVersions: options.supportedVersions }),
  });

  // What media that announce the server say of it (server/catalog-revision.ts for the catalog's revision).
  const revisions: readonly Revision[] = Object.freeze([
    ...(eras === 'modern' ? [] : options.supportedVersions ?? LEGACY_REVISIONS),
    ...(eras === 'legacy' ? [] : MODERN_REVISIONS),
  ].sort());
  const catalogRevision = catalogRevisionOf(catalog);

  const server: McpServer = {
    ...catalogRegistrar(catalog),
    use(interceptor, scope) {
      return interception.use(interceptor, scope);
    },
    notifyResourceUpdated(uri) {
      fanOut.changeHere({ type: 'resource-updated', uri });
    },
    notifyElicitationComplete(session, elicitationId) {
      if (session.state === 'operating') session.notify('notifications/elicitation/complete', { elicitationId });
    },
    log(level, data, logger) {
      logLevels.log(open.all, level, data, logger);
    },
    missingScopes(method, params, auth) {
      return scopeShortfall(catalog, method, params, auth);
    },
    accept(transport, runtime) {
      const session = acceptor.accept(transport, open.runtimeFor(runtime));
      if (transport.portableStateChanged !== undefined) transports.set(session, transport);
      const restored = runtime?.restoredState;
      if (restored !== undefined) {
        // Before any frame is served: the session goes on as it was, then says what it could take back.
        if (Array.isArray(restored.subscriptions)) subscriptions.restore(session, restored.subscriptions);
        logLevels.restore(session, restored.logLevel);
        reportState(session);
      }
      return open.add(session, transport.kind);
    },
    sessions: open.all,
    sessions$: open.events.events$,
    messages$: open.messages.messages$,
    eras,
    changes: fanOut.feed,
    describe: () => ({ serverInfo: { name: serverInfo.name, version: serverInfo.version }, revisions, catalogRevision: catalogRevision() }),
    async close() {
      // Open listens end gracefully first (a complete result each), then every connection closes.
      ending$.next();
      await new Promise<void>((resolve) => nextTurn(resolve));
      await Promise.all(Array.from(open.all, (session) => session.close()));
    },
  };
  for (const extension of options.extensions ?? []) extension.attach?.(server);
  return server;
}

/** The server's `serverInfo`: its name and version, and the optional fields the options give. */
function implementationOf(options: ServerOptions): Implementation {
  return {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.websiteUrl === undefined ? {} : { websiteUrl: options.websiteUrl }),
    ...(options.icons === undefined ? {} : { icons: options.icons }),
  };
}
