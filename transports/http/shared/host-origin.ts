/**
 * DNS-rebinding protection: which `Host` and `Origin` values an MCP HTTP endpoint answers. A browser page on a
 * hostile site can make a victim's browser talk to a local server through a name that resolves to 127.0.0.1;
 * the server sees the hostile name in `Host` (and the hostile page in `Origin`) and must refuse it.
 *
 * Policies are lists of entries, or `'*'` for "anything" (only behind a proxy that checks these itself).
 * - Host entries: a hostname (any port), or `hostname:port` (that port only). IPv6 in brackets: `[::1]`.
 * - Origin entries: an origin (`https://app.example.com`, default port implied), or one with `:*` for any port
 *   (`http://localhost:*`).
 */

export type HostPolicy = readonly string[] | '*';

/** Loopback names, any port: the default for a local server. */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Pages served from loopback, any port, http or https. */
export const LOOPBACK_ORIGINS: readonly string[] = Object.freeze(
  LOOPBACK_HOSTS.flatMap((host) => [`http://${host}:*`, `https://${host}:*`]),
);

export interface HostAndPort {
  /** Lower case, without a trailing dot; IPv6 literals keep their brackets. */
  readonly hostname: string;
  readonly port: string | undefined;
}

const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9\-._~%!$&'()*+,;=]+)(?::(\d{1,5}))?$/;

/** Reads a `Host` header value (`name`, `name:port`, `[v6]:port`); undefined when it is not one. */
export function parseHost(value: string): HostAndPort | undefined {
  const match = HOST_PATTERN.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  const name = match[1] ?? '';
  const hostname = name.endsWith('.') && !name.startsWith('[') ? name.slice(0, -1) : name;
  return hostname.length === 0 ? undefined : { hostname, port: match[2] };
}

/** A predicate over `Host` header values (undefined = no header, refused unless the policy is `'*'`). */
export function createHostCheck(policy: HostPolicy = LOOPBACK_HOSTS): (host: string | undefined) => boolean {
  if (policy === '*') return () => true;
  const entries = policy.map((entry) => {
    const parsed = parseHost(entry);
    if (parsed === undefined) throw new RangeError(`not a host entry: ${JSON.stringify(entry)}`);
    return parsed;
  });
  return (host) => {
    const parsed = host === undefined ? undefined : parseHost(host);
    if (parsed === undefined) return false;
    return entries.some((entry) => entry.hostname === parsed.hostname && (entry.port === undefined || entry.port === parsed.port));
  };
}

interface OriginEntry {
  readonly protocol: string;
  readonly hostname: string;
  /** undefined = any port; '' = the scheme's default port. */
  readonly port: string | undefined;
}

function parseOrigin(value: string): OriginEntry | undefined {
  try {
    const url = new URL(value);
    if (url.origin === 'null') return undefined;
    return { protocol: url.protocol, hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return undefined;
  }
}

function parseOriginEntry(entry: string): OriginEntry {
  const anyPort = entry.endsWith(':*');
  const parsed = parseOrigin(anyPort ? entry.slice(0, -2) : entry);
  if (parsed === undefined) throw new RangeError(`not an origin entry: ${JSON.stringify(entry)}`);
  return anyPort ? { ...parsed, port: undefined } : parsed;
}

/** A predicate over `Origin` header values. `null` origins (sandboxed pages, files) match no entry. */
export function createOriginCheck(policy: HostPolicy = LOOPBACK_ORIGINS): (origin: string) => boolean {
  if (policy === '*') return () => true;
  const entries = policy.map(parseOriginEntry);
  return (origin) => {
    const parsed = parseOrigin(origin.trim());
    if (parsed === undefined) return false;
    return entries.some(
      (entry) => entry.protocol === parsed.protocol && entry.hostname === parsed.hostname && (entry.port === undefined || entry.port === parsed.port),
    );
  };
}
