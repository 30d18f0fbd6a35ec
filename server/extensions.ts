/**
 * The extensions a server built by `createServer` serves (`ServerOptions.extensions`): each extension's handlers
 * join the one handler table both eras serve, so its requests take the path of core methods (routing, in-flight
 * limits, cancellation, interceptors, the request log); what is particular to extensions is checked here, around
 * each handler:
 * - the method exists in the request's era (a method declared for one era only is -32601 in the other);
 * - its params pass the declaration's guard (-32602);
 * - a method the definition lists in `requiresClientDeclaration` needs the requester to have declared the
 *   extension: the modern request's own `_meta` client capabilities, the legacy session's `initialize` ones
 *   (-32021 with `requiredCapabilities` otherwise, in both eras).
 * The server declares each one in `capabilities.extensions` with its settings (modern.ts carries them into
 * `server/discover`), and the modern router learns the methods from `modernMethods`.
 */
import type { NotificationHandler, RequestContext, RequestHandler } from '../actors/handler-types.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { type ExtensionSettings, extensionSettings, missingExtensionError } from '../core/protocol/extensions.ts';
import type { MethodDeclaration } from '../core/protocol/declarations/declaration.ts';
import { isLegacyRevision } from '../core/protocol/versions.ts';
import type { ServerExtension } from './server-api.ts';

export interface InstalledExtensions {
  /** `capabilities.extensions` as the server declares it. */
  readonly declared: Readonly<Record<string, ExtensionSettings>>;
  /** The extensions' modern-era client requests, by method, for the modern router. */
  readonly modernMethods: ReadonlyMap<string, MethodDeclaration>;
}

/**
 * Puts the extensions' handlers into the server's tables. Refuses (at construction) an extension declared twice, a
 * method another extension or the core already serves, a handler for a method its definition lacks, and a client
 * request of the definition left without a handler.
 */
export function installExtensions(
  requests: Map<string, RequestHandler>,
  notifications: Map<string, NotificationHandler>,
  extensions: readonly ServerExtension[],
): InstalledExtensions {
  const declared: Record<string, ExtensionSettings> = {};
  const modernMethods = new Map<string, MethodDeclaration>();
  for (const extension of extensions) {
    const { id } = extension.definition;
    if (id in declared) throw new TypeError(`Extension ${id} is given twice`);
    declared[id] = Object.freeze({ ...extension.settings });
    const byMethod = new Map(extension.definition.methods.map((declaration) => [declaration.method, declaration]));
    const gated = new Set(extension.definition.requiresClientDeclaration ?? []);
    for (const [method, handler] of Object.entries(extension.handlers)) {
      const declaration = byMethod.get(method);
      if (declaration === undefined || declaration.kind !== 'request') throw new TypeError(`Extension ${id} declares no request ${method}`);
      if (requests.has(method)) throw new TypeError(`${method} (extension ${id}) is already served by this server`);
      requests.set(method, guarded(id, declaration, gated.has(method), handler));
      if (declaration.modern !== undefined && declaration.modern.sender !== 'server') modernMethods.set(method, declaration);
    }
    for (const [method, handler] of Object.entries(extension.notifications ?? {})) {
      if (byMethod.get(method)?.kind !== 'notification') throw new TypeError(`Extension ${id} declares no notification ${method}`);
      if (notifications.has(method)) throw new TypeError(`${method} (extension ${id}) already has a handler on this server`);
      notifications.set(method, handler);
    }
  }
  return { declared: Object.freeze(declared), modernMethods };
}

/** The handler behind the checks its declaration implies. */
function guarded(id: string, declaration: MethodDeclaration, needsDeclaration: boolean, handler: RequestHandler): RequestHandler {
  const { method, params: guard } = declaration;
  return (params: JsonObject | undefined, request: RequestContext) => {
    const revision = request.session.revision;
    const legacy = declaration.legacy;
    const exists = request.modern !== undefined
      ? declaration.modern !== undefined
      : legacy !== undefined && (!isLegacyRevision(revision) || revision >= legacy.since) && (legacy.until === undefined || !isLegacyRevision(revision) || revision <= legacy.until);
    if (!exists) {
      throw new WireError(ErrorCode.MethodNotFound, `Method not found: ${method} (extension ${id}) does not exist in revision ${revision ?? 'unknown'}`);
    }
    if (needsDeclaration && extensionSettings(request.session.peerCapabilities, id) === undefined) {
      const error = missingExtensionError(id, method);
      throw new WireError(error.code, error.message, { data: error.data });
    }
    if (guard !== undefined && !guard(params)) throw new WireError(ErrorCode.InvalidParams, `Invalid params: not the params of ${method}`);
    return handler(params, request);
  };
}
