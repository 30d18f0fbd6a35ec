/**
 * A UI resource of MCP Apps, declared once: its `ui://` URI, its HTML, and the settings a host enforces around it
 * (`csp`, `permissions`, `domain`, `prefersBorder`). Everything is checked when it is declared, so a mistake
 * surfaces at start-up with the field named, not in a host that quietly renders nothing: a URI outside `ui://`,
 * a document that is not HTML, a domain that is not an origin (a CSP source a host could not use as such), an
 * unknown permission. The listing entry and the `resources/read` answer are built here, once.
 */
import { utf8Bytes } from '../../core/bytes.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import {
  APP_MIME_TYPE,
  CSP_KEYS,
  PERMISSION_KEYS,
  UI_SCHEME,
  type UiResourceCsp,
  type UiResourceMeta,
  type UiResourcePermissions,
  isCspSource,
} from '../../core/protocol/apps.ts';
import type { Icon, TextResourceContents } from '../../core/protocol/content.ts';
import type { ReadResourceResult, Resource } from '../../core/protocol/resources.ts';

export interface AppResourceDefinition extends UiResourceMeta {
  /** `ui://<server>/<view>`, as tools link it. */
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly icons?: readonly Icon[];
  /** The view: one HTML5 document (`<!doctype html>` first), with its scripts and styles inline or from `csp.resourceDomains`. */
  readonly html: string;
  /** More `_meta` for the listing entry and the contents, beside `ui`. */
  readonly _meta?: JsonObject;
}

/** A declared UI resource (see `appResource`). */
export interface AppResource {
  readonly uri: string;
  /** Its `_meta.ui`, as declared. */
  readonly ui: UiResourceMeta;
  /** The entry `resources/list` shows (with `_meta.ui`, so a host can review it before any call). */
  readonly definition: Resource;
  /** The answer to `resources/read` (the contents carry `_meta.ui` too, which is what hosts read first). */
  readonly contents: ReadResourceResult;
}

const DOCUMENT_START = /^\s*(?:<!--[\s\S]*?-->\s*)*<!doctype html[\s>]/i;

/** Declares a UI resource; throws a `TypeError` naming what is wrong (see the module comment). */
export function appResource(definition: AppResourceDefinition): AppResource {
  const { uri, html } = definition;
  if (typeof uri !== 'string' || !uri.startsWith(UI_SCHEME) || uri.length === UI_SCHEME.length) {
    throw new TypeError(`An app's resource URI must use the ui:// scheme (got ${JSON.stringify(uri)})`);
  }
  if (typeof html !== 'string' || !DOCUMENT_START.test(html)) {
    throw new TypeError(`The HTML of ${uri} must be an HTML5 document starting with <!doctype html>`);
  }
  const ui = checkedMeta(uri, definition);
  const meta: JsonObject = Object.freeze({ ...definition._meta, ui });
  const entry: Resource = Object.freeze({
    uri,
    name: definition.name,
    ...(definition.title === undefined ? {} : { title: definition.title }),
    ...(definition.description === undefined ? {} : { description: definition.description }),
    mimeType: APP_MIME_TYPE,
    size: utf8Bytes(html).byteLength,
    ...(definition.icons === undefined ? {} : { icons: definition.icons }),
    _meta: meta,
  });
  const contents: TextResourceContents = Object.freeze({ uri, mimeType: APP_MIME_TYPE, text: html, _meta: meta });
  return Object.freeze({ uri, ui, definition: entry, contents: Object.freeze({ contents: Object.freeze([contents]) }) });
}

function checkedMeta(uri: string, definition: UiResourceMeta): UiResourceMeta {
  const ui: { -readonly [K in keyof UiResourceMeta]: UiResourceMeta[K] } = {};
  if (definition.csp !== undefined) ui.csp = checkedCsp(uri, definition.csp);
  if (definition.permissions !== undefined) ui.permissions = checkedPermissions(uri, definition.permissions);
  if (definition.domain !== undefined) {
    if (typeof definition.domain !== 'string' || definition.domain === '' || /\s/.test(definition.domain)) {
      throw new TypeError(`The domain of ${uri} must be a non-empty string without spaces (its format is the host's: see its documentation)`);
    }
    ui.domain = definition.domain;
  }
  if (definition.prefersBorder !== undefined) {
    if (typeof definition.prefersBorder !== 'boolean') throw new TypeError(`prefersBorder of ${uri} must be true or false`);
    ui.prefersBorder = definition.prefersBorder;
  }
  return Object.freeze(ui);
}

function checkedCsp(uri: string, csp: UiResourceCsp): UiResourceCsp {
  const unknown = Object.keys(csp).filter((key) => !(CSP_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) throw new TypeError(`csp of ${uri} has no field ${unknown.join(', ')} (known: ${CSP_KEYS.join(', ')})`);
  const checked: { -readonly [K in keyof UiResourceCsp]: UiResourceCsp[K] } = {};
  for (const key of CSP_KEYS) {
    const list = csp[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new TypeError(`csp.${key} of ${uri} must be a list of origins`);
    const bad = list.find((source) => !isCspSource(source));
    if (bad !== undefined) {
      throw new TypeError(`csp.${key} of ${uri}: ${JSON.stringify(bad)} is not an origin (scheme://host[:port], e.g. https://api.example.com or https://*.example.com)`);
    }
    checked[key] = Object.freeze([...new Set(list)]);
  }
  return Object.freeze(checked);
}

function checkedPermissions(uri: string, permissions: UiResourcePermissions): UiResourcePermissions {
  const checked: { -readonly [K in keyof UiResourcePermissions]: UiResourcePermissions[K] } = {};
  for (const [key, value] of Object.entries(permissions)) {
    if (!(PERMISSION_KEYS as readonly string[]).includes(key)) throw new TypeError(`permissions of ${uri} has no ${key} (known: ${PERMISSION_KEYS.join(', ')})`);
    if (value === undefined) continue;
    if (typeof value !== 'object' || value === null || Object.keys(value).length > 0) throw new TypeError(`permissions.${key} of ${uri} must be {} (present: requested)`);
    checked[key as keyof UiResourcePermissions] = {};
  }
  return Object.freeze(checked);
}
