/**
 * Where `rxmcp inspect|call|read|prompt` connect: an HTTP(S) URL (Streamable HTTP, falling back to HTTP+SSE),
 * `nats://host:port/<name>` (the NATS binding), or `-- <command> [args]` (a stdio server this process starts).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Transport } from '../../core/transport.ts';
import type { NatsCredentials } from '../../transports/nats/connect-options.ts';
import type { HttpClientAuth } from '../../transports/http/client/auth-port.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/index.ts';
import { serverSubjects } from '../../transports/nats/subjects.ts';
import { spawnStdioServer } from '../../transports/stdio/index.ts';
import { UsageError } from '../args.ts';
import { withNats } from '../optional-peer.ts';
import { resolveCommand } from '../resolve-command.ts';

export type Target =
  | { readonly kind: 'http'; readonly url: string; readonly label: string }
  | { readonly kind: 'nats'; readonly servers: string; readonly name: string; readonly label: string; readonly credentials?: NatsCredentials }
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[]; readonly label: string };

export const targetHelp = `<target> is one of:
  http://host:port/mcp         a Streamable HTTP server (an HTTP+SSE server of 2024-11-05 is found too)
  nats://host:port/<name>      the MCP server <name> on NATS (subject prefix: --prefix, default mcp)
  -- <command> [args...]       a stdio server this command starts (written last, after every other word)`;

/**
 * The target of a command: the words after `--` when given (a stdio server), else the first positional.
 * Returns the target and the positionals left after it.
 */
export function parseTarget(command: string, positionals: readonly string[], commandLine: readonly string[] | undefined, prefix: string | undefined): { readonly target: Target; readonly rest: string[] } {
  if (commandLine !== undefined) {
    const [program, ...args] = commandLine;
    if (program === undefined) throw new UsageError(command, 'needs a server command after --, for example: -- node server.js');
    return { target: { kind: 'stdio', command: program, args, label: commandLine.join(' ') }, rest: [...positionals] };
  }
  const [raw, ...rest] = positionals;
  if (raw === undefined) throw new UsageError(command, 'needs a target: an http(s):// URL, nats://host:port/<name>, or -- <command> [args...]');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(command, `the target must be an http(s):// URL, nats://host:port/<name>, or -- <command> [args...], got ${JSON.stringify(raw)}`);
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return { target: { kind: 'http', url: url.href, label: url.href }, rest };
  if (url.protocol === 'nats:' || url.protocol === 'tls:') {
    const name = decodeURIComponent(url.pathname.replace(/^\/+/, ''));
    if (name === '') throw new UsageError(command, `a NATS target names its server after the address, as nats://host:port/<name>, got ${JSON.stringify(raw)}`);
    try {
      serverSubjects(prefix ?? 'mcp', name);
    } catch (error) {
      throw new UsageError(command, error instanceof Error ? error.message : String(error));
    }
    const auth = url.username === '' ? '' : `${url.username}${url.password === '' ? '' : `:${url.password}`}@`;
    return { target: { kind: 'nats', servers: `${url.protocol}//${auth}${url.host}`, name, label: `${url.protocol}//${url.host}/${name}` }, rest };
  }
  throw new UsageError(command, `the target must be an http(s):// URL, nats://host:port/<name>, or -- <command> [args...], got ${JSON.stringify(raw)}`);
}

export interface OpenedTarget {
  readonly transport: Transport;
  /** Releases what the transport does not own (the NATS connection). */
  release(): Promise<void>;
}

/** Opens the transport to a target; a failure names the target and the cause. */
export async function openTarget(
  command: string,
  target: Target,
  options: { readonly prefix?: string | undefined; readonly headers?: Readonly<Record<string, string>>; readonly auth?: HttpClientAuth | undefined },
): Promise<OpenedTarget> {
  switch (target.kind) {
    case 'http':
      return {
        transport: createStreamableHttpClientTransport(target.url, {
          ...(options.headers === undefined ? {} : { headers: options.headers }),
          ...(options.auth === undefined ? {} : { auth: options.auth }),
        }),
        release: async () => undefined,
      };
    case 'nats': {
      const [{ connectNats }, { createNatsClientTransport }] = await withNats(() => Promise.all([import('../bridge/connect.ts'), import('../../transports/nats/index.ts')]));
      const connection: NatsConnection = await connectNats(target.servers, `rxmcp ${command}`, target.credentials);
      const transport = createNatsClientTransport({ connection, name: target.name, ...(options.prefix === undefined ? {} : { prefix: options.prefix }) });
      return {
        transport,
        release: async () => {
          if (!connection.isClosed()) await connection.drain().catch(() => connection.close());
        },
      };
    }
    case 'stdio': {
      const resolved = resolveCommand(target.command);
      if ('problem' in resolved) throw new UsageError(`rxmcp ${command}`, `cannot run the server command: ${resolved.problem}`);
      const transport = await spawnStdioServer({ command: target.command, args: target.args, stderr: 'inherit' });
      return { transport, release: async () => undefined };
    }
  }
}
