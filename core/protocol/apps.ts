/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): wire shapes, guards and the extension's
 * declaration. A server publishes interactive views as `ui://` resources of MIME type `text/html;profile=mcp-app`,
 * each with its security settings in `_meta.ui` (`csp` domains, `permissions`, `domain`, `prefersBorder`); a tool
 * links one through its own `_meta.ui.resourceUri`, with `_meta.ui.visibility` saying whether the model, the view
 * (`app`) or both may call it. The host renders the view in a sandboxed iframe and talks to it over postMessage
 * (the `ui/*` dialect); nothing of that dialect travels on the MCP connection, so the extension adds no method.
 *
 * A host declares `{ mimeTypes: ["text/html;profile=mcp-app"] }` under the extension (the SEP makes `mimeTypes`
 * required); a server declares `{}`. Pure types and functions only; shapes are type aliases so they are assignable
 * to `JsonObject` (see pagination.ts).
 */
import type { ClientCapabilities } from './capabilities.ts';
import { defineExtension, extensionSettings } from './extensions.ts';
import { isJsonObject } from './guards.ts';
import type { Tool } from './tools.ts';

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an app's HTML (the profile parameter is part of the contract). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The URI scheme reserved for UI resources. */
export const UI_SCHEME = 'ui://';

/**
 * The flat tool `_meta` key the SEP deprecates in favour of `_meta.ui.resourceUri`. Servers built here write both,
 * so hosts written before the nested form still find the view; readers prefer the nested one.
 */
export const DEPRECATED_RESOURCE_URI_KEY = 'ui/resourceUri';

/** What a host declares under the extension: it renders HTML apps. */
export const APPS_CLIENT_SETTINGS: AppsClientSettings = Object.freeze({ mimeTypes: Object.freeze([APP_MIME_TYPE]) });

/** A host's settings for the extension. */
export type AppsClientSettings = {
  /** The view content types it renders; `text/html;profile=mcp-app` for HTML apps. */
  readonly mimeTypes: readonly string[];
};

/** Who may call a tool: the model (the agent), the app (the view, through its host, same server only). */
export type UiVisibility = 'model' | 'app';

/** Both, which is what an absent `visibility` means. */
export const DEFAULT_VISIBILITY: readonly UiVisibility[] = Object.freeze(['model', 'app']);

/** Origins a view may reach, one list per CSP directive family. Empty or absent: none. */
export type UiResourceCsp = {
  /** fetch, XHR, WebSocket (`connect-src`). */
  readonly connectDomains?: readonly string[];
  /** Scripts, styles, images, fonts, media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  readonly resourceDomains?: readonly string[];
  /** Nested iframes (`frame-src`). */
  readonly frameDomains?: readonly string[];
  /** The document's base URI (`base-uri`). */
  readonly baseUriDomains?: readonly string[];
};

/** An empty object: a permission is requested by being present. */
export type UiPermissionRequest = { readonly [key: string]: never };

/** Browser features a view asks for (the host may grant them through the iframe's `allow`). */
export type UiResourcePermissions = {
  readonly camera?: UiPermissionRequest;
  readonly microphone?: UiPermissionRequest;
  readonly geolocation?: UiPermissionRequest;
  readonly clipboardWrite?: UiPermissionRequest;
};

/** A UI resource's `_meta.ui`: its security and rendering settings. */
export type UiResourceMeta = {
  readonly csp?: UiResourceCsp;
  readonly permissions?: UiResourcePermissions;
  /** A dedicated sandbox origin; its format is the host's to define. */
  readonly domain?: string;
  /** Whether the host should draw a border and background around the view (absent: the host decides). */
  readonly prefersBorder?: boolean;
};

/** A tool's `_meta.ui`. */
export type UiToolMeta = {
  readonly resourceUri?: string;
  readonly visibility?: readonly UiVisibility[];
};

export const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
export const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

// A CSP host source naming an origin: http(s) or ws(s), a host (optionally `*.` first: any subdomain) or a bracketed
// IPv6 address, an optional port (or `*`), an optional path. No whitespace, `;`, `,` or quotes, so no value can
// end its directive or add a keyword.
const ORIGIN_SOURCE = /^(?:https?|wss?):\/\/(?:(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::(?:\d{1,5}|\*))?(?:\/[^\s;,'"]*)?$/;

/** Whether `source` is a domain a UI resource may declare: an origin (`https://cdn.example.com`, `https://*.example.com`). */
export function isCspSource(source: unknown): source is string {
  return typeof source === 'string' && ORIGIN_SOURCE.test(source);
}

export function isUiVisibility(value: unknown): value is UiVisibility {
  return value === 'model' || value === 'app';
}

/** Whether a host declared the extension with the HTML app type, in capabilities it sent. */
export function declaresApps(capabilities: ClientCapabilities | undefined): boolean {
  const mimeTypes = extensionSettings(capabilities, APPS_EXTENSION)?.['mimeTypes'];
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/** Whether a resource's MIME type is the app type (the type and parameter compared without case or spaces). */
export function isAppMimeType(mimeType: unknown): boolean {
  return typeof mimeType === 'string' && mimeType.replace(/\s+/g, '').toLowerCase() === APP_MIME_TYPE;
}

/** The `ui://` URI a tool links (`_meta.ui.resourceUri`, else the deprecated flat key), or undefined. */
export function uiResourceUriOf(tool: Pick<Tool, '_meta'>): string | undefined {
  const meta = tool._meta;
  if (meta === undefined) return undefined;
  const ui = meta['ui'];
  const nested = isJsonObject(ui) ? ui['resourceUri'] : undefined;
  const uri = nested ?? meta[DEPRECATED_RESOURCE_URI_KEY];
  return typeof uri === 'string' && uri.startsWith(UI_SCHEME) ? uri : undefined;
}

/** Who may call a tool: its `_meta.ui.visibility` (values it does not know left out), both when absent. */
export function visibilityOf(tool: Pick<Tool, '_meta'>): readonly UiVisibility[] {
  const ui = tool._meta?.['ui'];
  const visibility = isJsonObject(ui) ? ui['visibility'] : undefined;
  return Array.isArray(visibility) ? visibility.filter(isUiVisibility) : DEFAULT_VISIBILITY;
}

/** Whether `who` may call the tool. A host lists to its model only tools visible to `model`, and lets a view call only tools visible to `app`. */
export function isVisibleTo(tool: Pick<Tool, '_meta'>, who: UiVisibility): boolean {
  return visibilityOf(tool).includes(who);
}

/**
 * A `_meta.ui` read from a peer, reduced to what the SEP defines with the right types: domain lists keep only
 * origins (see `isCspSource`), permissions only the four known ones, anything else is left out.
 */
export function readUiResourceMeta(value: unknown): UiResourceMeta {
  if (!isJsonObject(value)) return {};
  const meta: { -readonly [K in keyof UiResourceMeta]: UiResourceMeta[K] } = {};
  const csp = value['csp'];
  if (isJsonObject(csp)) {
    const read: { -readonly [K in keyof UiResourceCsp]: UiResourceCsp[K] } = {};
    for (const key of CSP_KEYS) {
      const list = csp[key];
      if (Array.isArray(list)) read[key] = list.filter(isCspSource);
    }
    meta.csp = read;
  }
  const permissions = value['permissions'];
  if (isJsonObject(permissions)) {
    const read: { -readonly [K in keyof UiResourcePermissions]: UiResourcePermissions[K] } = {};
    for (const key of PERMISSION_KEYS) if (isJsonObject(permissions[key])) read[key] = {};
    meta.permissions = read;
  }
  if (typeof value['domain'] === 'string') meta.domain = value['domain'];
  if (typeof value['prefersBorder'] === 'boolean') meta.prefersBorder = value['prefersBorder'];
  return meta;
}

/** The extension: no method of its own (tools, resources and `_meta` carry it). */
export const appsExtension = defineExtension({ id: APPS_EXTENSION, methods: [] });

