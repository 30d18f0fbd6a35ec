/**
 * Extensions on the client side: what the server declared, and requests to an extension's methods. A client
 * declares its own extensions with `createClient({ extensions })`. An extension request goes through the session's
 * ordinary path (its interceptors, timeouts, cancellation, the modern envelope); here it is checked first against
 * the extension's declaration: the server must have declared the extension and the method must exist in the
 * session's era, else it fails locally (`CapabilityNotNegotiated`, `MethodNotInRevision`) and is never sent; the
 * answer must pass the declaration's result guard, else `ProtocolViolation`.
 */
import type { PromiseRequestOptions } from '../actors/handler-types.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { MethodDeclaration } from '../core/protocol/declarations/declaration.ts';
import { type ExtensionDefinition, type ExtensionSettings, extensionSettings } from '../core/protocol/extensions.ts';
import type { ClientSession } from './session-api.ts';

/** The settings the server declared for extension `id` (from `initialize` or `server/discover`), if it did. */
export function serverExtension(session: ClientSession, id: string): ExtensionSettings | undefined {
  return extensionSettings(session.serverCapabilities, id);
}

/** Sends one of an extension's requests (see the module comment for the checks). */
export async function extensionRequest<P extends JsonObject | undefined, R>(
  session: ClientSession,
  extension: ExtensionDefinition,
  declaration: MethodDeclaration<P, R>,
  params: P,
  options?: PromiseRequestOptions,
): Promise<R> {
  const { method } = declaration;
  if (!extension.methods.includes(declaration as MethodDeclaration)) throw new TypeError(`${method} is not a method of extension ${extension.id}`);
  if (serverExtension(session, extension.id) === undefined) {
    throw new LocalError('CapabilityNotNegotiated', `${method} needs the ${extension.id} extension, which the server did not declare`);
  }
  const era = session.session.era;
  if ((era === 'modern' ? declaration.modern : declaration.legacy) === undefined) {
    throw new LocalError('MethodNotInRevision', `${method} (extension ${extension.id}) does not exist in the ${era} era`);
  }
  const result: unknown = await session.session.request<JsonObject>(method, params ?? {}, options);
  if (declaration.result !== undefined && !declaration.result(result)) {
    throw new LocalError('ProtocolViolation', `The server's answer to ${method} is not a ${method} result`);
  }
  return result as R;
}
