/**
 * The flags of `rxmcp gateway --mesh`: which servers announced on NATS join the mesh (`--select`), how their items
 * are named (`--naming`), the mesh's own server name (`--mesh-name`), how often NATS is asked who is there
 * (`--discovery-ms`), and the mesh served on NATS too (`--serve-nats NAME`, with `--prefix` and `--js-replicas`).
 * The flags the mesh shares with the named gateway (NATS connection, HTTP address, authorization, identity key,
 * drain) are checked by cli/gateway/command.ts.
 */
import { UsageError, choiceValue, positiveIntegerValue } from '../args.ts';
import { serverSubjects } from '../../transports/nats/subjects.ts';

export const meshFlags = {
  mesh: { type: 'boolean' },
  select: { type: 'string', multiple: true },
  naming: { type: 'string' },
  'mesh-name': { type: 'string' },
  'serve-nats': { type: 'string' },
  'discovery-ms': { type: 'string' },
} as const;

export const meshHelp = `the mesh (--mesh; docs/mesh.md): one MCP server whose catalog is the union of the rxmcp servers announced
on NATS, each request routed to its server; servers are joined and left as they come and go
  --mesh           serve the mesh instead of one server (not with --name)
  --select B[,B...]  join only these bindings (the names the servers are served under; repeatable);
                   "*" matches any run of characters: --select billing-*,search
  --naming collisions|always  prefix an item's name with its binding (binding__tool, mesh://binding/uri)
                   only where two servers share it (default collisions), or always
  --mesh-name NAME  the mesh's own server name (default rxmcp-mesh); servers announcing it are left out
  --discovery-ms N  time between two rounds of asking NATS which servers there are (default 5000)
  --serve-nats NAME  serve the mesh on NATS too, as NAME under --prefix (default mcp), so NATS clients reach
                   the union; its legacy sessions are recorded in JetStream KV (--js-replicas N copies);
                   the mesh never joins itself
  (--identity-key FILE vouches for the HTTP callers to the servers, as for --name)`;

/** What `--mesh` adds to the gateway's options. */
export interface MeshFaceArgs {
  /** The bindings to join (exact names or `*` patterns); undefined: every one. */
  readonly select: readonly string[] | undefined;
  readonly naming: 'collisions' | 'always';
  readonly meshName: string;
  readonly discoveryMs: number | undefined;
  /** The mesh on NATS too, as this binding under this prefix. */
  readonly serveNats: { readonly name: string; readonly prefix: string } | undefined;
}

type MeshValues = {
  readonly select?: string[] | undefined;
  readonly naming?: string | undefined;
  readonly 'mesh-name'?: string | undefined;
  readonly 'serve-nats'?: string | undefined;
  readonly 'discovery-ms'?: string | undefined;
  readonly prefix?: string | undefined;
  readonly 'js-replicas'?: string | undefined;
};

/** A binding, or a pattern of one where `*` stands for any run of a binding's characters. */
const BINDING_PATTERN = /^[A-Za-z0-9_*-]{1,128}$/;

/** The mesh-only flags given (as typed), for "needs --mesh". */
export function meshFlagsGiven(values: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(meshFlags).filter((flag) => flag !== 'mesh' && values[flag] !== undefined).map((flag) => `--${flag}`);
}

export function meshFaceOf(command: string, values: MeshValues): MeshFaceArgs {
  const select = values.select?.flatMap((given) => given.split(',')).map((pattern) => pattern.trim()).filter((pattern) => pattern !== '');
  for (const pattern of select ?? []) {
    if (!BINDING_PATTERN.test(pattern)) throw new UsageError(command, `--select takes bindings (A-Z, a-z, 0-9, "_", "-", and "*" for any run of them), comma-separated, got ${JSON.stringify(pattern)}`);
  }
  if (select !== undefined && select.length === 0) throw new UsageError(command, '--select names no binding: give at least one (or leave it out to join every server)');
  const meshName = values['mesh-name'] ?? 'rxmcp-mesh';
  if (meshName.trim() === '') throw new UsageError(command, '--mesh-name must not be empty');
  const serveName = values['serve-nats'];
  if (serveName === undefined) {
    if (values.prefix !== undefined) throw new UsageError(command, '--prefix with --mesh is the prefix the mesh is served under on NATS: add --serve-nats NAME (servers are found under any prefix)');
    if (values['js-replicas'] !== undefined) throw new UsageError(command, '--js-replicas with --mesh sets the copies of the session records of --serve-nats: add --serve-nats NAME');
  }
  let serveNats: MeshFaceArgs['serveNats'];
  if (serveName !== undefined) {
    const prefix = values.prefix ?? 'mcp';
    try {
      serverSubjects(prefix, serveName);
    } catch (error) {
      throw new UsageError(command, `--serve-nats: ${error instanceof Error ? error.message : String(error)}`);
    }
    serveNats = { name: serveName, prefix };
  }
  return {
    select: select === undefined ? undefined : [...new Set(select)],
    naming: values.naming === undefined ? 'collisions' : choiceValue(command, '--naming', values.naming, ['collisions', 'always']),
    meshName,
    discoveryMs: values['discovery-ms'] === undefined ? undefined : positiveIntegerValue(command, '--discovery-ms', values['discovery-ms']),
    serveNats,
  };
}

/** Whether a binding is one `--select` names: exactly, or matching one of its `*` patterns. */
export function bindingSelector(patterns: readonly string[]): (binding: string) => boolean {
  // Bindings and patterns hold only [A-Za-z0-9_-] besides "*", none of them special in a regular expression.
  const matchers = patterns.map((pattern) => new RegExp(`^${pattern.replaceAll('*', '[A-Za-z0-9_-]*')}$`));
  return (binding) => matchers.some((matcher) => matcher.test(binding));
}
