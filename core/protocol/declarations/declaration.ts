/**
 * What one MCP method is, said once: its legacy-era rule, its modern-era flags, the item it addresses, and its
 * param/result guards and types. Everything the code knows per method is read from these declarations: the
 * method table (methods.ts), the modern method sets (modern.ts), the `Mcp-Name` and `Mcp-Param-*` mirrors
 * (header-mirror.ts), interceptor targets and scopes, the step-up check, span names and attributes, the keys of
 * input requests and the client's typed calls. Adding a method is one declaration in its family's file (this
 * folder) plus the feature that serves it.
 */
import type { JsonObject } from '../../jsonrpc.ts';
import type { ClientCapabilities, ServerCapabilities } from '../capabilities.ts';
import type { LegacyRevision } from '../versions.ts';

export type Role = 'client' | 'server';

/** A method's legacy-era rule, as the method table hands it to the router and the capability checks. */
export interface MethodRule {
  readonly kind: 'request' | 'notification';
  /** Which role sends it. */
  readonly sender: Role | 'both';
  readonly since: LegacyRevision;
  /** The last revision that still has it (legacy era). */
  readonly until?: LegacyRevision;
  /** May flow before the handshake completes. */
  readonly beforeHandshake?: boolean;
  /**
   * For requests: the receiver's capability that must be declared. For notifications: the sender's own.
   * Returns a human-readable name of the missing capability, or undefined when satisfied.
   */
  readonly requires?: (capabilities: ServerCapabilities & ClientCapabilities, params: JsonObject | undefined, revision: LegacyRevision) => string | undefined;
}

/** The legacy rule as declared: the kind is said once, on the declaration itself. */
export type LegacyRule = Omit<MethodRule, 'kind'>;

/** How a method takes part in the modern era (2026-07-28). */
export interface ModernFlags {
  /** Which role sends it. In this era every request is the client's; the server's needs are input requests. */
  readonly sender: Role | 'both';
  /** The server capability it belongs to: a server that did not declare it has no such method (-32601). */
  readonly serverCapability?: keyof ServerCapabilities;
  /** Its answer may be an `InputRequiredResult` (a multi round-trip request). */
  readonly inputCapable?: boolean;
  /**
   * Its complete results carry `ttlMs` and `cacheScope`, so a client may keep them until they expire. `list`
   * names what a cached result goes stale with: `tools`, `prompts` or `resources` (that list's
   * `list_changed` notification drops it), or a name of its own for results no list covers.
   */
  readonly cacheable?: { readonly list: string };
  /**
   * It runs until the client or the server ends it (a listen stream), so no handler timeout applies to it.
   */
  readonly untimed?: boolean;
  /** The params field the `Mcp-Name` header mirrors; absent when the method has no `Mcp-Name`. */
  readonly nameHeader?: string;
  /**
   * The params field holding the arguments of the tool the request addresses (its `target`): the arguments that
   * tool's `inputSchema` marks `x-mcp-header` are mirrored as `Mcp-Param-*` headers, and checked by the server.
   */
  readonly paramHeaders?: string;
  /**
   * Present for an input request: not a wire message in this era, it travels only inside an
   * `InputRequiredResult`, and the client must have declared what it needs.
   */
  readonly input?: InputNeeds;
  /** Exists only under this extension (served only by servers that enable it; -32601 otherwise). */
  readonly extension?: string;
}

/** What an input request needs from the client in the modern era. */
export interface InputNeeds {
  /**
   * What the default keys of its requests in an `InputRequiredResult` start with (`elicitation-1`,
   * `elicitation-2`...). Default: the method's family, the part before its first `/`.
   */
  readonly key?: string;
  /** The capabilities it needs, as the -32021 error's `requiredCapabilities` names them. */
  readonly required: (params: JsonObject | undefined) => ClientCapabilities;
  /** Whether the capabilities a request declared cover it. */
  readonly declared: (capabilities: ClientCapabilities, params: JsonObject | undefined) => boolean;
}

/** What kind of item a request addresses: a tool, a prompt or a resource of the server's catalog. */
export type TargetItem = 'tool' | 'prompt' | 'resource';

/** The catalog registry whose entries' `requires` rules apply to a target (`resources`: a resource, else the first template matching the URI). */
export type AccessRegistry = 'tools' | 'prompts' | 'resources';

/**
 * The item a request addresses, named by one of its params. Interceptors see its value as `request.target` and
 * their `tool`, `prompt` and `resource` scopes match it; telemetry names spans after it.
 */
export interface MethodTarget {
  /** The params field whose value (a string) names the item: `name` for a tool or prompt, `uri` for a resource. */
  readonly field: string;
  readonly item: TargetItem;
  /**
   * Where the item's access rule is found: the request is refused for a missing scope by that rule, and a medium
   * that must fix its answer's status first (Streamable HTTP) asks before any handler runs (step-up). Absent: no
   * access rule applies to the request (`resources/unsubscribe`).
   */
  readonly access?: AccessRegistry;
  /**
   * The span name, after the MCP semantic conventions: `name` (`<method> <target>`, a target of low cardinality,
   * which metrics carry as well) or `opt-in` (`<method>`, and `<method> <target>` only when the tracing asks for
   * it: URIs are of high cardinality). Absent: `<method>`.
   */
  readonly span?: 'name' | 'opt-in';
}

/** A runtime check that an untrusted value has the shape `T`. */
export type Guard<T> = (value: unknown) => value is T;

/**
 * One method. `P` and `R` are its params and result types (`R` is `undefined` for notifications); the guards,
 * when given, check untrusted values against them.
 */
export interface MethodDeclaration<P = unknown, R = unknown> {
  readonly method: string;
  readonly kind: 'request' | 'notification';
  /** Absent: the method does not exist in the legacy era (2024-11-05 .. 2025-11-25). */
  readonly legacy?: LegacyRule;
  /** Absent: the method does not exist in the modern era (2026-07-28). */
  readonly modern?: ModernFlags;
  /** The item a request of this method addresses (both eras); absent when it names none. */
  readonly target?: MethodTarget;
  readonly params?: Guard<P>;
  readonly result?: Guard<R>;
}

/** Declares a request; the type arguments name its params and result. */
export function request<P = JsonObject | undefined, R = JsonObject>(
  method: string,
  parts: Omit<MethodDeclaration<P, R>, 'method' | 'kind'>,
): MethodDeclaration<P, R> {
  return { method, kind: 'request', ...parts };
}

/** Declares a notification; the type argument names its params. */
export function notification<P = JsonObject | undefined>(
  method: string,
  parts: Omit<MethodDeclaration<P, undefined>, 'method' | 'kind' | 'result'>,
): MethodDeclaration<P, undefined> {
  return { method, kind: 'notification', ...parts };
}

/** The params type a declaration names. */
export type ParamsOf<D> = D extends MethodDeclaration<infer P, unknown> ? P : never;

/** The result type a declaration names. */
export type ResultOf<D> = D extends MethodDeclaration<unknown, infer R> ? R : never;

/** A request's declaration, as the typed calls (`session.request(declaration, params)`) take it. */
export type RequestDeclaration = MethodDeclaration<unknown, object>;

/** The value of a target's field in `params` (the tool or prompt name, the resource URI), when it is a string. */
export function targetIn(target: MethodTarget | undefined, params: unknown): string | undefined {
  if (target === undefined || typeof params !== 'object' || params === null) return undefined;
  const value = (params as Readonly<Record<string, unknown>>)[target.field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The common `requires` rule: a capability (or a flag under it, `resources.subscribe`) must be declared.
 * Truthiness, as the spec words it: a flag set to `false` is not declared.
 */
export function capability(path: string): NonNullable<MethodRule['requires']> {
  const steps = path.split('.');
  return (capabilities) => {
    let value: unknown = capabilities;
    for (const step of steps) value = typeof value === 'object' && value !== null ? (value as Readonly<Record<string, unknown>>)[step] : undefined;
    return value ? undefined : path;
  };
}
