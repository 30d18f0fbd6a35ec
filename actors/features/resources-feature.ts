/**
 * `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and
 * `resources/unsubscribe`.
 *
 * A read matches static resources first (exact URI), then templates in registration order. A URI nothing
 * matches is a protocol error with the revision's not-found code (-32002 in the legacy era).
 */
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { ResourceContents } from '../../core/protocol/content.ts';
import type { ReadResourceResult } from '../../core/protocol/resources.ts';
import type { RequestHandler, SessionView } from '../handler-types.ts';
import type { ResourceReturn, ServerCatalog } from './catalog.ts';
import type { FeatureContext } from './feature-context.ts';
import { runFinished } from './handler-output.ts';
import { listHandler } from './list-handler.ts';
import { type AccessRule, checkAccess } from './access.ts';

/** Per-session resource subscriptions, kept by the server. */
export interface SubscriptionBook {
  subscribe(session: SessionView, uri: string): void;
  unsubscribe(session: SessionView, uri: string): void;
}

export interface ResourceRuntime {
  readonly context: (request: Parameters<RequestHandler>[1]) => FeatureContext;
  readonly subscriptions: SubscriptionBook;
  /** The code a missing resource is reported with (legacy: -32002). */
  readonly notFoundCode: (session: SessionView) => number;
}

function uriParam(params: Parameters<RequestHandler>[0], method: string): string {
  const uri = params?.['uri'];
  if (typeof uri !== 'string' || uri.length === 0) throw new WireError(ErrorCode.InvalidParams, `Invalid params: ${method} needs a string "uri"`);
  return uri;
}

export function resourceHandlers(catalog: ServerCatalog, pageSize: number, runtime: ResourceRuntime): Record<string, RequestHandler> {
  return {
    'resources/list': listHandler(catalog.resources, 'resources', pageSize),
    'resources/templates/list': listHandler(catalog.templates, 'resourceTemplates', pageSize),
    'resources/read': (params, request) => {
      const uri = uriParam(params, 'resources/read');
      // A string result takes the MIME type of what matched: the resource, or the template.
      const finish = (mimeType: string | undefined) => ({ finish: (value: ResourceReturn) => normaliseRead(uri, value, mimeType) });
      const notFound = (): WireError => new WireError(runtime.notFoundCode(request.session), `Resource not found: ${uri}`, { data: { uri } });
      const resource = catalog.resources.get(uri);
      if (resource !== undefined) {
        if (resource.access !== undefined) checkAccess(resource.access, request.auth, `resource ${uri}`, notFound);
        return runFinished(() => resource.read(uri, runtime.context(request)), finish(resource.definition.mimeType), request);
      }
      for (const entry of catalog.templates.values()) {
        const variables = entry.template.match(uri);
        if (variables === undefined) continue;
        if (entry.access !== undefined) checkAccess(entry.access, request.auth, `resource ${uri}`, notFound);
        return runFinished(() => entry.read(uri, variables, runtime.context(request)), finish(entry.definition.mimeType), request);
      }
      throw notFound();
    },
    'resources/subscribe': (params, request) => {
      const uri = uriParam(params, 'resources/subscribe');
      // Updates of what the caller may not read are not its business either.
      const rule = resourceRuleFor(catalog, uri);
      if (rule !== undefined) checkAccess(rule, request.auth, `resource ${uri}`, () => new WireError(runtime.notFoundCode(request.session), `Resource not found: ${uri}`, { data: { uri } }));
      runtime.subscriptions.subscribe(request.session, uri);
      return {};
    },
    'resources/unsubscribe': (params, request) => {
      runtime.subscriptions.unsubscribe(request.session, uriParam(params, 'resources/unsubscribe'));
      return {};
    },
  };
}

/**
 * The access rule a read of `uri` would apply: the resource's, or the first matching template's (none: anyone may).
 * Subscribing to a resource and hearing of its updates follow the same rule.
 */
export function resourceRuleFor(catalog: ServerCatalog, uri: string): AccessRule | undefined {
  return catalog.resources.get(uri)?.access ?? templateRuleFor(catalog, uri);
}

/** The access rule of the first template matching `uri` (the one a read would use), if it has one. */
function templateRuleFor(catalog: ServerCatalog, uri: string): AccessRule | undefined {
  if (catalog.resources.has(uri)) return undefined;
  for (const entry of catalog.templates.values()) if (entry.template.match(uri) !== undefined) return entry.access;
  return undefined;
}

/** Accepts a full result, a contents list, or a string (the text of the resource, with its MIME type). */
function normaliseRead(uri: string, value: ResourceReturn, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === 'string') {
    const contents: ResourceContents = mimeType === undefined ? { uri, text: value } : { uri, mimeType, text: value };
    return { contents: [contents] };
  }
  if (Array.isArray(value)) return { contents: value as ResourceContents[] };
  if (typeof value === 'object' && value !== null && Array.isArray((value as ReadResourceResult).contents)) return value as ReadResourceResult;
  throw new WireError(ErrorCode.InternalError, `Reading ${uri} returned neither contents nor a string`);
}
