/**
 * Opens one transport to a target, for one session: a Streamable HTTP client transport, a stdio child (its pid
 * kept for the process figures and the faults), a NATS client transport on a connection shared by the run's
 * sessions, or a transport of the caller's making. `close()` releases what the connector itself opened.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { Transport } from '../core/transport.ts';
import { createStreamableHttpClientTransport } from '../transports/http/index.ts';
import { spawnStdioServer } from '../transports/stdio/index.ts';
import type { LoadTarget } from './options.ts';

export interface OpenedTransport {
  readonly transport: Transport;
  /** The process behind it, when this run started it. */
  readonly pid: number | undefined;
}

export interface Connector {
  open(): Promise<OpenedTransport>;
  close(): Promise<void>;
}

export function connectorFor(target: LoadTarget): Connector {
  if ('url' in target) {
    return {
      open: async () => ({ transport: createStreamableHttpClientTransport(target.url, target.headers === undefined ? {} : { headers: target.headers }), pid: undefined }),
      close: async () => undefined,
    };
  }
  if ('command' in target) {
    return {
      open: async () => {
        const transport = await spawnStdioServer({
          command: target.command,
          args: target.args ?? [],
          ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
          ...(target.env === undefined ? {} : { env: target.env }),
          stderr: target.stderr ?? 'ignore',
          // A session closed by the run (churn, the end) need not wait long for its child.
          shutdown: { stdinCloseWaitMs: 1000, sigtermWaitMs: 1000 },
        });
        return { transport, pid: transport.pid };
      },
      close: async () => undefined,
    };
  }
  if ('nats' in target) return natsConnector(target);
  return { open: async () => ({ transport: await target.connect(), pid: undefined }), close: async () => undefined };
}

function natsConnector(target: Extract<LoadTarget, { nats: unknown }>): Connector {
  let connection: Promise<NatsConnection> | undefined;
  const owned = typeof target.nats === 'string';
  const connectionOf = (): Promise<NatsConnection> => {
    connection ??= (async () => {
      if (typeof target.nats !== 'string') return target.nats;
      const servers = target.nats.split(',').map((one) => one.trim()).filter((one) => one !== '');
      const connect = await import('@nats-io/transport-node').then(
        (nats) => nats.connect,
        (error: unknown) => {
          throw new Error('a NATS target needs nats.js v3: install it beside rxmcp (npm install @nats-io/transport-node @nats-io/jetstream @nats-io/kv)', { cause: error });
        },
      );
      return connect({ servers, name: 'rxmcp load' });
    })();
    return connection;
  };
  return {
    open: async () => {
      const [{ createNatsClientTransport }, nc] = await Promise.all([import('../transports/nats/index.ts'), connectionOf()]);
      return { transport: createNatsClientTransport({ connection: nc, name: target.name, ...(target.prefix === undefined ? {} : { prefix: target.prefix }) }), pid: undefined };
    },
    close: async () => {
      if (!owned || connection === undefined) return;
      const nc = await connection.catch(() => undefined);
      if (nc !== undefined && !nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
