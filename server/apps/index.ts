/**
 * `rxmcp/apps`: the server side of MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): UI resources declared with
 * their security settings (`appResource`), served with `createServer({ extensions: [apps({ resources })] })`, and
 * linked from tools (`appToolMeta`). See docs/apps.md.
 */
export { appResource, type AppResource, type AppResourceDefinition } from './app-resource.ts';
export { apps, appToolMeta, clientSupportsApps, type AppToolOptions, type AppsOptions } from './serve-apps.ts';
export {
  APPS_EXTENSION,
  APP_MIME_TYPE,
  DEPRECATED_RESOURCE_URI_KEY,
  appsExtension,
  type UiPermissionRequest,
  type UiResourceCsp,
  type UiResourceMeta,
  type UiResourcePermissions,
  type UiToolMeta,
  type UiVisibility,
} from '../../core/protocol/apps.ts';
