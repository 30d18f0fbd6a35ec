/**
 * Every MCP method this library knows, one declaration each (grouped by family in this folder), and the
 * tables computed from them: the legacy method table (methods.ts), the modern method sets, input needs and
 * input keys (modern.ts) and the client cache's lists; the targets and `Mcp-Name` fields as tables too, for the
 * specs. Each function takes the declarations as a parameter so a spec can show what one more declaration changes.
 *
 * What is read per request about one method (its target, its `Mcp-Name` field, its span name, where its access
 * rule is) is read from its declaration through {@link declarationOf}: one Map get, for the protocol's methods
 * and for those of every extension defined in the process alike.
 */
import type { ServerCapabilities } from '../capabilities.ts';
import { completionMethods } from './completion.ts';
import type { InputNeeds, MethodDeclaration, MethodRule, MethodTarget } from './declaration.ts';
import { discoverMethods } from './discover.ts';
import { elicitationMethods } from './elicitation.ts';
import { lifecycleMethods } from './lifecycle.ts';
import { loggingMethods } from './logging.ts';
import { promptsMethods } from './prompts.ts';
import { resourcesMethods } from './resources.ts';
import { rootsMethods } from './roots.ts';
import { samplingMethods } from './sampling.ts';
import { subscriptionsMethods } from './subscriptions.ts';
import { tasksMethods } from './tasks.ts';
import { toolsMethods } from './tools.ts';

export const METHOD_DECLARATIONS: readonly MethodDeclaration[] = [
  ...lifecycleMethods,
  ...discoverMethods,
  ...toolsMethods,
  ...resourcesMethods,
  ...subscriptionsMethods,
  ...promptsMethods,
  ...completionMethods,
  ...loggingMethods,
  ...samplingMethods,
  ...elicitationMethods,
  ...rootsMethods,
  ...tasksMethods,
];

/** The protocol's declarations by method, then those of the extensions defined in this process. */
const byMethod = new Map<string, MethodDeclaration>(METHOD_DECLARATIONS.map((declaration) => [declaration.method, declaration]));
const protocolMethods: ReadonlySet<string> = new Set(byMethod.keys());

/**
 * The declaration of `method`: the protocol's, or that of an extension defined in this process
 * (`defineExtension`); undefined for a method nobody declared.
 */
export function declarationOf(method: string): MethodDeclaration | undefined {
  return byMethod.get(method);
}

/**
 * Makes an extension's methods known to {@link declarationOf} (`defineExtension` calls it), so that what is
 * read per method (interceptor targets and scopes, step-up, span names, the `Mcp-Name` mirror) applies to them
 * as it does to the protocol's. They stay out of the protocol's tables above. A protocol method keeps its own
 * declaration; a method defined again (the same extension defined anew) takes the later declaration.
 */
export function addExtensionDeclarations(declarations: readonly MethodDeclaration[]): void {
  for (const declaration of declarations) if (!protocolMethods.has(declaration.method)) byMethod.set(declaration.method, declaration);
}

/** The legacy-era method table: each legacy method's rule, with its kind. */
export function legacyMethodTable(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, MethodRule> {
  const table = new Map<string, MethodRule>();
  for (const { method, kind, legacy } of declarations) if (legacy !== undefined) table.set(method, { kind, ...legacy });
  return table;
}

function modernMethods(declarations: readonly MethodDeclaration[], keep: (declaration: MethodDeclaration) => boolean | undefined): ReadonlySet<string> {
  return new Set(declarations.filter((declaration) => declaration.modern !== undefined && keep(declaration) === true).map((d) => d.method));
}

/** The client requests a modern server answers (extension methods included; they have no handler unless enabled). */
export function modernClientRequests(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlySet<string> {
  return modernMethods(declarations, (d) => d.kind === 'request' && d.modern?.sender === 'client');
}

/** The server capability each modern method needs, for the methods that need one. */
export function modernServerCapabilities(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, keyof ServerCapabilities> {
  const needs = new Map<string, keyof ServerCapabilities>();
  for (const { method, modern } of declarations) if (modern?.serverCapability !== undefined) needs.set(method, modern.serverCapability);
  return needs;
}

/** The modern requests whose answer may be an `InputRequiredResult`. */
export function inputCapableMethods(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlySet<string> {
  return modernMethods(declarations, (d) => d.modern?.inputCapable);
}

/** The modern requests whose complete results carry caching hints. */
export function cacheableMethods(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlySet<string> {
  return modernMethods(declarations, (d) => d.modern?.cacheable !== undefined);
}

/** Methods that run until one side ends them, with no handler timeout (see `ModernFlags.untimed`). */
export function untimedMethods(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlySet<string> {
  return modernMethods(declarations, (d) => d.modern?.untimed === true);
}

/** For each cacheable method, what its cached results go stale with (see `ModernFlags.cacheable`). */
export function cacheLists(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, string> {
  const lists = new Map<string, string>();
  for (const { method, modern } of declarations) if (modern?.cacheable !== undefined) lists.set(method, modern.cacheable.list);
  return lists;
}

/** The input requests of the modern era, with what each needs from the client. */
export function inputRequestNeeds(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, InputNeeds> {
  const needs = new Map<string, InputNeeds>();
  for (const { method, modern } of declarations) if (modern?.input !== undefined) needs.set(method, modern.input);
  return needs;
}

/** The part of a method's name before its first `/` (`elicitation` of `elicitation/create`). */
function familyOf(method: string): string {
  const slash = method.indexOf('/');
  return slash < 0 ? method : method.slice(0, slash);
}

/** What the default keys of each input request start with (`InputNeeds.key`, else the method's family). */
export function inputKeyPrefixes(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, string> {
  const prefixes = new Map<string, string>();
  for (const { method, modern } of declarations) if (modern?.input !== undefined) prefixes.set(method, modern.input.key ?? familyOf(method));
  return prefixes;
}

/** The target of each method that addresses one (`MethodDeclaration.target`). */
export function methodTargets(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, MethodTarget> {
  const targets = new Map<string, MethodTarget>();
  for (const { method, target } of declarations) if (target !== undefined) targets.set(method, target);
  return targets;
}

/** Which params field `Mcp-Name` mirrors, per method; methods not in it carry no `Mcp-Name`. */
export function nameHeaderFields(declarations: readonly MethodDeclaration[] = METHOD_DECLARATIONS): ReadonlyMap<string, string> {
  const fields = new Map<string, string>();
  for (const { method, modern } of declarations) if (modern?.nameHeader !== undefined) fields.set(method, modern.nameHeader);
  return fields;
}
