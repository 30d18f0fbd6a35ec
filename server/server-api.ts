/**
 * The public shape of a server: the options `createServer` takes and the `McpServer` it returns. Kept apart from
 * the wiring (create-server.ts) so the parts that implement one slice of `McpServer` can name it without a cycle.
 */
import type { PromptGetter, ResourceReader, TemplateReader, ToolHandler } from '../actors/features/catalog.ts';
import type { Observable } from 'rxjs';
import type { Interceptor, InterceptorScope } from '../actors/interceptors.ts';
import type { TaskStore } from '../core/catalog/task-store.ts';
import type { AuthInfo } from '../core/auth.ts';
import type { Icon } from '../core/protocol/content.ts';
import type { LoggingLevel } from '../core/protocol/logging.ts';
import type { ServerCapabilities } from '../core/protocol/capabilities.ts';
import type { ExtensionDefinition, ExtensionSettings } from '../core/protocol/extensions.ts';
import type { NotificationHandler, RequestHandler } from '../actors/handler-types.ts';
import type { LegacyRevision } from '../core/protocol/versions.ts';
import type { ChangeFeedPort } from '../core/server-change.ts';
import type { ServerDescription } from '../core/server-description.ts';
import type { Transport } from '../core/transport.ts';
import type { McpSession, SessionRuntimeOptions } from '../session/session-core.ts';
import type { SessionMessage } from '../session/message-tap.ts';
import type { ModernOptions } from './modern.ts';
import type { ServerSessionEvent } from './session-events.ts';
import type { ArgsOf, PromptDefinition, ResourceDefinition, SchemaInput, TemplateDefinition, ToolDefinition } from './types.ts';

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
  /**
   * Extensions this server declares and serves, in both eras (see server/extensions.ts and docs/extensions.md):
   * each is declared in `capabilities.extensions` (legacy `initialize`, modern `server/discover`) and its
   * methods join the handler table, behind the same routing, guards, errors and interceptors as core methods.
   */
  readonly extensions?: readonly ServerExtension[];
}

/** An extension as a server serves it: what it is, its settings, its handlers. */
export interface ServerExtension {
  /** Its identifier and method declarations (`defineExtension`). */
  readonly definition: ExtensionDefinition;
  /** What the server declares for it (default `{}`). */
  readonly settings?: ExtensionSettings;
  /**
   * A handler for each request a client sends under it (every client request of the definition that the
   * settings enable; a handler for a method the definition lacks is refused).
   */
  readonly handlers: Readonly<Record<string, RequestHandler>>;
  /** Handlers of client notifications it defines (legacy era: the modern era has no client notifications). */
  readonly notifications?: Readonly<Record<string, NotificationHandler>>;
  /** Called once the server exists, to register what it serves through the ordinary API (resources, tools). */
  readonly attach?: (server: McpServer) => void;
}

export interface ServerTaskOptions {
  /** Where tasks are kept (default: an `InMemoryTaskStore` on the session clock). */
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
  /**
   * Adds an interceptor around the requests this server serves (direction `incoming`, both eras) and the requests
   * it sends to clients (`outgoing`: sampling, elicitation, roots in the legacy era), or those `scope` names. The
   * first one added is the outermost. Without interceptors requests take their plain path, at no cost.
   */
  use(interceptor: Interceptor, scope?: InterceptorScope): Registration;
  /** Tells every session subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri: string): void;
  /** Tells a client that the URL-mode elicitation it was given has completed (2025-11-25). */
  notifyElicitationComplete(session: McpSession, elicitationId: string): void;
  /** Logs to every session (each at its own level). */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * The scopes a call to `method` with `params` needs when `auth` lacks some of them (its item's `requires` is a
   * scope list), else `undefined`. Media ask it before a handler runs to refuse with a step-up challenge.
   */
  missingScopes(method: string, params: unknown, auth: AuthInfo | undefined): readonly string[] | undefined;
  /** Serves one client on `transport`. */
  accept(transport: Transport, runtime?: SessionRuntimeOptions): McpSession;
  /** The sessions open now. */
  readonly sessions: ReadonlySet<McpSession>;
  /** Sessions opening (handshake done, or taken as modern) and closing, from the moment of subscribing; free unobserved. */
  readonly sessions$: Observable<ServerSessionEvent>;
  /**
   * Every frame in and out of every open session (each with its session, direction and time), from the moment of
   * subscribing, sessions accepted meanwhile included. Opt-in: no session is tapped while nobody observes.
   */
  readonly messages$: Observable<SessionMessage<McpSession>>;
  /** The protocol eras this server serves. */
  readonly eras: 'both' | 'legacy' | 'modern';
  /** Its changes, for media that carry them to other processes serving the same name (NATS). */
  readonly changes: ChangeFeedPort;
  /**
   * What it says of itself to media that announce it (NATS service discovery): its name and version, the protocol
   * revisions it serves, and its catalog's revision (a digest that changes with its tools, prompts and resources).
   */
  describe(): ServerDescription;
  /** Closes every session. */
  close(): Promise<void>;
}
