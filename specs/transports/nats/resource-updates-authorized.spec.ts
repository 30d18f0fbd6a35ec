/**
 * Resource updates across processes, authorized at send time (server/change-fan-out.ts `mayHear`), against a real
 * nats-server: three servers of one name in this process, each with its own NATS connection (as separate processes
 * would have), and modern `subscriptions/listen` streams spread over all three (opened until each process serves
 * at least one, counted by an interceptor on each).
 *
 * The listens name a resource before it exists; it is then registered on every process with a scope, and one
 * process announces an update: every listen of a caller holding the scope hears it once, on whichever process it
 * is, and the listen of a caller without it hears nothing, though it was agreed the resource when it began. The
 * same holds for legacy sessions subscribed with `resources/subscribe` (made while nothing guarded the resource).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import type { Subscription } from 'rxjs';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import type { AuthInfo } from '../../../core/auth.ts';
import { type McpServer, createServer } from '../../../server/create-server.ts';
import { type NatsServing, createIdentitySigner, createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { type GatewayKeys, gatewayKeys } from './identity-keys.ts';
import { sleep, until } from './nats-processes.ts';

const NAME = 'updates-authorized';
const URI = 'doc://secret';
const WAIT = 10_000;
/** Listens opened for the entitled caller before giving up on reaching all three processes. */
const MAX_LISTENS = 40;

interface Heard {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

interface Served {
  readonly server: McpServer;
  readonly serving: NatsServing;
  /** The listens this process took. */
  listens: number;
}

const reader: AuthInfo = { principal: 'reader', scopes: ['docs:read'], claims: {} };
const outsider: AuthInfo = { principal: 'outsider', scopes: [], claims: {} };

let nats: NatsServerProcess;
let keys: GatewayKeys;
const connections: NatsConnection[] = [];
const served: Served[] = [];
const sessions: ClientSession[] = [];
const subscriptions: Subscription[] = [];

async function open(label: string): Promise<NatsConnection> {
  const connection = await connect({ servers: nats.url, name: label });
  connections.push(connection);
  return connection;
}

async function serve(label: string): Promise<Served> {
  const server = createServer({ name: `updates-${label}`, version: '1.0.0', capabilities: { resources: { subscribe: true } } });
  const entry: Served = { server, serving: undefined as unknown as NatsServing, listens: 0 };
  server.use((request, next) => {
    if (request.method === 'subscriptions/listen') entry.listens++;
    return next(request);
  });
  const serving = await serveNats(server, { connection: await open(label), name: NAME, identity: { keys: [keys.publicJwk] } });
  Object.assign(entry, { serving });
  served.push(entry);
  return entry;
}

async function clientOf(who: AuthInfo, era: 'modern' | 'legacy' = 'modern'): Promise<ClientSession> {
  const assertion = await createIdentitySigner({ key: keys.privateJwk }).assertionFor(who, `mcp.${NAME}`);
  const session = await createClient({ name: `updates-${who.principal}`, version: '1.0.0', era }).connect(
    createNatsClientTransport({ connection: await open(`client-${who.principal}`), name: NAME, identity: () => assertion }),
  );
  sessions.push(session);
  return session;
}

async function listen(session: ClientSession): Promise<{ readonly heard: Heard[]; readonly agreed: unknown }> {
  const heard: Heard[] = [];
  subscriptions.push(session.listen$({ resourceSubscriptions: [URI] }).subscribe({ next: (notification) => void heard.push(notification), error: () => undefined }));
  await until(() => heard.some((n) => n.method === 'notifications/subscriptions/acknowledged'), 'the listen is acknowledged', WAIT);
  return { heard, agreed: (heard[0]?.params['notifications'] as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions };
}

const updates = (heard: readonly Heard[]): unknown[] => heard.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params['uri']);

describe('NATS: resource updates reach the listens entitled to them on every process, and no others', { timeout: 90_000 }, () => {
  before(async () => {
    nats = await startNatsServer();
    keys = await gatewayKeys('updates');
  });

  after(async () => {
    for (const subscription of subscriptions) subscription.unsubscribe();
    await Promise.allSettled(sessions.map((session) => session.close()));
    await Promise.allSettled(served.map(({ serving }) => serving.close('end', { drainMs: 0 })));
    await Promise.allSettled(connections.map((connection) => connection.close()));
    await nats.dispose();
  });

  test("an update made on one process reaches the reader's listens on all three, and not the outsider's", { timeout: 80_000 }, async () => {
    const processes = await Promise.all(['one', 'two', 'three'].map((label) => serve(label)));
    const readerSession = await clientOf(reader);
    const outsiderSession = await clientOf(outsider);

    const readers: Array<{ readonly heard: Heard[] }> = [];
    while (processes.some((process) => process.listens === 0)) {
      assert.ok(readers.length < MAX_LISTENS, `the queue group spread ${MAX_LISTENS} listens over fewer than three processes`);
      const opened = await listen(readerSession);
      assert.deepEqual(opened.agreed, [URI]);
      readers.push(opened);
    }
    // The resource does not exist yet: nothing forbids it, and the outsider is agreed it too.
    const intruder = await listen(outsiderSession);
    assert.deepEqual(intruder.agreed, [URI], 'agreed while nothing guards the resource');
    // Legacy sessions subscribed alike, on whichever process took their initialize.
    const legacyUpdates = { reader: [] as string[], outsider: [] as string[] };
    for (const [who, into] of [[reader, legacyUpdates.reader], [outsider, legacyUpdates.outsider]] as const) {
      const legacy = await clientOf(who, 'legacy');
      subscriptions.push(legacy.subscribe$(URI).subscribe((update) => void into.push(update.uri)));
      // A round trip after resources/subscribe: the session's process has it.
      await legacy.ping();
    }

    // Registered with a scope on every process (the catalog is each process's own), then updated on one.
    for (const { server } of processes) server.resource({ uri: URI, name: 'secret', requires: ['docs:read'] }, () => 'secret');
    const origin = processes[1];
    assert.ok(origin !== undefined);
    origin.server.notifyResourceUpdated(URI);

    for (const [index, { heard }] of readers.entries()) await until(() => updates(heard).length > 0, `reader listen ${index} hears the update`, WAIT);
    await until(() => legacyUpdates.reader.length > 0, "the reader's legacy session hears the update", WAIT);
    await sleep(500);
    assert.deepEqual(legacyUpdates, { reader: [URI], outsider: [] }, 'legacy: the reader heard it once, the outsider nothing');
    for (const { heard } of readers) assert.deepEqual(updates(heard), [URI], 'each reader listen heard it once');
    assert.deepEqual(updates(intruder.heard), [], 'the outsider may not read the resource now: it hears nothing of it');
    assert.deepEqual(
      processes.map((process) => process.listens > 0),
      [true, true, true],
      'listens on every process',
    );

    // A listen begun now is not even agreed the resource.
    const late = await listen(outsiderSession);
    assert.equal(late.agreed, undefined, 'a resource the caller may not read is not agreed');
  });
});
