/**
 * Capability shapes for the legacy revisions (the union of 2024-11-05 through 2025-11-25). Fields a revision
 * does not know are simply absent on the wire.
 */
import type { JsonObject } from '../jsonrpc.ts';
import { isJsonObject } from './guards.ts';

export interface ClientCapabilities {
  readonly experimental?: { readonly [name: string]: JsonObject };
  readonly roots?: { readonly listChanged?: boolean };
  readonly sampling?: { readonly context?: JsonObject; readonly tools?: JsonObject };
  readonly elicitation?: { readonly form?: JsonObject; readonly url?: JsonObject };
  readonly tasks?: TaskCapabilities;
  readonly extensions?: { readonly [id: string]: JsonObject };
}

export interface ServerCapabilities {
  readonly experimental?: { readonly [name: string]: JsonObject };
  readonly logging?: JsonObject;
  readonly completions?: JsonObject;
  readonly prompts?: { readonly listChanged?: boolean };
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean };
  readonly tools?: { readonly listChanged?: boolean };
  readonly tasks?: TaskCapabilities;
  readonly extensions?: { readonly [id: string]: JsonObject };
}

export interface TaskCapabilities {
  readonly list?: JsonObject;
  readonly cancel?: JsonObject;
  readonly requests?: { readonly [group: string]: { readonly [method: string]: JsonObject } };
}

/** Either side's declared capabilities, as the method table reads them. */
export type AnyCapabilities = ClientCapabilities | ServerCapabilities;

/** Implementation info (`clientInfo` / `serverInfo`). */
export interface Implementation {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: readonly JsonObject[];
}

export function isImplementation(value: unknown): value is Implementation {
  return isJsonObject(value) && typeof value['name'] === 'string' && typeof value['version'] === 'string';
}
