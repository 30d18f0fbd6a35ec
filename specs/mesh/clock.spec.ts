/**
 * rxmcp/mesh takes its time from `MeshOptions.clock`: health pings go out only as that clock moves, a member that
 * stops answering is taken out when the ping's deadline passes on it, and it is tried again after the retry delay
 * on it, never on the wall clock. Against a real nats-server, driven by a TestClock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../../core/test-clock.ts';
import type { Mesh } from '../../mesh/index.ts';
import type { McpServer } from '../../server/server-api.ts';
import { type MemberServer, type MeshFixture, eventually, meshFixture } from './mesh-fixture.ts';
import { gammaServer } from './members.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function pingsTo(server: McpServer): { count: number } {
  const seen = { count: 0 };
  server.messages$.subscribe(({ direction, payload }) => {
    if (direction === 'in' && (payload as { method?: string }).method === 'ping') seen.count++;
  });
  return seen;
}

describe('mesh - the injected clock', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;
  let member: MemberServer;
  let pings: { count: number };
  const clock = new TestClock();

  before(async () => {
    fixture = await meshFixture();
    const server = gammaServer();
    pings = pingsTo(server);
    member = await fixture.serveMember('gamma', server);
    mesh = await fixture.mesh({ clock, health: { intervalMs: 1000, timeoutMs: 500, retryMs: 2000 } });
    mesh.start();
    fixture.members$.next([member.member]);
    await fixture.event((event) => event.type === 'joined');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('pings go out as the mesh\'s clock moves, not the wall clock', async () => {
    await sleep(300);
    assert.equal(pings.count, 0, 'no ping while the clock stands still');
    clock.advance(1000);
    await eventually(() => pings.count === 1, 5000, 'one ping after one interval');
    // One interval at a time, each ping answered before the next (a single jump would pass the ping's deadline too).
    await sleep(100);
    clock.advance(1000);
    await eventually(() => pings.count === 2, 5000, 'one more after one more interval');
    await sleep(100);
    assert.equal(fixture.events.some((event) => event.type === 'down'), false, 'answered pings keep the member up');
  });

  test('a member that vanishes is found out by the next ping on that clock, and tried again after the retry delay on it', async () => {
    // Gone without a word (its NATS connection closed): only a ping can tell.
    await member.connection.close();
    await sleep(300);
    assert.equal(fixture.events.some((event) => event.type === 'down'), false, 'no ping, so nothing noticed, while the clock stands still');
    clock.advance(1000);
    // Unanswered (or refused for want of responders): the ping's deadline is on the same clock.
    clock.advance(500);
    const down = await fixture.event((event) => event.type === 'down');
    assert.match((down as { reason: string }).reason, /ping/);
    assert.equal(mesh.members[0]?.up, false);
    // The member comes back; the mesh tries again only once the retry delay has passed on its clock.
    member = await fixture.serveMember('gamma', gammaServer());
    await sleep(300);
    assert.equal(mesh.members[0]?.up, false, 'not retried while the clock stands still');
    clock.advance(2000);
    await eventually(() => mesh.members[0]?.up === true, 5000, 'the member to be joined again');
    assert.ok(fixture.events.filter((event) => event.type === 'joined').length >= 2);
  });
});
