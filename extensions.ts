/**
 * rxmcp/extensions: writing an MCP extension of your own (SEP-2133): its methods declared as data, the
 * definition a server serves and a client declares, the typed request to it. See docs/extensions.md.
 *
 * A server or client author who only uses an extension rxmcp ships needs none of this: `rxmcp/skills` and
 * `rxmcp/apps` (and their `/client` halves) hand over a ready definition. Kept off the root because an extension's
 * declarations enter the same method table the core's do: that is a second, smaller audience with its own page.
 * The types (`ExtensionDefinition`, `MethodDeclaration`, ...) are on the root too, where `createServer` takes them.
 */
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
  type MethodDeclaration,
  type RequestDeclaration,
} from './core/protocol/declarations/declaration.ts';
export { extensionRequest, serverExtension } from './client/extensions.ts';
export type { ServerExtension } from './server/server-api.ts';
