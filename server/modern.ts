/**
 * The modern era (2026-07-28) of a server built by `createServer`: its handler table (the same feature
 * handlers as the legacy era, plus `server/discover` and `subscriptions/listen`), the capabilities it
 * declares in that era, and the sealing of input rounds.
 */
import type { Observable } from 'rxjs';
import type { RequestHandler } from '../actors/handler-types.ts';
import { type ServerChange, listenHandler } from '../actors/features/listen-feature.ts';
import { ModernServing, type ModernServingOptions } from '../actors/modern/modern-serving.ts';
import type { Implementation, ServerCapabilities } from '../core/protocol/capabilities.ts';
import type { CacheHints, DiscoverResult } from '../core/protocol/modern.ts';
import { UNTIMED_METHODS } from '../core/protocol/modern.ts';
import { MODERN_REVISIONS, type ModernRevision, type Revision } from '../core/protocol/versions.ts';
import { createStateSealer, randomStateKey } from '../core/request-state.ts';
import type { Clock } from '../core/clock.ts';
import type { AuthInfo } from '../core/auth.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { checkParamHeaders } from '../core/protocol/header-mirror.ts';
import { type MethodDeclaration, targetIn } from '../core/protocol/declarations/declaration.ts';
import { declarationOf } from '../core/protocol/declarations/index.ts';
// --- tasks extension (SEP-2663): see modern-tasks.ts ---
import { type ModernTaskOptions, type ModernToolHooks, installModernTasks, withTasksExtension } from './modern-tasks.ts';

export interface ModernOptions {
  /**
   * Keys that seal the `requestState` of multi round-trip requests (each at least 32 bytes; the first seals,
   * all open, so keys can be rotated). Processes sharing a key can continue each other's rounds. Default: a
   * random key per process, so a round must come back to the process that started it.
   */
  readonly stateKeys?: readonly (string | Uint8Array)[];
  /** How long a sealed state stays valid (default 10 minutes). */
  readonly stateTtlMs?: number;
  /**
   * Caching hints on lists, reads and discovery. Default `ttlMs: 0` (a client should revalidate: lists change
   * and listeners are told) and `cacheScope: "private"` (results may depend on who asks).
   */
  readonly cache?: Partial<CacheHints>;
  /** Resources one listen may watch (default 1000). */
  readonly maxResourceSubscriptions?: number;
  /**
   * Enables the tasks extension (`io.modelcontextprotocol/tasks`) in this era: declared in `server/discover`,
   * `tasks/get|update|cancel` served, and calls of tools with task support may become tasks. Off by default;
   * independent of the 2025-11-25 `tasks` option. See modern-tasks.ts.
   */
  readonly tasks?: ModernTaskOptions;
}

export interface ModernServingSetup {
  readonly options: ModernOptions;
  readonly acceptsLegacy: boolean;
  readonly legacyVersions: readonly Revision[];
  readonly serverInfo: Implementation;
  readonly instructions: string | undefined;
  /** The legacy capabilities; the modern ones are derived from them. */
  readonly capabilities: () => ServerCapabilities;
  /** The feature handlers both eras share (feature-handlers.ts), `tools/call` included. */
  readonly handlers: ReadonlyMap<string, RequestHandler>;
  readonly changes$: Observable<ServerChange>;
  /** Whether a caller may hear of a change (server/change-fan-out.ts, `mayHear`). */
  readonly mayHear?: (change: ServerChange, auth: AuthInfo | undefined) => boolean;
  readonly ending$: Observable<unknown>;
  readonly clock: Clock | undefined;
  /** The server's tools: for the check of mirrored header parameters, and for the tasks extension. */
  readonly tools: ModernToolHooks;
  /** The client requests of the extensions the server serves (server/extensions.ts). */
  readonly extensionMethods?: ReadonlyMap<string, MethodDeclaration>;
}

/** Capabilities of the modern era: the same features, without the 2025-11-25 experimental tasks. */
function modernCapabilitiesOf(legacy: ServerCapabilities, tasksExtension: boolean): ServerCapabilities {
  if (legacy.tasks === undefined && !tasksExtension) return legacy;
  const { tasks: _tasks, ...rest } = legacy;
  return Object.freeze(tasksExtension ? withTasksExtension(rest) : rest);
}

export function createModernServing(setup: ModernServingSetup): ModernServing {
  const supported: readonly ModernRevision[] = MODERN_REVISIONS;
  const handlers = new Map(setup.handlers);
  // --- tasks extension (SEP-2663) ---
  const tasksFeature = installModernTasks(handlers, { options: setup.options.tasks, tools: setup.tools, clock: setup.clock, ending$: setup.ending$ });
  const tasksExtension = tasksFeature !== undefined;
  // Read on every modern request: the last derivation is kept (the capabilities object changes only when the
  // catalog's shape does, server/capabilities.ts), so a request costs no lookup.
  let derived: { readonly legacy: ServerCapabilities; readonly modern: ServerCapabilities } | undefined;
  const capabilities = (): ServerCapabilities => {
    const legacy = setup.capabilities();
    if (derived?.legacy !== legacy) derived = { legacy, modern: modernCapabilitiesOf(legacy, tasksExtension) };
    return derived.modern;
  };
  const supportedVersions = [...(setup.acceptsLegacy ? setup.legacyVersions : []), ...supported];
  // The caching hints are added with the other result fields when the answer is sent.
  const discoveries = new WeakMap<ServerCapabilities, Omit<DiscoverResult, keyof CacheHints>>();
  const discover: RequestHandler = () => {
    const declared = capabilities();
    let result = discoveries.get(declared);
    if (result === undefined) {
      result = {
        resultType: 'complete',
        supportedVersions,
        capabilities: declared,
        ...(setup.instructions === undefined ? {} : { instructions: setup.instructions }),
      };
      discoveries.set(declared, result);
    }
    return result;
  };
  handlers.set('server/discover', discover);
  handlers.set(
    'subscriptions/listen',
    listenHandler({ changes$: setup.changes$, ...(setup.mayHear === undefined ? {} : { mayHear: setup.mayHear }), ending$: setup.ending$, capabilities, ...(tasksFeature === undefined ? {} : { tasks: tasksFeature }) }, setup.options.maxResourceSubscriptions ?? 1000),
  );
  const options = setup.options;
  return new ModernServing({
    supported,
    acceptsLegacy: setup.acceptsLegacy,
    handlers,
    capabilities,
    serverInfo: setup.serverInfo,
    cache: { ttlMs: options.cache?.ttlMs ?? 0, cacheScope: options.cache?.cacheScope ?? 'private' },
    sealer: createStateSealer({
      keys: options.stateKeys ?? [randomStateKey()],
      ...(options.stateTtlMs === undefined ? {} : { ttlMs: options.stateTtlMs }),
      ...(setup.clock === undefined ? {} : { clock: setup.clock }),
    }),
    untimed: UNTIMED_METHODS,
    ...(setup.extensionMethods === undefined ? {} : { extensionMethods: setup.extensionMethods }),
    checkMirror: mirrorCheck(setup.tools.tool),
  });
}

/**
 * The check of the headers a modern HTTP client mirrors from a request's arguments (those the schema of the tool it
 * addresses marks `x-mcp-header`; the method's declaration names the arguments field, `paramHeaders`): a
 * problem's message, or `undefined` when they agree or the tool mirrors none.
 */
function mirrorCheck(tool: ModernToolHooks['tool']): NonNullable<ModernServingOptions['checkMirror']> {
  return (method, params, mirror) => {
    const declaration = declarationOf(method);
    const field = declaration?.modern?.paramHeaders;
    if (field === undefined) return undefined;
    const name = targetIn(declaration?.target, params);
    const entry = name === undefined ? undefined : tool(name);
    if (entry === undefined || entry.headers.length === 0) return undefined;
    const args = params?.[field];
    return checkParamHeaders(mirror, entry.headers, typeof args === 'object' && args !== null ? (args as JsonObject) : undefined)?.message;
  };
}
