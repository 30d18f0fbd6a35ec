/**
 * MCP Apps on the host side (`io.modelcontextprotocol/ui`, SEP-1865): given a tool, read the view it links, with
 * the settings to enforce around it; call tools on behalf of a view only when they are meant for it. A host
 * declares the extension with `createClient({ extensions: { [APPS_EXTENSION]: APPS_CLIENT_SETTINGS } })`.
 *
 * Nothing from the server is trusted: a linked URI must be `ui://`, the contents must be the app MIME type with
 * text (or base64 text), and `_meta.ui` is reduced to what the SEP defines (domains that are not origins left
 * out), so the Content-Security-Policy built from it cannot be widened by a crafted value. Reading a view does not
 * need the server to have declared the extension: servers built with some SDKs link views without declaring it.
 */
import { type Observable, filter } from 'rxjs';
import type { PromiseRequestOptions } from '../../actors/handler-types.ts';
import { contentSecurityPolicy, permissionsPolicy } from '../../core/apps/view-policy.ts';
import { decodeBase64url, utf8Text } from '../../core/bytes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import {
  APPS_EXTENSION,
  APP_MIME_TYPE,
  UI_SCHEME,
  type UiResourceMeta,
  isAppMimeType,
  isVisibleTo,
  readUiResourceMeta,
  uiResourceUriOf,
  visibilityOf,
} from '../../core/protocol/apps.ts';
import type { ResourceContents } from '../../core/protocol/content.ts';
import { isJsonObject } from '../../core/protocol/guards.ts';
import type { Resource } from '../../core/protocol/resources.ts';
import type { CallToolResult, Tool } from '../../core/protocol/tools.ts';
import { serverExtension } from '../extensions.ts';
import type { CallToolOptions, ClientSession } from '../session-api.ts';

/** What went wrong: no view linked, a resource that is not an app, a tool a view may not call. */
export type AppsErrorCode = 'NoUiResource' | 'NotAnApp' | 'ToolNotForApps';

/** A view that cannot be shown, or a call a view may not make; nothing of it was used. */
export class AppsError extends Error {
  override readonly name = 'AppsError';
  constructor(
    readonly code: AppsErrorCode,
    /** The tool or resource concerned. */
    readonly subject: string,
    message: string,
  ) {
    super(message);
  }
}

/** A view, read and checked, with what the host enforces around it. */
export interface UiResource {
  readonly uri: string;
  /** The HTML document to load into the sandboxed iframe. */
  readonly html: string;
  /** Its `_meta.ui` (the contents item's, else the result's, else the listing entry's), reduced to the SEP's fields. */
  readonly ui: UiResourceMeta;
  /** The Content-Security-Policy to run the document under (see `contentSecurityPolicy`). */
  readonly contentSecurityPolicy: string;
  /** The iframe's `allow` attribute for the permissions it asked for (`""`: none). */
  readonly permissionsPolicy: string;
}

export interface ReadUiResourceOptions extends PromiseRequestOptions {
  /** The resource's `resources/list` entry, whose `_meta.ui` applies when the read answer carries none. */
  readonly listed?: Resource;
}

export interface AppsClient {
  /** Whether the server declared the extension (a server may link views without declaring it). */
  readonly available: boolean;
  /** Reads the view a tool links (or the one at a `ui://` URI); throws `AppsError` when there is none to show. */
  readUiResource(target: Tool | string, options?: ReadUiResourceOptions): Promise<UiResource>;
  /** The server's listed UI resources (`ui://`, app MIME type), paged lazily. */
  uiResources$(): Observable<Resource>;
  listUiResources(): Promise<Resource[]>;
  /**
   * Calls a tool for a view: only a tool this server lists and whose visibility includes `app` (the host's duty
   * under the SEP), else `AppsError` `ToolNotForApps` without a call. Looks the tool up in a fresh listing.
   */
  callToolForApp(name: string, args?: JsonObject, options?: CallToolOptions & PromiseRequestOptions): Promise<CallToolResult>;
}

/** The MCP Apps host API over a connected session. */
export function createAppsClient(session: ClientSession): AppsClient {
  const isUiResource = (resource: Resource): boolean => resource.uri.startsWith(UI_SCHEME) && isAppMimeType(resource.mimeType);
  return {
    get available() {
      return serverExtension(session, APPS_EXTENSION) !== undefined;
    },
    async readUiResource(target, options = {}) {
      const uri = typeof target === 'string' ? (target.startsWith(UI_SCHEME) ? target : undefined) : uiResourceUriOf(target);
      const subject = typeof target === 'string' ? target : target.name;
      if (uri === undefined) throw new AppsError('NoUiResource', subject, `${subject} links no ui:// resource`);
      const { listed, ...requestOptions } = options;
      const result = await session.readResource(uri, requestOptions);
      const contents = result.contents.find((item) => item.uri === uri) ?? (result.contents.length === 1 ? result.contents[0] : undefined);
      if (contents === undefined) throw new AppsError('NotAnApp', uri, `The server's answer to resources/read holds no contents for ${uri}`);
      if (!isAppMimeType(contents.mimeType)) {
        throw new AppsError('NotAnApp', uri, `${uri} is ${JSON.stringify(contents.mimeType ?? 'without a MIME type')}, not ${APP_MIME_TYPE}`);
      }
      const html = htmlOf(contents);
      const ui = readUiResourceMeta(uiMetaOf(contents._meta) ?? uiMetaOf(result._meta) ?? uiMetaOf(listed?._meta));
      return { uri, html, ui, contentSecurityPolicy: contentSecurityPolicy(ui.csp), permissionsPolicy: permissionsPolicy(ui.permissions) };
    },
    uiResources$() {
      return session.resources$().pipe(filter(isUiResource));
    },
    async listUiResources() {
      return (await session.listResources()).filter(isUiResource);
    },
    async callToolForApp(name, args, options) {
      const tool = (await session.listTools()).find((listed) => listed.name === name);
      if (tool === undefined) throw new AppsError('ToolNotForApps', name, `${name} is not a tool of this server`);
      if (!isVisibleTo(tool, 'app')) {
        throw new AppsError('ToolNotForApps', name, `${name} is not visible to apps (its visibility is ${JSON.stringify(visibilityOf(tool))})`);
      }
      return session.callTool(name, args, options);
    },
  };
}

function uiMetaOf(meta: JsonObject | undefined): unknown {
  const ui = meta?.['ui'];
  return isJsonObject(ui) ? ui : undefined;
}

/** The document's text: `text`, or a base64 `blob` decoded as UTF-8. */
function htmlOf(contents: ResourceContents): string {
  if ('text' in contents && typeof contents.text === 'string') return contents.text;
  const blob = (contents as { blob?: unknown }).blob;
  const bytes = typeof blob === 'string' ? decodeBase64url(blob.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')) : undefined;
  if (bytes === undefined) throw new AppsError('NotAnApp', contents.uri, `${contents.uri} came without HTML text or base64 content`);
  return utf8Text(bytes);
}
