/**
 * Legacy-session owners as serveNats instances in the spec's own process, for the specs about who serves a
 * session after a takeover (one-owner, partition-takeover): each owner has its own NATS connection (straight to
 * nats-server, or through a proxy that can cut it off), a `whoami` tool naming it, its state warnings and its
 * reconnections; one teardown ends everything the spec made.
 */
import assert from 'node:assert/strict';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { createServer } from '../../../server/create-server.ts';
import { type NatsServing, type SessionStateWarning, serveNats } from '../../../transports/nats/index.ts';
import type { NatsServerProcess } from '../../support/nats-server.ts';
import { type CuttableProxy, cuttableProxy } from './cuttable-proxy.ts';
import { type NatsClient, answerOf, connectClient } from './nats-processes.ts';

export interface Owner {
  readonly serving: NatsServing;
  readonly connection: NatsConnection;
  readonly warnings: readonly SessionStateWarning[];
  /** How many times its connection came back after a disconnection. */
  reconnections(): number;
}

export interface LegacyClient {
  readonly client: NatsClient;
  readonly connection: NatsConnection;
  readonly sessionId: string;
}

export class InProcessOwners {
  private readonly connections: NatsConnection[] = [];
  private readonly servings: NatsServing[] = [];
  private readonly clients: NatsClient[] = [];
  private readonly proxies: CuttableProxy[] = [];

  constructor(private readonly nats: NatsServerProcess) {}

  /** nats-server's own URL (not through a proxy). */
  get url(): string {
    return this.nats.url;
  }

  /**
   * An owner of the `name` deployment whose `whoami` answers `pid`, connected to `url` (nats-server's or a
   * proxy's). `electionRetryMs`: how long its record reads keep trying while the bucket does not answer.
   */
  async serve(name: string, pid: number, url: string, electionRetryMs?: number): Promise<Owner> {
    const server = createServer({ name: `${name}-${pid}`, version: '1.0.0' });
    server.tool({ name: 'whoami' }, () => JSON.stringify({ pid }));
    const connection = await connect({ servers: url, name: `${name}-${pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    this.connections.push(connection);
    const warnings: SessionStateWarning[] = [];
    const serving = await serveNats(server, {
      connection,
      name,
      keepaliveMs: 200,
      ...(electionRetryMs === undefined ? {} : { sessionRecords: { electionRetryMs } }),
      sessions: { ownerPingMs: 300, onStateWarning: (warning) => void warnings.push(warning) },
    });
    this.servings.push(serving);
    let reconnections = 0;
    void (async () => {
      for await (const status of connection.status()) if (status.type === 'reconnect') reconnections++;
    })();
    return { serving, connection, warnings, reconnections: () => reconnections };
  }

  /** A proxy to nats-server that can cut off whoever connects through it. */
  async proxy(): Promise<CuttableProxy> {
    const proxy = await cuttableProxy(this.nats.port);
    this.proxies.push(proxy);
    return proxy;
  }

  /**
   * A legacy client of `name` with its own connection, whose session `expectedPid` serves. The silence limit is
   * not what these specs are about (who answers is): after a reconnection an old owner re-reads the session's
   * record before it lets a held request go on, and on a loaded machine that read can take seconds.
   */
  async legacyClient(name: string, expectedPid = 1): Promise<LegacyClient> {
    const connection = await connect({ servers: this.nats.url, name: `${name}-client` });
    this.connections.push(connection);
    const client = await connectClient(connection, name, 'legacy', 5000);
    this.clients.push(client);
    assert.equal(await whoami(client), expectedPid, `process ${expectedPid}, alone, owns the session`);
    const sessionId = client.transport.sessionId;
    assert.ok(sessionId !== undefined);
    return { client, connection, sessionId };
  }

  /** Ends every client, owner, connection and proxy made here, then nats-server. */
  async dispose(): Promise<void> {
    await Promise.allSettled(this.clients.map((client) => client.session.close()));
    await Promise.allSettled(this.servings.map((serving) => serving.close('end', { drainMs: 0 })));
    await Promise.allSettled(this.connections.map((connection) => connection.close()));
    await Promise.allSettled(this.proxies.map((proxy) => proxy.close()));
    await this.nats.dispose();
  }
}

/** Which owner answered the session's `whoami`. */
export async function whoami(client: NatsClient): Promise<number> {
  return answerOf(await client.session.callTool('whoami', {}, { timeoutMs: 5000 })).pid;
}

/** How many legacy sessions each owner holds. */
export function sessionsOf(...owners: readonly Owner[]): number[] {
  return owners.map((owner) => owner.serving.counts().sessions);
}
