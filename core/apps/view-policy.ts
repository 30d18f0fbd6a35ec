/**
 * What a host enforces around an MCP App's view, from the resource's `_meta.ui` (SEP-1865, "Host Behavior" and
 * "Content Security Policy Enforcement"): the Content-Security-Policy the view's document runs under and the
 * iframe's `allow` attribute (Permissions Policy). Both come from what an untrusted server declared, so only
 * origins (`isCspSource`) ever reach the policy: a declared value cannot end a directive or add a keyword.
 */
import { type UiResourceCsp, type UiResourcePermissions, isCspSource } from '../protocol/apps.ts';

function sources(list: readonly string[] | undefined): string[] {
  return (list ?? []).filter(isCspSource);
}

function directive(name: string, values: readonly string[]): string {
  return `${name} ${values.join(' ')}`;
}

/**
 * The Content-Security-Policy of a view with these declared domains (`undefined`: none declared, the SEP's
 * restrictive default). Inline scripts and styles run (the view is one HTML document); `connect-src` allows the
 * declared origins only (`'none'` without any), so a view reaches no server it did not declare; no plugins; nested
 * frames only from declared origins; `base-uri` the declared ones, else `'self'`.
 */
export function contentSecurityPolicy(csp: UiResourceCsp | undefined): string {
  const resources = sources(csp?.resourceDomains);
  const connect = sources(csp?.connectDomains);
  const frames = sources(csp?.frameDomains);
  const bases = sources(csp?.baseUriDomains);
  return [
    "default-src 'none'",
    directive('script-src', ["'self'", "'unsafe-inline'", ...resources]),
    directive('style-src', ["'self'", "'unsafe-inline'", ...resources]),
    directive('img-src', ["'self'", 'data:', ...resources]),
    directive('font-src', ["'self'", ...resources]),
    directive('media-src', ["'self'", 'data:', ...resources]),
    directive('connect-src', connect.length === 0 ? ["'none'"] : connect),
    directive('frame-src', frames.length === 0 ? ["'none'"] : frames),
    "object-src 'none'",
    directive('base-uri', bases.length === 0 ? ["'self'"] : bases),
  ].join('; ');
}

const FEATURES: readonly (readonly [keyof UiResourcePermissions, string])[] = [
  ['camera', 'camera'],
  ['microphone', 'microphone'],
  ['geolocation', 'geolocation'],
  ['clipboardWrite', 'clipboard-write'],
];

/** The iframe `allow` attribute granting what the view asked for (`""`: nothing). A host may grant less. */
export function permissionsPolicy(permissions: UiResourcePermissions | undefined): string {
  if (permissions === undefined) return '';
  return FEATURES.filter(([key]) => permissions[key] !== undefined).map(([, feature]) => feature).join('; ');
}
