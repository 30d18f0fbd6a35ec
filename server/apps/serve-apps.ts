/**
 * The MCP Apps extension on a server: `createServer({ extensions: [apps({ resources })] })` declares
 * `io.modelcontextprotocol/ui` (`{}`, in `initialize` and `server/discover` alike) and serves each UI resource
 * through the ordinary resource catalog, listed and read like any other (`resources/read` answers the one
 * contents item built at declaration, in the modern era with the server's caching hints).
 *
 * Tools stay ordinary tools: `appToolMeta(resource)` is the `_meta` that links one to its view, so the tool
 * works unchanged for a host without the extension, which ignores the link and shows the tool's `content` (the
 * SEP's graceful degradation: a linked tool must still answer meaningful content). A handler that wants to answer
 * differently asks `clientSupportsApps(ctx)`: what the requester declared, the legacy session's or the modern
 * request's own.
 */
import type { FeatureContext } from '../../actors/features/feature-context.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import {
  DEPRECATED_RESOURCE_URI_KEY,
  UI_SCHEME,
  type UiVisibility,
  appsExtension,
  declaresApps,
  isUiVisibility,
} from '../../core/protocol/apps.ts';
import type { ServerExtension } from '../server-api.ts';
import type { AppResource } from './app-resource.ts';

export interface AppsOptions {
  /** The UI resources the server serves (declared with `appResource`). */
  readonly resources: readonly AppResource[];
}

/** The extension with its UI resources (a URI given twice is refused). */
export function apps(options: AppsOptions): ServerExtension {
  const byUri = new Map<string, AppResource>();
  for (const resource of options.resources) {
    if (byUri.has(resource.uri)) throw new TypeError(`The UI resource ${resource.uri} is given twice`);
    byUri.set(resource.uri, resource);
  }
  return {
    definition: appsExtension,
    settings: {},
    handlers: {},
    attach(server) {
      for (const resource of byUri.values()) {
        const { contents } = resource;
        server.resource(resource.definition, () => contents);
      }
    },
  };
}

export interface AppToolOptions {
  /** Who may call the tool (default both): `["app"]` for a tool only its view calls, `["model"]` for one the view must not. */
  readonly visibility?: readonly UiVisibility[];
}

/**
 * The `_meta` linking a tool to its view: `{ ui: { resourceUri, visibility? }, "ui/resourceUri": uri }` (the flat
 * key is the deprecated spelling hosts written before the nested one read). Spread it with the tool's own `_meta`.
 */
export function appToolMeta(resource: AppResource | string, options: AppToolOptions = {}): JsonObject {
  const uri = typeof resource === 'string' ? resource : resource.uri;
  if (typeof uri !== 'string' || !uri.startsWith(UI_SCHEME)) throw new TypeError(`A tool links a ui:// resource (got ${JSON.stringify(uri)})`);
  const { visibility } = options;
  if (visibility !== undefined) {
    if (!Array.isArray(visibility) || visibility.length === 0 || !visibility.every(isUiVisibility) || new Set(visibility).size !== visibility.length) {
      throw new TypeError(`visibility must list "model", "app" or both, each once (got ${JSON.stringify(visibility)})`);
    }
  }
  const ui = visibility === undefined ? { resourceUri: uri } : { resourceUri: uri, visibility: [...visibility] };
  return { ui, [DEPRECATED_RESOURCE_URI_KEY]: uri };
}

/**
 * Whether the requester renders MCP Apps: it declared `io.modelcontextprotocol/ui` with `text/html;profile=mcp-app`
 * among its `mimeTypes` (the legacy session's capabilities, or the modern request's own).
 */
export function clientSupportsApps(context: Pick<FeatureContext, 'client'>): boolean {
  return declaresApps(context.client.capabilities);
}
