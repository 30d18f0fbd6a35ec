/**
 * `createMesh`: one MCP server whose catalog is the union of the NATS-served rxmcp servers a source announces.
 * The mesh is an ordinary rxmcp server (serve it on Streamable HTTP, stdio or NATS like any other); for each
 * member it holds one client session over NATS (mesh/member-link.ts), and the union of their catalogs is
 * registered on it (mesh/union-catalog.ts). See docs/mesh.md.
 */
import type { Subscription } from 'rxjs';
import { systemClock } from '../core/clock.ts';
import { createServer } from '../server/create-server.ts';
import type { McpServer } from '../server/server-api.ts';
import { discoveredMembers } from './discovered-members.ts';
import type { MemberCatalog } from './member-catalog.ts';
import { type LinkListener, MemberLink } from './member-link.ts';
import type { MeshMember, MeshOptions } from './options.ts';
import { markLegacyTaskCalls } from './member-task.ts';
import { MeshSubscriptions, SUBSCRIPTION_METHODS } from './resource-subscriptions.ts';
import { UnionCatalog } from './union-catalog.ts';

/** A member's state as the mesh sees it. */
export interface MeshMemberStatus {
  readonly member: MeshMember;
  /** Connected and listed: its items are in the catalog. */
  readonly up: boolean;
}

export interface Mesh {
  /** The mesh's MCP server: serve it on any transport. */
  readonly server: McpServer;
  /** Starts following `members$` (connecting to members as they come). Calling it again does nothing. */
  start(): void;
  /** The members joined now, up or not. */
  readonly members: readonly MeshMemberStatus[];
  /** Leaves every member (their calls in flight fail), and closes the server's sessions. */
  close(): Promise<void>;
}

/** A subject token: what a binding and each token of a prefix must be (a peer's announcement is not trusted). */
const SUBJECT_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
const MAX_MEMBERS = 1024;

function memberProblem(member: MeshMember): string | undefined {
  if (typeof member !== 'object' || member === null) return 'a member must be an object';
  if (typeof member.binding !== 'string' || !SUBJECT_TOKEN.test(member.binding)) return `binding ${JSON.stringify(member.binding)} is not one subject token (A-Z, a-z, 0-9, "_", "-")`;
  if (typeof member.prefix !== 'string' || !member.prefix.split('.').every((token) => SUBJECT_TOKEN.test(token))) return `prefix ${JSON.stringify(member.prefix)} is not a subject of plain tokens`;
  return undefined;
}

export function createMesh(options: MeshOptions): Mesh {
  const serverOptions = options.server ?? {};
  const clock = options.clock ?? systemClock;
  const server = createServer({
    name: 'rxmcp-mesh',
    version: '0.1.0',
    ...serverOptions,
    // The mesh's own sessions (and the task stores on them) run on the mesh's clock unless told otherwise.
    session: { ...serverOptions.session, clock: serverOptions.session?.clock ?? clock },
    // The mesh runs its callers' tasks itself, each over a task on its member (mesh/member-task.ts), in both eras.
    tasks: serverOptions.tasks ?? {},
    modern: { ...serverOptions.modern, tasks: serverOptions.modern?.tasks ?? {} },
    // Declared from the start: a client that connects before any member joins must still hear the lists change.
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true }, ...serverOptions.capabilities },
  });
  const union = new UnionCatalog(server, options);
  const subscriptions = new MeshSubscriptions(server, (uri) => union.route(uri), serverOptions.modern?.maxResourceSubscriptions ?? 1000);
  server.use(subscriptions.interceptor, { direction: 'incoming', method: [...SUBSCRIPTION_METHODS] });
  server.use(markLegacyTaskCalls, { direction: 'incoming', method: 'tools/call' });
  const links = new Map<string, MemberLink>();
  const catalogs = new Map<string, MemberCatalog>();
  const health = options.health ?? {};
  const settings = {
    connection: options.connection,
    clientInfo: { name: serverOptions.name ?? 'rxmcp-mesh', version: serverOptions.version ?? '0.1.0' },
    intervalMs: health.intervalMs ?? 5000,
    timeoutMs: health.timeoutMs ?? 2000,
    retryMs: health.retryMs ?? 2000,
    callTimeoutMs: options.callTimeoutMs ?? 60_000,
    identity: options.identity,
    clock,
  };
  const keyOf = (member: MeshMember): string => `${member.prefix}.${member.binding}`;
  const republish = (): void => {
    union.update([...catalogs].flatMap(([key, catalog]) => {
      const link = links.get(key);
      return link === undefined ? [] : [{ key, link, catalog }];
    }));
  };
  const listener: LinkListener = {
    catalog(link, catalog, fresh) {
      const key = keyOf(link.member);
      if (links.get(key) !== link) return;
      if (catalog === undefined) catalogs.delete(key);
      else catalogs.set(key, catalog);
      republish();
      if (catalog !== undefined) {
        const items = catalog.tools.length + catalog.prompts.length + catalog.resources.length + catalog.templates.length;
        options.onEvent?.({ type: fresh ? 'joined' : 'relisted', member: link.member, items });
      }
    },
    down(link, reason) {
      options.onEvent?.({ type: 'down', member: link.member, reason });
    },
    resourceUpdated(link, uri) {
      if (links.get(keyOf(link.member)) === link) subscriptions.updated(link, uri);
    },
  };
  const follow = (announced: readonly MeshMember[]): void => {
    const next = new Map<string, MeshMember>();
    for (const member of announced) {
      const problem = memberProblem(member);
      if (problem !== undefined || (options.select !== undefined && !options.select(member))) continue;
      if (next.size >= MAX_MEMBERS) break;
      next.set(keyOf(member), member);
    }
    for (const [key, link] of links) {
      if (next.has(key)) continue;
      links.delete(key);
      catalogs.delete(key);
      link.stop();
      options.onEvent?.({ type: 'left', member: link.member });
    }
    republish();
    for (const [key, member] of next) {
      const held = links.get(key);
      if (held !== undefined) {
        held.update(member);
        continue;
      }
      const link = new MemberLink(member, settings, listener);
      links.set(key, link);
      link.start();
    }
  };
  let subscription: Subscription | undefined;
  let closed = false;
  // A caller's session closing closes its sessions with the members (see mesh/caller-channels.ts).
  const callers = server.sessions$.subscribe((event) => {
    if (event.type !== 'closed') return;
    for (const link of links.values()) link.callerClosed(event.session);
    subscriptions.sessionClosed(event.session);
  });
  return {
    server,
    start() {
      if (subscription !== undefined || closed) return;
      const members$ = options.members$ ?? discoveredMembers(options.connection, settings.clientInfo.name, options.discovery);
      subscription = members$.subscribe({
        next: follow,
        // A source that fails leaves the members as they are: the mesh keeps serving what it has.
        error: () => undefined,
      });
    },
    get members() {
      return [...links].map(([key, link]) => ({ member: link.member, up: link.up && catalogs.has(key) }));
    },
    async close() {
      if (closed) return;
      closed = true;
      subscription?.unsubscribe();
      callers.unsubscribe();
      for (const link of links.values()) link.stop();
      links.clear();
      catalogs.clear();
      subscriptions.clear();
      union.clear();
      await server.close();
    },
  };
}
