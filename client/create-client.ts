/**
 * `createClient`: the public client API. A client declares its capabilities from the handlers it is given
 * (sampling, elicitation, roots), connects over any transport, and returns a session handle whose calls
 * are Observables with Promise helpers.
 */
import type { ExtensionSettings } from '../core/protocol/extensions.ts';
import type { NotificationHandler, RequestHandler, SessionView } from '../actors/handler-types.ts';
import { InterceptionPoint } from '../actors/interception-point.ts';
import type { Interceptor, InterceptorScope } from '../actors/interceptors.ts';
import type { InterceptableHandlerTable } from '../actors/outgoing-request.ts';
import { checkRoots, type ClientRequestHandlers, type FormElicitationHandler, type RootsSource, type SamplingHandler, type UrlElicitationHandler, clientRequestHandlers } from '../actors/features/client-requests.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { ClientCapabilities, Icon } from '../core/protocol/index.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { Transport } from '../core/transport.ts';
import { type ClientSession, ClientSessionImpl } from './session-api.ts';
import { connectSession } from './connect-session.ts';
import { inputAnswerer } from './rounds.ts';
import type { TaskFollowOptions } from './task-follower.ts';
import { TASKS_EXTENSION } from '../core/protocol/modern-tasks.ts';
import type { SessionRuntimeOptions } from '../session/session-core.ts';

export interface ClientOptions {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly Icon[];
  /** Answers `sampling/createMessage`; declares `sampling`. */
  readonly sampling?: SamplingHandler;
  /** Declare `sampling.tools` (the handler understands tool use in sampling). */
  readonly samplingTools?: boolean;
  /** Answers `elicitation/create`; declares `elicitation` with the modes given. */
  readonly elicitation?: { readonly form?: FormElicitationHandler; readonly url?: UrlElicitationHandler };
  /** The client's roots; declares `roots` (with `listChanged`). Change them with `setRoots`. */
  readonly roots?: RootsSource;
  /** Extra capabilities (for example `experimental`), merged over the derived ones. */
  readonly capabilities?: ClientCapabilities;
  /**
   * Extensions this client declares, by identifier, with their settings (`{}` for none): in `initialize` (legacy)
   * and in every request's `_meta` client capabilities (modern). See client/extensions.ts.
   */
  readonly extensions?: Readonly<Record<string, ExtensionSettings>>;
  /**
   * Handlers of what servers send this client under its extensions: notifications (and, in the legacy era,
   * requests), by method. A method the client already handles is refused.
   */
  readonly extensionHandlers?: {
    readonly requests?: Readonly<Record<string, RequestHandler>>;
    readonly notifications?: Readonly<Record<string, NotificationHandler>>;
  };
  /** The revision to ask for (default: the newest legacy revision). */
  readonly protocolVersion?: LegacyRevision;
  readonly supportedVersions?: readonly LegacyRevision[];
  /** Runtime options of every session (limits, clock, keepalive). */
  readonly session?: SessionRuntimeOptions;
  /**
   * The protocol era (default `auto`): probe with `server/discover` and speak 2026-07-28 when the server does,
   * else fall back to the `initialize` handshake. `legacy` never probes; `modern` requires 2026-07-28.
   */
  readonly era?: 'auto' | 'legacy' | 'modern';
  /** How long the `auto` probe waits before taking the server for a legacy one (default 5000 ms). */
  readonly probeTimeoutMs?: number;
  /**
   * Declares the tasks extension (`io.modelcontextprotocol/tasks`) on every 2026-07-28 request (never
   * otherwise): a server may then answer `tools/call` with a task, which `callTool$` / `callTool` follow to its
   * end (status by listen or polling, input with `tasks/update`, `tasks/cancel` on unsubscribe). `true` takes
   * the defaults. The legacy era's 2025-11-25 tasks need no option (`callToolAsTask`).
   */
  readonly tasks?: boolean | TaskFollowOptions;
}

export interface ConnectOptions {
  readonly signal?: AbortSignal;
  readonly initializeTimeoutMs?: number;
}

export interface McpClient {
  /**
   * Adds an interceptor around the requests this client sends (direction `outgoing`: `callTool$`, `readResource`,
   * raw `session.request$`..., each modern input round its own request) and those it serves (`incoming`:
   * sampling, elicitation, roots, in both eras), or those `scope` names. The first one added is the outermost;
   * it applies to sessions connected before and after. Without interceptors requests take their plain path.
   */
  use(interceptor: Interceptor, scope?: InterceptorScope): { remove(): void };
  connect(transport: Transport, options?: ConnectOptions): Promise<ClientSession>;
  /** Replaces the roots and tells every connected server (`notifications/roots/list_changed`). */
  setRoots(roots: RootsSource): void;
  readonly sessions: ReadonlySet<ClientSession>;
}

const MAX_REMEMBERED_PEERS = 256;

/** The capabilities with the tasks extension declared (a 2026-07-28 extension: the modern envelope only). */
function withTasks(capabilities: ClientCapabilities): ClientCapabilities {
  return Object.freeze({ ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION]: {} } });
}

export function createClient(options: ClientOptions): McpClient {
  let roots = options.roots;
  if (roots !== undefined && typeof roots !== 'function') checkRoots(roots);
  const sessions = new Set<ClientSession>();
  const eraByPeer = new Map<string, 'legacy' | 'modern'>();
  const byView = new WeakMap<SessionView, ClientSessionImpl>();
  const requestHandlers: ClientRequestHandlers = {
    ...(options.sampling === undefined ? {} : { sampling: options.sampling }),
    ...(options.elicitation === undefined ? {} : { elicitation: options.elicitation }),
    ...(roots === undefined ? {} : { roots: () => roots ?? [] }),
    onUrlElicitation: (view, elicitationId) => byView.get(view)?.expectElicitation(elicitationId),
  };
  const requests = new Map<string, RequestHandler>(Object.entries(clientRequestHandlers(requestHandlers)));
  const route = (method: string): NotificationHandler => (params, view) => byView.get(view)?.onNotification(method, params);
  const notifications = new Map<string, NotificationHandler>(
    [
      'notifications/message',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/elicitation/complete',
      'notifications/tasks/status',
      'notifications/subscriptions/acknowledged',
      // The tasks extension, on listen streams: a task's status, and its handler's progress.
      'notifications/tasks',
      'notifications/progress',
    ].map((method) => [method, route(method)]),
  );
  for (const [table, own] of [[requests, options.extensionHandlers?.requests], [notifications, options.extensionHandlers?.notifications]] as const) {
    for (const [method, handler] of Object.entries(own ?? {})) {
      if (table.has(method)) throw new TypeError(`createClient: ${method} already has a handler; an extension cannot replace it`);
      (table as Map<string, typeof handler>).set(method, handler);
    }
  }
  const handlers: InterceptableHandlerTable = { requests, notifications };
  const interception = new InterceptionPoint([requests], handlers);
  const capabilities: ClientCapabilities = Object.freeze({
    ...(options.sampling === undefined ? {} : { sampling: options.samplingTools === true ? { tools: {} } : {} }),
    ...(options.elicitation === undefined
      ? {}
      : {
          elicitation: {
            ...(options.elicitation.form === undefined ? {} : { form: {} }),
            ...(options.elicitation.url === undefined ? {} : { url: {} }),
          },
        }),
    ...(roots === undefined ? {} : { roots: { listChanged: true } }),
    ...options.capabilities,
    ...(options.extensions === undefined ? {} : { extensions: { ...options.capabilities?.extensions, ...options.extensions } }),
  });
  const taskFollow = options.tasks === undefined || options.tasks === false ? undefined : options.tasks === true ? {} : options.tasks;
  const clientInfo = {
    name: options.name,
    version: options.version,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.websiteUrl === undefined ? {} : { websiteUrl: options.websiteUrl }),
    ...(options.icons === undefined ? {} : { icons: options.icons as unknown as JsonObject[] }),
  };
  return {
    use(interceptor, scope) {
      return interception.use(interceptor, scope);
    },
    async connect(transport, connectOptions = {}) {
      const onClosed: SessionRuntimeOptions['onClosed'] = (session) => {
        const handle = byView.get(session);
        if (handle !== undefined) {
          sessions.delete(handle);
          handle.onClosed();
        }
      };
      const session = await connectSession(transport, {
        ...options.session,
        onClosed,
        clientInfo,
        capabilities,
        handlers,
        ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
        ...(options.supportedVersions === undefined ? {} : { supportedVersions: options.supportedVersions }),
        ...(connectOptions.signal === undefined ? {} : { signal: connectOptions.signal }),
        ...(connectOptions.initializeTimeoutMs === undefined ? {} : { initializeTimeoutMs: connectOptions.initializeTimeoutMs }),
        era: options.era ?? (transport.remote !== undefined && eraByPeer.get(transport.remote) === 'legacy' ? 'legacy' : 'auto'),
        ...(taskFollow === undefined ? {} : { modernCapabilities: withTasks(capabilities) }),
        ...(options.probeTimeoutMs === undefined ? {} : { probeTimeoutMs: options.probeTimeoutMs }),
      });
      // Remembered per peer: a server known to be legacy is not probed again (a bounded memory).
      if (transport.remote !== undefined) {
        if (eraByPeer.size >= MAX_REMEMBERED_PEERS) eraByPeer.delete(eraByPeer.keys().next().value as string);
        eraByPeer.set(transport.remote, session.era);
      }
      const handle = new ClientSessionImpl(session, inputAnswerer(requests, session), session.era === 'modern' ? taskFollow : undefined);
      byView.set(session, handle);
      sessions.add(handle);
      if (session.state === 'closed') handle.onClosed();
      return handle;
    },
    setRoots(next) {
      if (roots === undefined) throw new RangeError('setRoots needs a client created with roots (the roots capability is declared at connect time)');
      if (typeof next !== 'function') checkRoots(next);
      roots = next;
      for (const session of sessions) if (session.session.state === 'operating') session.session.notify('notifications/roots/list_changed');
    },
    sessions,
  };
}

