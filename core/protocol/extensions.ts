/**
 * Extensions (SEP-2133): optional, identified additions to the protocol, negotiated through the `extensions` map of
 * either side's capabilities (`{ "<id>": <settings> }`, `{}` = supported with no settings). In the legacy era
 * (up to 2025-11-25) the maps travel in `initialize`; in the modern era (2026-07-28) the server's in
 * `server/discover` and the client's in each request's `_meta` client capabilities, so a modern server judges every
 * request on what that request declared.
 *
 * An extension is declared once, as data (`defineExtension`): its identifier and its methods, each a method
 * declaration in the style of `declarations/` (who sends it, its modern flags, its guards). The server and client
 * sides (server/extensions.ts, client/extensions.ts) take these definitions; nothing here knows a particular
 * extension. Defining one makes its methods' declarations known to `declarationOf` (declarations/index.ts), so
 * what is read per method (interceptor targets, step-up, span names, the `Mcp-Name` mirror) applies to them.
 */
import type { JsonObject } from '../jsonrpc.ts';
import type { AnyCapabilities, ClientCapabilities } from './capabilities.ts';
import type { MethodDeclaration } from './declarations/declaration.ts';
import { addExtensionDeclarations } from './declarations/index.ts';
import { isJsonObject } from './guards.ts';
import { missingCapabilityError } from './modern.ts';
import type { EnvelopeError } from './modern.ts';

/** An extension's settings as declared: a JSON object (`{}` when it has none). */
export type ExtensionSettings = JsonObject;

/** What an extension is, on the wire: its identifier and the methods it adds. */
export interface ExtensionDefinition {
  /** `<vendor-prefix>/<name>` (e.g. `io.modelcontextprotocol/skills`), as `_meta` keys are formed. */
  readonly id: string;
  /** Its requests and notifications, declared as core methods are (`request(...)`, `notification(...)`). */
  readonly methods: readonly MethodDeclaration[];
  /**
   * Methods a server answers only for a client that declared the extension (-32021 otherwise, naming the
   * extension in `requiredCapabilities`). Default none: a server that declares an extension serves its methods
   * to every client, as the skills extension asks.
   */
  readonly requiresClientDeclaration?: readonly string[];
}

// A `_meta`-style key with its mandatory prefix: dot-separated labels, a slash, then the name.
const EXTENSION_ID = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** Whether `id` is a well-formed extension identifier (a prefix, a slash, a name). */
export function isExtensionId(id: string): boolean {
  return EXTENSION_ID.test(id);
}

/**
 * Declares an extension. Refuses a malformed identifier, a method declared twice, and a method listed as
 * needing the client's declaration that the extension does not have. Its methods become known to
 * `declarationOf` (a protocol method of the same name keeps the protocol's declaration).
 */
export function defineExtension(definition: ExtensionDefinition): ExtensionDefinition {
  if (!isExtensionId(definition.id)) throw new TypeError(`"${definition.id}" is not an extension identifier (<prefix>/<name>, e.g. com.example/widgets)`);
  const methods = new Set<string>();
  for (const { method } of definition.methods) {
    if (methods.has(method)) throw new TypeError(`Extension ${definition.id} declares ${method} twice`);
    methods.add(method);
  }
  for (const method of definition.requiresClientDeclaration ?? []) {
    if (!methods.has(method)) throw new TypeError(`Extension ${definition.id} has no method ${method} to require its declaration for`);
  }
  const defined = Object.freeze({ ...definition, methods: Object.freeze([...definition.methods]) });
  addExtensionDeclarations(defined.methods);
  return defined;
}

/** The settings a side declared for extension `id`, or `undefined` when it did not declare it. */
export function extensionSettings(capabilities: AnyCapabilities | undefined, id: string): ExtensionSettings | undefined {
  const extensions: unknown = capabilities?.extensions;
  if (!isJsonObject(extensions)) return undefined;
  const settings = extensions[id];
  return isJsonObject(settings) ? settings : undefined;
}

/** Whether a side declared extension `id`. */
export function declaresExtension(capabilities: AnyCapabilities | undefined, id: string): boolean {
  return extensionSettings(capabilities, id) !== undefined;
}

/** `capabilities` with these extensions declared beside the ones it already has (given settings win). */
export function withExtensions<C extends AnyCapabilities>(capabilities: C, extensions: Readonly<Record<string, ExtensionSettings>>): C {
  if (Object.keys(extensions).length === 0) return capabilities;
  return { ...capabilities, extensions: { ...capabilities.extensions, ...extensions } };
}

/** The -32021 error of a request that needs extension `id` from a client that did not declare it. */
export function missingExtensionError(id: string, method: string): EnvelopeError {
  const required: ClientCapabilities = { extensions: { [id]: {} } };
  return missingCapabilityError(required, `${method} needs the ${id} extension, which this request did not declare`);
}
