/**
 * `rxmcp/apps/client`: the host side of MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): a tool's view read with
 * the Content-Security-Policy and permissions to enforce around it (`createAppsClient(session).readUiResource(tool)`),
 * tools called for a view only when they are meant for it, visibility read from tools. See docs/apps.md.
 */
export {
  AppsError,
  createAppsClient,
  type AppsClient,
  type AppsErrorCode,
  type ReadUiResourceOptions,
  type UiResource,
} from './apps-client.ts';
export { contentSecurityPolicy, permissionsPolicy } from '../../core/apps/view-policy.ts';
export {
  APPS_CLIENT_SETTINGS,
  APPS_EXTENSION,
  APP_MIME_TYPE,
  DEFAULT_VISIBILITY,
  isCspSource,
  isVisibleTo,
  readUiResourceMeta,
  uiResourceUriOf,
  visibilityOf,
  type AppsClientSettings,
  type UiPermissionRequest,
  type UiResourceCsp,
  type UiResourceMeta,
  type UiResourcePermissions,
  type UiToolMeta,
  type UiVisibility,
} from '../../core/protocol/apps.ts';
