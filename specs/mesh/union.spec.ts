/**
 * rxmcp/mesh, the union catalog and routing (issue 30 item 2): members served with serveNats on a real nats-server,
 * a mesh joining them, and rxmcp clients calling the mesh. The union is listed under the naming rule, each request
 * reaches its member under the item's own name with its progress, a caller's cancellation cancels the member's
 * request, a member joining renames what now collides and tells the callers, and each caller sees (and may call)
 * only what the operator's filter shows it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import type { AuthInfo } from '../../core/auth.ts';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import type { Mesh, MeshMember, MeshOptions } from '../../mesh/index.ts';
import { type MeshFixture, eventually, meshFixture } from './mesh-fixture.ts';
import { type Seen, alphaServer, betaServer, gammaServer } from './members.ts';

const names = (items: readonly { readonly name: string }[]): string[] => items.map((item) => item.name).sort();
const textOf = (result: { readonly content: readonly unknown[] }): string => (result.content[0] as { text: string }).text;

function principal(name: string, scopes: readonly string[] = []): AuthInfo {
  return { principal: name, scopes, claims: {} };
}

describe('mesh - the union catalog and routing', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;
  const alphaSeen: Seen = { started: 0, aborted: 0 };

  before(async () => {
    fixture = await meshFixture();
    const alpha = await fixture.serveMember('alpha', alphaServer(alphaSeen));
    const beta = await fixture.serveMember('beta', betaServer());
    mesh = await fixture.mesh();
    fixture.members$.next([alpha.member, beta.member]);
    mesh.start();
    await eventually(() => mesh.members.length === 2 && mesh.members.every((status) => status.up), 5000, 'both members up');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('mesh - the union is listed: unique names kept, colliding ones prefixed with their binding', async () => {
    const caller = await fixture.caller(mesh);
    assert.deepEqual(names(await caller.listTools()), ['alpha__status', 'beta__status', 'count', 'echo', 'hold', 'wait']);
    assert.deepEqual(names(await caller.listPrompts()), ['greet']);
    const uris = (await caller.listResources()).map((resource) => resource.uri).sort();
    assert.deepEqual(uris, ['memo://alpha/notes', 'mesh://alpha/memo://shared', 'mesh://beta/memo://shared']);
    assert.deepEqual((await caller.listResourceTemplates()).map((template) => template.uriTemplate), ['memo://alpha/days/{day}']);
    // The member's schema is what the mesh lists.
    const echo = (await caller.listTools()).find((tool) => tool.name === 'echo');
    assert.deepEqual(Object.keys(echo?.inputSchema.properties ?? {}), ['text']);
  });

  test('mesh - each request reaches its member under the item\'s own name', async () => {
    const caller = await fixture.caller(mesh);
    assert.equal(textOf(await caller.callTool('alpha__status')), 'alpha ok');
    assert.equal(textOf(await caller.callTool('beta__status')), 'beta ok');
    assert.equal(textOf(await caller.callTool('echo', { text: 'hi' })), 'alpha: hi');
    const shared = await caller.readResource('mesh://beta/memo://shared');
    assert.deepEqual(shared.contents.map((content) => [content.uri, (content as { text: string }).text]), [['mesh://beta/memo://shared', 'beta shared']]);
    assert.equal((await caller.readResource('memo://alpha/days/monday')).contents[0]?.uri, 'memo://alpha/days/monday');
    assert.equal(((await caller.readResource('memo://alpha/days/monday')).contents[0] as { text: string }).text, 'alpha monday');
    const prompt = await caller.getPrompt('greet', { who: 'Ada' });
    assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello Ada from alpha' });
    // The member's own refusal comes back as it is: invalid arguments are the member's -32602... or its isError.
    const invalid = await caller.callTool('echo', { text: 7 }).then((result) => result, (error: unknown) => error);
    assert.ok(invalid instanceof WireError ? invalid.code === ErrorCode.InvalidParams : (invalid as { isError?: boolean }).isError === true);
  });

  test('mesh - completion of a prompt argument and a template variable is the member\'s', async () => {
    const caller = await fixture.caller(mesh);
    assert.deepEqual((await caller.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'A' })).completion.values, ['Ada', 'Alan']);
    assert.deepEqual((await caller.complete({ type: 'ref/resource', uri: 'memo://alpha/days/{day}' }, { name: 'day', value: 't' })).completion.values, ['tuesday']);
  });

  test('mesh - the member\'s progress reaches the caller', async () => {
    const caller = await fixture.caller(mesh);
    const events = await lastValueFrom(caller.callTool$('count', {}, { progress: true }).pipe(toArray()));
    assert.deepEqual(events.filter((event) => event.type === 'progress').map((event) => event.type === 'progress' && event.progress), [1, 2]);
    const last = events.at(-1);
    assert.ok(last?.type === 'result' && textOf(last.result) === 'counted');
  });

  test('mesh - a caller\'s cancellation cancels the member\'s request', async () => {
    const caller = await fixture.caller(mesh);
    const startedBefore = alphaSeen.started;
    const abortedBefore = alphaSeen.aborted;
    // The first progress report proves the member's handler is running; unsubscribing then cancels.
    await firstValueFrom(caller.callTool$('wait', {}, { progress: true }).pipe(take(1)));
    assert.equal(alphaSeen.started, startedBefore + 1);
    await eventually(() => alphaSeen.aborted === abortedBefore + 1, 3000, 'the member saw the cancellation');
  });

  test('mesh - a member joining: the callers hear list_changed and colliding names are prefixed', async () => {
    const caller = await fixture.caller(mesh);
    const changed = firstValueFrom(caller.listChanged$);
    const gamma = await fixture.serveMember('gamma', gammaServer());
    fixture.members$.next([...fixture.members$.value, gamma.member]);
    assert.equal(await changed, 'tools');
    await eventually(async () => names(await caller.listTools()).includes('gamma__echo'), 5000, 'gamma listed');
    assert.deepEqual(names(await caller.listTools()), ['alpha__echo', 'alpha__status', 'beta__status', 'count', 'gamma__echo', 'hold', 'wait']);
    assert.equal(textOf(await caller.callTool('gamma__echo', { text: 'x' })), 'gamma: x');
    assert.equal(textOf(await caller.callTool('alpha__echo', { text: 'x' })), 'alpha: x');
    // It leaves: echo is alpha's alone again, under its plain name.
    const again = firstValueFrom(caller.listChanged$);
    fixture.members$.next(fixture.members$.value.filter((member) => member.binding !== 'gamma'));
    await again;
    await eventually(async () => names(await caller.listTools()).includes('echo'), 5000, 'echo plain again');
    assert.ok(!names(await caller.listTools()).includes('gamma__echo'));
  });

  test('mesh - a new catalogRevision of a member makes the mesh list it again', async () => {
    const relisted = fixture.event((event) => event.type === 'relisted' && event.member.binding === 'alpha' && event.member.catalogRevision === 'r2');
    fixture.members$.next(fixture.members$.value.map((member) => (member.binding === 'alpha' ? { ...member, catalogRevision: 'r2' } : member)));
    const event = await relisted;
    assert.ok(event.type === 'relisted' && event.items > 0);
  });

  test('mesh - a member\'s own list_changed makes the mesh list it again', async () => {
    const caller = await fixture.caller(mesh);
    const extra = alphaServer();
    const delta = await fixture.serveMember('delta', extra);
    fixture.members$.next([...fixture.members$.value, delta.member]);
    await eventually(async () => names(await caller.listTools()).includes('delta__status'), 5000, 'delta listed');
    const changed = firstValueFrom(caller.listChanged$);
    const added = extra.tool({ name: 'fresh' }, () => 'fresh from delta');
    await changed;
    await eventually(async () => names(await caller.listTools()).includes('fresh'), 5000, 'the new tool listed');
    assert.equal(textOf(await caller.callTool('fresh')), 'fresh from delta');
    added.remove();
    await eventually(async () => !names(await caller.listTools()).includes('fresh'), 5000, 'the removed tool unlisted');
    fixture.members$.next(fixture.members$.value.filter((member) => member.binding !== 'delta'));
    await eventually(async () => !names(await caller.listTools()).includes('delta__status'), 5000, 'delta gone');
  });
});

describe('mesh - the naming rule and the selection are the operator\'s', () => {
  let fixture: MeshFixture;
  let members: readonly MeshMember[];

  before(async () => {
    fixture = await meshFixture();
    members = [(await fixture.serveMember('alpha', alphaServer())).member, (await fixture.serveMember('beta', betaServer())).member];
    fixture.members$.next(members);
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  const started = async (options: Partial<MeshOptions>, count: number): Promise<Mesh> => {
    const mesh = await fixture.mesh(options);
    mesh.start();
    await eventually(() => mesh.members.length === count && mesh.members.every((status) => status.up), 5000, 'the members up');
    return mesh;
  };

  test('mesh - naming always: every tool, prompt and resource carries its binding', async () => {
    const caller = await fixture.caller(await started({ naming: 'always' }, 2));
    assert.deepEqual(names(await caller.listTools()), ['alpha__echo', 'alpha__status', 'alpha__wait', 'beta__count', 'beta__hold', 'beta__status']);
    assert.deepEqual(names(await caller.listPrompts()), ['alpha__greet']);
    assert.deepEqual((await caller.listResourceTemplates()).map((template) => template.uriTemplate), ['mesh://alpha/memo://alpha/days/{day}']);
    // A prefixed template is read through the member's own template.
    const day = await caller.readResource('mesh://alpha/memo://alpha/days/friday');
    assert.deepEqual(day.contents.map((content) => [content.uri, (content as { text: string }).text]), [['mesh://alpha/memo://alpha/days/friday', 'alpha friday']]);
    assert.equal(textOf(await caller.callTool('beta__count')), 'counted');
  });

  test('mesh - a naming function, and a name it gives twice served once (the other reported skipped)', async () => {
    const mesh = await started({
      naming: (member, name, kind, colliding) => (kind === 'tool' && colliding ? `${name}.${member.binding}` : kind === 'tool' && name === 'count' ? 'echo' : name),
    }, 2);
    const caller = await fixture.caller(mesh);
    assert.deepEqual(names(await caller.listTools()), ['echo', 'hold', 'status.alpha', 'status.beta', 'wait']);
    assert.equal(textOf(await caller.callTool('status.beta')), 'beta ok');
    // count was renamed onto alpha's echo: alpha (first by binding) keeps it, beta's is left out and reported.
    assert.equal(textOf(await caller.callTool('echo', { text: 'x' })), 'alpha: x');
    assert.ok(fixture.events.some((event) => event.type === 'skipped' && event.item.name === 'count' && event.item.exposedName === 'echo'));
  });

  test('mesh - select: only the members it picks are joined', async () => {
    const caller = await fixture.caller(await started({ select: (member) => member.binding === 'beta' }, 1));
    assert.deepEqual(names(await caller.listTools()), ['count', 'hold', 'status']);
  });
});

describe('mesh - per-caller filtering', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;

  before(async () => {
    fixture = await meshFixture();
    const alpha = await fixture.serveMember('alpha', alphaServer());
    const beta = await fixture.serveMember('beta', betaServer());
    mesh = await fixture.mesh({
      // beta's items are for admins only; alpha's echo needs the echo scope (a step-up refusal, not a hidden item).
      visible: (caller, member) => member.binding !== 'beta' || caller.auth?.claims['role'] === 'admin',
      requires: (member, item) => (member.binding === 'alpha' && item.name === 'echo' ? ['echo'] : undefined),
    });
    fixture.members$.next([alpha.member, beta.member]);
    mesh.start();
    await eventually(() => mesh.members.every((status) => status.up) && mesh.members.length === 2, 5000, 'both members up');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  test('mesh - two principals see different catalogs; a hidden tool called by name is an unknown tool', async () => {
    const admin = await fixture.caller(mesh, { ...principal('root', ['echo']), claims: { role: 'admin' } });
    const guest = await fixture.caller(mesh, principal('guest'));
    assert.deepEqual(names(await admin.listTools()), ['alpha__status', 'beta__status', 'count', 'echo', 'hold', 'wait']);
    // The naming rule is the operator's, not the caller's: beta's status stays prefixed even where beta is hidden.
    assert.deepEqual(names(await guest.listTools()), ['alpha__status', 'wait']);
    assert.deepEqual((await guest.listResources()).map((resource) => resource.uri).sort(), ['memo://alpha/notes', 'mesh://alpha/memo://shared']);
    assert.equal(textOf(await admin.callTool('beta__status')), 'beta ok');
    await assert.rejects(guest.callTool('beta__status'), (error: unknown) => error instanceof WireError && error.code === ErrorCode.InvalidParams && /beta__status/.test(error.message));
    await assert.rejects(guest.readResource('mesh://beta/memo://shared'), (error: unknown) => error instanceof WireError);
    // Beside the predicate, a scope the caller lacks hides the item the same way.
    await assert.rejects(guest.callTool('echo', { text: 'x' }), (error: unknown) => error instanceof WireError && error.code === ErrorCode.InvalidParams);
    assert.equal(textOf(await admin.callTool('echo', { text: 'x' })), 'alpha: x');
  });

  test('mesh - scopes alone: the item is hidden from callers without them, and a call is refused for a step-up', async () => {
    const scoped = await fixture.mesh({ requires: (member, item) => (member.binding === 'alpha' && item.name === 'echo' ? ['echo'] : undefined) });
    scoped.start();
    await eventually(() => scoped.members.length === 2 && scoped.members.every((status) => status.up), 5000, 'both members up');
    const guest = await fixture.caller(scoped, principal('guest'));
    const holder = await fixture.caller(scoped, principal('holder', ['echo']));
    assert.ok(!names(await guest.listTools()).includes('echo'));
    assert.ok(names(await holder.listTools()).includes('echo'));
    await assert.rejects(guest.callTool('echo', { text: 'x' }), (error: unknown) =>
      error instanceof WireError && error.code === ErrorCode.InsufficientScope && JSON.stringify(error.data) === JSON.stringify({ requiredScopes: ['echo'] }));
    assert.equal(textOf(await holder.callTool('echo', { text: 'x' })), 'alpha: x');
  });
});
