/**
 * rxmcp/mesh fails open (issue 30 item 2): a member whose NATS connection closes mid-call, or that leaves the
 * announced set mid-call, is taken out of the catalog (callers hear list_changed), its call in flight fails with a
 * clear error naming it, other members' calls go on; when it comes back it is listed again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { WireError } from '../../core/errors.ts';
import { MEMBER_UNAVAILABLE, type Mesh } from '../../mesh/index.ts';
import { type MemberServer, type MeshFixture, eventually, meshFixture } from './mesh-fixture.ts';
import { type Seen, alphaServer, betaServer } from './members.ts';

const names = (items: readonly { readonly name: string }[]): string[] => items.map((item) => item.name).sort();
const textOf = (result: { readonly content: readonly unknown[] }): string => (result.content[0] as { text: string }).text;

/** Whether `error` is the mesh's refusal naming `binding`. */
const unavailable = (binding: string, reason: RegExp) => (error: unknown): boolean =>
  error instanceof WireError && error.code === MEMBER_UNAVAILABLE && (error.data as { member?: string }).member === binding &&
  error.message.includes(`"${binding}"`) && reason.test(error.message);

describe('mesh - a member that fails or leaves', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;
  let alpha: MemberServer;
  let beta: MemberServer;
  const betaSeen: Seen = { started: 0, aborted: 0 };

  before(async () => {
    fixture = await meshFixture();
    alpha = await fixture.serveMember('alpha', alphaServer());
    beta = await fixture.serveMember('beta', betaServer(betaSeen));
    mesh = await fixture.mesh();
    fixture.members$.next([alpha.member, beta.member]);
    mesh.start();
    await eventually(() => mesh.members.length === 2 && mesh.members.every((status) => status.up), 5000, 'both members up');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('mesh - its NATS connection closed mid-call: the call fails naming it, it leaves the catalog, the rest goes on; back when it returns', async () => {
    const caller = await fixture.caller(mesh);
    assert.ok(names(await caller.listTools()).includes('hold'));
    // A call in flight on beta (its first progress report proves the handler runs), and one on alpha beside it.
    const held = caller.callTool$('hold', {}, { progress: true });
    const outcome = lastValueFrom(held.pipe(toArray())).then(() => undefined, (error: unknown) => error);
    await eventually(() => betaSeen.started === 1, 3000, 'beta\'s handler running');
    const changed = firstValueFrom(caller.listChanged$);
    const down = fixture.event((event) => event.type === 'down' && event.member.binding === 'beta');
    await beta.connection.close();
    const failure = await outcome;
    assert.ok(unavailable('beta', /ping|session|connect/)(failure), `the in-flight call failed naming beta: ${String(failure)}`);
    await down;
    assert.equal(await changed, 'tools');
    // beta's items are gone, and status is alpha's alone: its plain name again.
    assert.deepEqual(names(await caller.listTools()), ['echo', 'status', 'wait']);
    assert.deepEqual((await caller.listResources()).map((resource) => resource.uri).sort(), ['memo://alpha/notes', 'memo://shared']);
    assert.equal(textOf(await caller.callTool('status')), 'alpha ok');
    await assert.rejects(caller.callTool('count'), (error: unknown) => error instanceof WireError);
    assert.deepEqual(mesh.members.map((status) => [status.member.binding, status.up]).sort(), [['alpha', true], ['beta', false]]);

    // beta is served again (a new process, as it were): the mesh's retries find it and list it again.
    const rejoined = firstValueFrom(caller.listChanged$);
    beta = await fixture.serveMember('beta', betaServer(betaSeen));
    await fixture.event((event) => event.type === 'joined' && event.member.binding === 'beta', 10_000);
    await rejoined;
    assert.deepEqual(names(await caller.listTools()), ['alpha__status', 'beta__status', 'count', 'echo', 'hold', 'wait']);
    assert.equal(textOf(await caller.callTool('beta__status')), 'beta ok');
  });

  test('mesh - it leaves the announced set mid-call: the call fails naming it, it leaves the catalog; re-announced, it is back', async () => {
    const caller = await fixture.caller(mesh);
    const startedBefore = betaSeen.started;
    const abortedBefore = betaSeen.aborted;
    const outcome = lastValueFrom(caller.callTool$('hold', {}, { progress: true }).pipe(toArray())).then(() => undefined, (error: unknown) => error);
    await eventually(() => betaSeen.started === startedBefore + 1, 3000, 'beta\'s handler running');
    const alphaCall = firstValueFrom(caller.callTool$('wait', {}, { progress: true }).pipe(take(1)));
    const changed = firstValueFrom(caller.listChanged$);
    fixture.members$.next([alpha.member]);
    assert.ok(unavailable('beta', /left the mesh/)(await outcome));
    assert.equal(await changed, 'tools');
    // The member's request was cancelled there too, and alpha's call went on meanwhile.
    await eventually(() => betaSeen.aborted === abortedBefore + 1, 3000, 'beta saw its request cancelled');
    assert.equal((await alphaCall).type, 'progress');
    assert.deepEqual(names(await caller.listTools()), ['echo', 'status', 'wait']);
    assert.deepEqual(mesh.members.map((status) => status.member.binding), ['alpha']);

    const back = firstValueFrom(caller.listChanged$);
    fixture.members$.next([alpha.member, beta.member]);
    await back;
    await eventually(async () => names(await caller.listTools()).includes('beta__status'), 5000, 'beta listed again');
    assert.equal(textOf(await caller.callTool('beta__status')), 'beta ok');
  });

  test('mesh - a member announced that does not answer is never listed, and the rest is served', async () => {
    const caller = await fixture.caller(mesh);
    const down = fixture.event((event) => event.type === 'down' && event.member.binding === 'nobody');
    fixture.members$.next([alpha.member, beta.member, { binding: 'nobody', prefix: 'mcp' }]);
    const event = await down;
    assert.ok(event.type === 'down' && /could not be connected/.test(event.reason));
    assert.equal(textOf(await caller.callTool('beta__status')), 'beta ok');
    assert.ok(!mesh.members.find((status) => status.member.binding === 'nobody')?.up);
    // A member whose binding is not a subject token is not joined at all.
    fixture.members$.next([alpha.member, beta.member, { binding: 'bad binding.>', prefix: 'mcp' }]);
    assert.deepEqual(mesh.members.map((status) => status.member.binding).sort(), ['alpha', 'beta']);
  });

  test('mesh - a call the member lets time out fails naming it; a member that still answers pings stays in', async () => {
    const patient = await fixture.mesh({ callTimeoutMs: 300 });
    fixture.members$.next([alpha.member, beta.member]);
    patient.start();
    await eventually(() => patient.members.length === 2 && patient.members.every((status) => status.up), 5000, 'both members up');
    const caller = await fixture.caller(patient);
    const abortedBefore = betaSeen.aborted;
    // hold reports progress once, then nothing: 300 ms later the mesh gives up on it, and cancels it on the member.
    await assert.rejects(caller.callTool('hold'), unavailable('beta', /did not answer within 300 ms/));
    await eventually(() => betaSeen.aborted === abortedBefore + 1, 3000, 'beta saw the request cancelled');
    // The ping that followed was answered: beta is still in, and answers.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(patient.members.every((status) => status.up));
    assert.equal(textOf(await caller.callTool('beta__status')), 'beta ok');
  });
});
