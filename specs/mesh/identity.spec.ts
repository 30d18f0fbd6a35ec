/**
 * rxmcp/mesh carries the caller to the members (issue 30 item 2): with an identity signer, each authenticated
 * caller's requests reach the member with an identity assertion for that caller, so the member's handler sees the
 * caller as `ctx.auth` (legacy and modern callers alike); a caller nobody authenticated reaches it as anonymous.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import type { AuthInfo } from '../../core/auth.ts';
import type { Mesh } from '../../mesh/index.ts';
import { createMemoryPair } from '../../transports/memory/memory-transport.ts';
import { createIdentitySigner } from '../../transports/nats/index.ts';
import { gatewayKeys } from '../transports/nats/identity-keys.ts';
import { type MeshFixture, eventually, memberServer, meshFixture } from './mesh-fixture.ts';

const textOf = (result: { readonly content: readonly unknown[] }): string => (result.content[0] as { text: string }).text;

describe('mesh - the caller\'s identity reaches the members', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;

  before(async () => {
    fixture = await meshFixture();
    const keys = await gatewayKeys('mesh-key');
    const vault = memberServer('vault');
    vault.tool({ name: 'whoami' }, (_args, ctx) => (ctx.auth === undefined ? 'anonymous' : `${ctx.auth.principal} [${ctx.auth.scopes.join(' ')}]`));
    const served = await fixture.serveMember('vault', vault, { identity: { keys: keys.publicJwk } });
    mesh = await fixture.mesh({ identity: createIdentitySigner({ key: keys.privateJwk, issuer: 'rxmcp-mesh' }) });
    fixture.members$.next([served.member]);
    mesh.start();
    await eventually(() => mesh.members.length === 1 && mesh.members.every((status) => status.up), 5000, 'the member up');
  });

  after(async () => {
    await fixture[Symbol.asyncDispose]();
  });

  const callerAs = async (auth: AuthInfo | undefined, era: 'legacy' | 'modern') => {
    const [clientEnd, serverEnd] = createMemoryPair(auth === undefined ? {} : { serverAuth: auth });
    mesh.server.accept(serverEnd);
    return createClient({ name: 'caller', version: '1.0.0', era }).connect(clientEnd);
  };

  test('mesh - legacy and modern callers reach the member as themselves; an anonymous one as anonymous', async () => {
    const ada = await callerAs({ principal: 'ada', scopes: ['read'], claims: {} }, 'legacy');
    const bob = await callerAs({ principal: 'bob', scopes: ['write'], claims: {} }, 'modern');
    const nobody = await callerAs(undefined, 'legacy');
    try {
      assert.equal(textOf(await ada.callTool('whoami')), 'ada [read]');
      assert.equal(bob.session.era, 'modern');
      assert.equal(textOf(await bob.callTool('whoami')), 'bob [write]');
      assert.equal(textOf(await nobody.callTool('whoami')), 'anonymous');
      // Concurrent callers each keep their own identity.
      const [first, second] = await Promise.all([ada.callTool('whoami'), bob.callTool('whoami')]);
      assert.deepEqual([textOf(first), textOf(second)], ['ada [read]', 'bob [write]']);
    } finally {
      await Promise.allSettled([ada.close(), bob.close(), nobody.close()]);
    }
  });
});
