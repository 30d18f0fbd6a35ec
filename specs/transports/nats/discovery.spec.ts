/**
 * discoverNatsServers and watchNatsServers against real server processes on a real nats-server: every served
 * process is listed once with its MCP facts (two names, and two processes of one name as two instances), answers
 * that are not MCP announcements are left out and the count is bounded; the catalog revision is the same for
 * the same catalog and moves when a tool is added, and a watch emits then; a process that closes stops being
 * listed before its requests have drained; one that is SIGKILLed vanishes; a watch's timers end with it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom, filter } from 'rxjs';
import { ALL_REVISIONS, MODERN_REVISIONS } from '../../../core/protocol/versions.ts';
import { TestClock } from '../../../core/test-clock.ts';
import type { NatsConnection } from '@nats-io/transport-node';
import { type AnnouncedServer, type DiscoverNatsServersOptions, discoverNatsServers, watchNatsServers } from '../../../transports/nats/index.ts';
import { delay, within } from '../../support/harness.ts';
import { type NatsFixture, natsFixture } from './nats-fixture.ts';
import { startServerProcess, stopAll } from './nats-processes.ts';

describe('nats discovery', () => {
  let fixture: NatsFixture;

  before(async () => {
    fixture = await natsFixture();
  });
  after(async () => {
    await stopAll();
    await fixture[Symbol.asyncDispose]();
  });

  /**
   * A discovery round with a window wider than the default, so a loaded machine's slow answer is not taken for an
   * absent server (and "not listed" is the stronger for it).
   */
  const discover = (connection: NatsConnection, options: DiscoverNatsServersOptions = {}): Promise<readonly AnnouncedServer[]> => discoverNatsServers(connection, { windowMs: 1000, ...options });
  const of = (servers: readonly AnnouncedServer[], binding: string): AnnouncedServer[] => servers.filter((server) => server.binding === binding);

  test('nats discovery - two names and two processes of one name are three servers, each with its MCP facts', async () => {
    const alphaOne = await fixture.serve({ nats: { name: 'alpha' }, server: { name: 'alpha-server', version: '1.2.0' } });
    const alphaTwo = await fixture.serve({ nats: { name: 'alpha' }, server: { name: 'alpha-server', version: '1.2.0' } });
    const beta = await fixture.serve({ nats: { name: 'beta', prefix: 'tools.mcp' }, server: { name: 'beta-server', version: '7', eras: 'modern' } });
    const found = await discover(await fixture.connection());
    assert.deepEqual(of(found, 'alpha').map((server) => server.instanceId).sort(), [alphaOne.serving.processId, alphaTwo.serving.processId].sort());
    assert.deepEqual(of(found, 'alpha')[0], {
      instanceId: of(found, 'alpha')[0]?.instanceId,
      binding: 'alpha',
      prefix: 'mcp',
      serverInfo: { name: 'alpha-server', version: '1.2.0' },
      revisions: [...ALL_REVISIONS],
      eras: ['legacy', 'modern'],
      catalogRevision: alphaOne.server.describe().catalogRevision,
    });
    assert.deepEqual(of(found, 'beta'), [{
      instanceId: beta.serving.processId,
      binding: 'beta',
      prefix: 'tools.mcp',
      serverInfo: { name: 'beta-server', version: '7' },
      revisions: [...MODERN_REVISIONS],
      eras: ['modern'],
      catalogRevision: beta.server.describe().catalogRevision,
    }]);
    // Asking one service name, or keeping one prefix, narrows the list.
    assert.deepEqual((await discover(await fixture.connection(), { serviceName: 'beta' })).map((server) => server.instanceId), [beta.serving.processId]);
    assert.deepEqual((await discover(await fixture.connection(), { prefix: 'tools.mcp' })).map((server) => server.binding), ['beta']);
    for (const { serving } of [alphaOne, alphaTwo, beta]) await serving.close('end', { drainMs: 0 });
  });

  test('nats discovery - answers that are not MCP announcements are left out, and the count of answers read is bounded', async () => {
    const served = await fixture.serve({ nats: { name: 'real' } });
    const liar = await fixture.connection();
    const good = { type: 'io.nats.micro.v1.info_response', name: 'fake', id: 'fake1', version: '1.0.0', description: '', endpoints: [] };
    const facts = { 'mcp.name': 'f', 'mcp.version': '1', 'mcp.revisions': '2025-11-25', 'mcp.eras': 'legacy', 'mcp.catalog': 'c', 'mcp.prefix': 'mcp', 'mcp.binding': 'fake' };
    const junk = [
      'not json',
      JSON.stringify([1, 2]),
      JSON.stringify({ ...good, metadata: {} }),
      JSON.stringify({ ...good, type: 'io.nats.micro.v1.ping_response', metadata: facts }),
      JSON.stringify({ ...good, id: 'has.dots', metadata: facts }),
      JSON.stringify({ ...good, metadata: { ...facts, 'mcp.eras': 'legacy,future' } }),
      JSON.stringify({ ...good, metadata: { ...facts, 'mcp.revisions': 'yesterday' } }),
      JSON.stringify({ ...good, metadata: { ...facts, 'mcp.binding': 'a.b' } }),
      JSON.stringify({ ...good, metadata: { ...facts, 'mcp.catalog': 7 } }),
      JSON.stringify({ ...good, metadata: { ...facts, 'mcp.name': 'x'.repeat(300) } }),
      JSON.stringify({ ...good, metadata: facts, padding: 'x'.repeat(70_000) }),
    ];
    liar.subscribe('$SRV.INFO', { callback: (_error, msg) => { for (const body of junk) msg.respond(body); } });
    await liar.flush();
    const found = await discover(await fixture.connection());
    assert.deepEqual(found.map((server) => server.binding), ['real']);
    assert.equal(found[0]?.instanceId, served.serving.processId);
    // One well-formed announcement among the junk is kept.
    const honest = await fixture.connection();
    honest.subscribe('$SRV.INFO', { callback: (_error, msg) => void msg.respond(JSON.stringify({ ...good, metadata: facts })) });
    await honest.flush();
    assert.deepEqual((await discover(await fixture.connection())).map((server) => server.binding).sort(), ['fake', 'real']);
    // At most maxServers answers are read: the round ends there (long before its minute-long window), whatever else comes.
    const bounded = await within(discover(await fixture.connection(), { maxServers: 3, windowMs: 60_000 }), 3000, 'a round bounded to 3 answers');
    assert.ok(bounded.length <= 2, `${bounded.length} servers from 3 answers, at most 2 of them well formed`);
    await served.serving.close('end', { drainMs: 0 });
  });

  test('nats discovery - the catalog revision is the same for the same catalog and moves when a tool is added; a watch emits then', async () => {
    const first = await fixture.serve({ nats: { name: 'catalog' } });
    const second = await fixture.serve({ nats: { name: 'catalog' } });
    const watcher = await fixture.connection();
    const sets: Array<readonly AnnouncedServer[]> = [];
    const watching = watchNatsServers(watcher, { intervalMs: 100, windowMs: 50 }).subscribe((servers) => sets.push(servers));
    try {
      const initial = await within(firstValueFrom(watchNatsServers(watcher, { windowMs: 100 }).pipe(filter((servers) => of(servers, 'catalog').length === 2))), 5000);
      const [a, b] = of(initial, 'catalog');
      assert.equal(a?.catalogRevision, b?.catalogRevision);
      const before = a?.catalogRevision;
      first.server.tool({ name: 'added' }, () => 'added');
      const changed = await within(firstValueFrom(watchNatsServers(watcher, { windowMs: 100, intervalMs: 100 }).pipe(filter((servers) => of(servers, 'catalog').some((server) => server.catalogRevision !== before)))), 5000);
      const moved = of(changed, 'catalog').find((server) => server.instanceId === first.serving.processId);
      assert.notEqual(moved?.catalogRevision, before);
      assert.equal(moved?.catalogRevision, first.server.describe().catalogRevision);
      assert.equal(of(changed, 'catalog').find((server) => server.instanceId === second.serving.processId)?.catalogRevision, before);
      // The long-running watch saw it too: a new set, emitted because a member's catalog revision moved.
      await within((async () => { while (!sets.some((set) => of(set, 'catalog').some((server) => server.catalogRevision === moved?.catalogRevision))) await delay(20); })(), 5000);
      // Only changes are emitted: no two sets in a row say the same.
      for (let index = 1; index < sets.length; index++) assert.notDeepEqual(sets[index], sets[index - 1]);
    } finally {
      watching.unsubscribe();
    }
    for (const { serving } of [first, second]) await serving.close('end', { drainMs: 0 });
  });

  test('nats discovery - a watch keeps a server that missed one round, and drops it after a second (graceRounds)', async () => {
    // An announcer that answers the rounds it is told to: rounds 1 and 3 answered, 2 missed (a late answer), then none.
    const good = { type: 'io.nats.micro.v1.info_response', name: 'grace', id: 'grace1', version: '1.0.0', description: '', endpoints: [] };
    const facts = { 'mcp.name': 'g', 'mcp.version': '1', 'mcp.revisions': '2025-11-25', 'mcp.eras': 'legacy', 'mcp.catalog': 'c', 'mcp.prefix': 'mcp', 'mcp.binding': 'grace' };
    const announcer = await fixture.connection();
    let rounds = 0;
    announcer.subscribe('$SRV.INFO.grace', {
      callback: (_error, msg) => {
        rounds++;
        if (rounds === 1 || rounds === 3) msg.respond(JSON.stringify({ ...good, metadata: facts }));
      },
    });
    await announcer.flush();
    const sets: { readonly round: number; readonly bindings: string[] }[] = [];
    const watching = watchNatsServers(await fixture.connection(), { serviceName: 'grace', intervalMs: 150, windowMs: 100 }).subscribe((servers) => sets.push({ round: rounds, bindings: servers.map((server) => server.binding) }));
    try {
      await within((async () => { while (rounds < 7) await delay(20); })(), 10_000, 'seven rounds');
      // Found at round 1; kept through the missed round 2; missing again from 4 on, gone once round 5 ended.
      assert.deepEqual(sets.map((set) => set.bindings), [['grace'], []], `the sets: ${JSON.stringify(sets)}`);
      assert.ok((sets[1]?.round ?? 0) >= 5, `dropped only after its second missed round in a row: ${JSON.stringify(sets)}`);
      assert.throws(() => watchNatsServers(announcer, { graceRounds: -1 }), /graceRounds must be a whole number >= 0/);
    } finally {
      watching.unsubscribe();
    }
  });

  test('nats discovery - a watch holds its interval and its round while subscribed, and nothing after', async () => {
    const clock = new TestClock();
    const watching = watchNatsServers(await fixture.connection(), { clock, intervalMs: 1000 }).subscribe();
    assert.equal(clock.intervals, 1);
    // The interval and the first round's window.
    assert.equal(clock.pending, 2);
    watching.unsubscribe();
    assert.equal(clock.intervals, 0);
    assert.equal(clock.pending, 0);
    // Bad options are refused when the watch is made, naming what is wrong.
    const connection = await fixture.connection();
    assert.throws(() => watchNatsServers(connection, { intervalMs: 0 }), /intervalMs must be a finite number > 0/);
    assert.throws(() => watchNatsServers(connection, { maxServers: 0 }), /maxServers must be a whole number >= 1/);
    assert.throws(() => watchNatsServers(connection, { serviceName: 'a.b' }), /must match \[A-Za-z0-9_-\]\+/);
    await assert.rejects(discoverNatsServers(connection, { windowMs: -1 }), /windowMs must be a finite number >= 0/);
  });

  test('nats discovery - a process that closes is no longer listed, before its requests in flight have drained', async () => {
    const { serving } = await fixture.serve({ nats: { name: 'closing' } });
    const watcher = await fixture.connection();
    assert.deepEqual(of(await discover(watcher), 'closing').map((server) => server.instanceId), [serving.processId]);
    const { session } = await fixture.client({ transport: { name: 'closing' } });
    const slow = session.callTool('slow', { ms: 3000 });
    await delay(50);
    const closing = serving.close('handover', { drainMs: 5000 });
    assert.deepEqual(of(await discover(watcher), 'closing'), []);
    assert.equal(serving.counts().inFlight, 1, 'the request still runs');
    assert.deepEqual((await slow).content, [{ type: 'text', text: 'waited 3000' }]);
    await closing;
    assert.deepEqual(of(await discover(watcher), 'closing'), []);
  });

  test('nats discovery - a server process that is SIGKILLed vanishes; one in another process announces its catalog changes', async () => {
    const child = await startServerProcess(fixture.nats.url, 'child');
    const watcher = await fixture.connection();
    const listed = of(await discover(watcher), 'child');
    assert.deepEqual(listed.map((server) => server.instanceId), [child.processId]);
    assert.deepEqual(listed[0]?.serverInfo, { name: 'nats-fixture', version: '1.0.0' });
    await child.command('add-tool extra');
    const after = of(await discover(watcher), 'child');
    assert.notEqual(after[0]?.catalogRevision, listed[0]?.catalogRevision);
    await child.kill();
    assert.deepEqual(of(await discover(watcher), 'child'), []);
  });
});
