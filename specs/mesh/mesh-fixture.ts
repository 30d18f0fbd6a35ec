/**
 * A mesh over a real nats-server: member servers served with serveNats, each on its own NATS connection, the mesh
 * (createMesh) on another, its members driven by a BehaviorSubject, and rxmcp clients talking to the mesh in
 * process (a memory pair, with the identity a spec gives each caller). Everything is closed on dispose.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { connect } from '@nats-io/transport-node';
import { BehaviorSubject, firstValueFrom, filter, timeout } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import type { AuthInfo } from '../../core/auth.ts';
import { createMesh, type Mesh, type MeshEvent, type MeshMember, type MeshOptions } from '../../mesh/index.ts';
import { createServer } from '../../server/create-server.ts';
import type { McpServer } from '../../server/server-api.ts';
import { createMemoryPair } from '../../transports/memory/memory-transport.ts';
import { type NatsServeOptions, type NatsServing, serveNats } from '../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../support/nats-server.ts';

export interface MemberServer {
  readonly member: MeshMember;
  readonly server: McpServer;
  readonly serving: NatsServing;
  readonly connection: NatsConnection;
}

export interface MeshFixture extends AsyncDisposable {
  readonly nats: NatsServerProcess;
  readonly members$: BehaviorSubject<readonly MeshMember[]>;
  readonly events: MeshEvent[];
  /** Serves `server` on NATS as `binding`, on a connection of its own (with more serveNats options, if given). */
  serveMember(binding: string, server: McpServer, options?: Partial<NatsServeOptions>): Promise<MemberServer>;
  /** Makes the mesh (not started). */
  mesh(options?: Partial<MeshOptions>): Promise<Mesh>;
  /** An rxmcp client of the mesh, calling as `auth`. */
  caller(mesh: Mesh, auth?: AuthInfo): Promise<ClientSession>;
  /** Resolves at the first event the predicate accepts (waits at most `ms`). */
  event(predicate: (event: MeshEvent) => boolean, ms?: number): Promise<MeshEvent>;
}

export function memberServer(name: string): McpServer {
  return createServer({ name, version: '1.0.0' });
}

export async function meshFixture(): Promise<MeshFixture> {
  const nats = await startNatsServer({ jetstream: false });
  const connections: NatsConnection[] = [];
  const servings: NatsServing[] = [];
  const servers: McpServer[] = [];
  const meshes: Mesh[] = [];
  const sessions: ClientSession[] = [];
  const members$ = new BehaviorSubject<readonly MeshMember[]>([]);
  const events: MeshEvent[] = [];
  const events$ = new BehaviorSubject<MeshEvent | undefined>(undefined);
  const connection = async (): Promise<NatsConnection> => {
    const made = await connect({ servers: nats.url });
    connections.push(made);
    return made;
  };
  return {
    nats,
    members$,
    events,
    async serveMember(binding, server, options = {}) {
      const own = await connection();
      servers.push(server);
      const serving = await serveNats(server, { connection: own, name: binding, sessionRecords: false, keepaliveMs: 200, ...options });
      servings.push(serving);
      return { member: { binding, prefix: 'mcp' }, server, serving, connection: own };
    },
    async mesh(options = {}) {
      const mesh = createMesh({
        connection: await connection(),
        members$,
        health: { intervalMs: 200, timeoutMs: 500, retryMs: 200 },
        onEvent: (event) => {
          events.push(event);
          events$.next(event);
        },
        ...options,
      });
      meshes.push(mesh);
      return mesh;
    },
    async caller(mesh, auth) {
      const [clientEnd, serverEnd] = createMemoryPair(auth === undefined ? {} : { serverAuth: auth });
      mesh.server.accept(serverEnd);
      const session = await createClient({ name: 'mesh-caller', version: '1.0.0', era: 'legacy' }).connect(clientEnd);
      sessions.push(session);
      return session;
    },
    event(predicate, ms = 5000) {
      return firstValueFrom(events$.pipe(filter((event): event is MeshEvent => event !== undefined && predicate(event)), timeout(ms)));
    },
    async [Symbol.asyncDispose]() {
      await Promise.allSettled(sessions.map((session) => session.close()));
      await Promise.allSettled(meshes.map((mesh) => mesh.close()));
      await Promise.allSettled(servings.map((serving) => serving.close('end', { drainMs: 0 })));
      await Promise.allSettled(servers.map((server) => server.close()));
      await Promise.allSettled(connections.map((made) => made.close()));
      await nats.dispose();
    },
  };
}

/** Resolves once `check` holds, polling every 20 ms for at most `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
