/**
 * How a served binding appears in the NATS services protocol (the `$SRV` subjects that `nats micro ls` asks):
 * its service name, its semver version, and the metadata keys that carry its MCP facts. Shared by the server that
 * announces itself (announcer.ts) and the discovery that reads the announcements (../discovery/), so the two
 * never disagree on a key.
 */

/** The services protocol's subject root and its three verbs. */
export const SERVICES_ROOT = '$SRV';
export const SERVICE_VERBS = ['PING', 'INFO', 'STATS'] as const;
export type ServiceVerb = (typeof SERVICE_VERBS)[number];

/** The response types, one per verb. */
export const RESPONSE_TYPES: Readonly<Record<ServiceVerb, string>> = {
  PING: 'io.nats.micro.v1.ping_response',
  INFO: 'io.nats.micro.v1.info_response',
  STATS: 'io.nats.micro.v1.stats_response',
};

/** The protocol's rule for service names (and ids: they are subject tokens too). */
const SERVICE_NAME = /^[A-Za-z0-9_-]+$/;

/** Semantic versioning 2.0.0, the form the protocol requires of a service's version. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isServiceName(value: string): boolean {
  return value.length <= 256 && SERVICE_NAME.test(value);
}

/**
 * The service name of a binding: the binding's name itself. A binding name is one subject token of
 * `[A-Za-z0-9_-]`, which is exactly the protocol's rule, so `nats micro ls` shows the name clients connect to. (Two
 * prefixes serving the same name are one service with instances told apart by their `mcp.prefix`.)
 */
export function serviceNameOf(binding: string): string {
  if (!isServiceName(binding)) throw new TypeError(`NATS service name ${JSON.stringify(binding)} must match [A-Za-z0-9_-]+`);
  return binding;
}

/**
 * The service's version: the MCP server's version when it is semver; otherwise `0.0.0`, with the server's version
 * kept as build metadata (`0.0.0+<its dot-separated parts, other characters as ->`) when anything of it is left
 * (`2024.10` -> `0.0.0+2024.10`, `v1 beta` -> `0.0.0+v1-beta`). The exact version is in `mcp.version` either way.
 */
export function serviceVersionOf(version: string): string {
  if (SEMVER.test(version)) return version;
  const parts = version.split('.').map((part) => part.replace(/[^0-9A-Za-z-]/g, '-')).filter((part) => part.length > 0);
  const build = parts.join('.').slice(0, 128).replace(/\.+$/, '');
  return build.length === 0 ? '0.0.0' : `0.0.0+${build}`;
}

/** The metadata keys of an MCP server's announcement (every value a string, as the protocol wants). */
export const McpMetadata = {
  /** The server's `serverInfo.name`. */
  name: 'mcp.name',
  /** Its `serverInfo.version`, exactly. */
  version: 'mcp.version',
  /** The protocol revisions it serves, comma-separated, oldest first. */
  revisions: 'mcp.revisions',
  /** `legacy`, `modern` or `legacy,modern`. */
  eras: 'mcp.eras',
  /** Its catalog's revision (`ServerDescription.catalogRevision`). */
  catalog: 'mcp.catalog',
  /** The binding's subject prefix. */
  prefix: 'mcp.prefix',
  /** The binding's name: the subject token it is served under. */
  binding: 'mcp.binding',
} as const;

/** The subjects one instance answers for one verb: every service, every instance of its name, this instance. */
export function controlSubjects(verb: ServiceVerb, service: string, instanceId: string): readonly [string, string, string] {
  return [`${SERVICES_ROOT}.${verb}`, `${SERVICES_ROOT}.${verb}.${service}`, `${SERVICES_ROOT}.${verb}.${service}.${instanceId}`];
}
