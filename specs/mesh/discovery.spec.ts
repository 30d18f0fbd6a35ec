/**
 * rxmcp/mesh with its default members (issue 30 items 1 and 2 together): no `members$` given, the mesh follows the
 * servers announced on the NATS services protocol. Members served with serveNats on a real nats-server appear in
 * the union as they start, two processes of one binding are one member, a server that closes leaves the union
 * (the callers hear list_changed), and the mesh, served on NATS itself, never joins itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { firstValueFrom } from 'rxjs';
import { type Mesh, createMesh } from '../../mesh/index.ts';
import { membersOf } from '../../mesh/discovered-members.ts';
import { type NatsServing, serveNats } from '../../transports/nats/index.ts';
import type { AnnouncedServer } from '../../transports/nats/discovery/announced-server.ts';
import { type MeshFixture, eventually, meshFixture } from './mesh-fixture.ts';
import { alphaServer, betaServer } from './members.ts';

const names = (items: readonly { readonly name: string }[]): string[] => items.map((item) => item.name).sort();

function announced(binding: string, instanceId: string, catalogRevision: string, name = `${binding}-server`): AnnouncedServer {
  return { instanceId, binding, prefix: 'mcp', serverInfo: { name, version: '1.0.0' }, revisions: ['2025-11-25'], eras: ['legacy'], catalogRevision };
}

describe('mesh - members from NATS discovery', () => {
  test('the processes of one binding are one member whose revision is all of theirs; the mesh\'s own name is left out', () => {
    const members = membersOf([announced('alpha', 'a1', 'r1'), announced('alpha', 'a2', 'r2'), announced('beta', 'b1', 'r3'), announced('front', 'm1', 'r4', 'the-mesh')], 'the-mesh');
    assert.deepEqual(members.map((member) => [member.binding, member.catalogRevision]), [['alpha', 'r1,r2'], ['beta', 'r3']]);
    assert.deepEqual(membersOf([announced('alpha', 'a1', 'r1'), announced('alpha', 'a2', 'r1')], 'x').map((member) => member.catalogRevision), ['r1']);
  });

  let fixture: MeshFixture;
  let mesh: Mesh;
  let meshServing: NatsServing | undefined;
  let meshConnection: Awaited<ReturnType<typeof connect>>;

  before(async () => {
    fixture = await meshFixture();
    await fixture.serveMember('alpha', alphaServer());
    meshConnection = await connect({ servers: fixture.nats.url });
    mesh = createMesh({
      connection: meshConnection,
      server: { name: 'the-mesh', version: '1.0.0' },
      discovery: { intervalMs: 150, windowMs: 60 },
      health: { intervalMs: 200, timeoutMs: 500, retryMs: 200 },
    });
    // The mesh is served on NATS too: it announces itself, and must not become its own member.
    meshServing = await serveNats(mesh.server, { connection: meshConnection, name: 'front', sessionRecords: false });
    mesh.start();
    await eventually(() => mesh.members.some((status) => status.member.binding === 'alpha' && status.up), 5000, 'alpha found and up');
  });

  after(async () => {
    await meshServing?.close('end', { drainMs: 0 });
    await mesh.close();
    await meshConnection.close();
    await fixture[Symbol.asyncDispose]();
  });

  test('a server that starts is found and joined; one that closes leaves, and the callers hear it', async () => {
    const caller = await fixture.caller(mesh);
    assert.deepEqual(names(await caller.listTools()), ['echo', 'status', 'wait']);
    const joined = firstValueFrom(caller.listChanged$);
    const beta = await fixture.serveMember('beta', betaServer());
    await joined;
    await eventually(async () => names(await caller.listTools()).includes('beta__status'), 5000, 'beta listed');
    assert.deepEqual(names(await caller.listTools()), ['alpha__status', 'beta__status', 'count', 'echo', 'hold', 'wait']);
    assert.deepEqual(mesh.members.map((status) => status.member.binding).sort(), ['alpha', 'beta'], 'the mesh (front) is not a member');

    // A second process of alpha: the same member, still one.
    await fixture.serveMember('alpha', alphaServer());
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(mesh.members.filter((status) => status.member.binding === 'alpha').length, 1);

    const left = firstValueFrom(caller.listChanged$);
    await beta.serving.close('end', { drainMs: 0 });
    await left;
    await eventually(async () => !names(await caller.listTools()).includes('beta__status'), 5000, 'beta gone');
    assert.deepEqual(names(await caller.listTools()), ['echo', 'status', 'wait']);
  });
});
