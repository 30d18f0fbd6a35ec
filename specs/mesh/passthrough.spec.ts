/**
 * rxmcp/mesh passes a member's questions back to the caller whose request it serves (issue 30 item 2): an
 * elicitation, a sampling request and a roots listing the member makes during a tool call reach that caller and the
 * answers go back, in the legacy era and the modern one (2026-07-28 input rounds, the member's handler running
 * again from the start as any rxmcp handler does); two callers asked at once each answer their own; what the member
 * logs during the call reaches the caller.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { createClient, type ClientOptions } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import type { Mesh } from '../../mesh/index.ts';
import type { McpServer } from '../../server/server-api.ts';
import { createMemoryPair } from '../../transports/memory/memory-transport.ts';
import { type MeshFixture, eventually, memberServer, meshFixture } from './mesh-fixture.ts';

const textOf = (result: { readonly content: readonly unknown[] }): string => (result.content[0] as { text: string }).text;

/** A member whose tools ask their caller: for a name, for a completion, for its roots. */
function askingServer(seen: { runs: number; aborted: number }) {
  const server = memberServer('asker');
  server.tool({ name: 'ask', inputSchema: z.object({}) }, async (_args, ctx) => {
    seen.runs++;
    ctx.signal.addEventListener('abort', () => seen.aborted++, { once: true });
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    const name = answer.action === 'accept' ? String(answer.content?.['name']) : 'nobody';
    ctx.log('info', { greeted: name }, 'asker');
    return `hello ${name}`;
  });
  server.tool({ name: 'sample', inputSchema: z.object({}) }, async (_args, ctx) => {
    const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 });
    return `the model said: ${(result.content as { text: string }).text}`;
  });
  server.tool({ name: 'roots', inputSchema: z.object({}) }, async (_args, ctx) => (await ctx.roots()).map((root) => root.uri).join(' '));
  return server;
}

/** A client of the mesh that answers as `name`. */
async function askedCaller(mesh: Mesh, name: string, era: 'legacy' | 'modern'): Promise<ClientSession> {
  const options: ClientOptions = {
    name: `caller-${name}`,
    version: '1.0.0',
    era,
    elicitation: { form: async () => {
      await new Promise((resolve) => setTimeout(resolve, 30)); // both callers' questions are out at once
      return { action: 'accept', content: { name } };
    } },
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: `hi from ${name}'s model` }, model: 'spec' }),
    roots: [{ uri: `file:///home/${name}` }],
  };
  const [clientEnd, serverEnd] = createMemoryPair();
  mesh.server.accept(serverEnd);
  return createClient(options).connect(clientEnd);
}

describe('mesh - what a member asks back during a request', () => {
  let fixture: MeshFixture;
  let mesh: Mesh;
  let asker: McpServer;
  const seen = { runs: 0, aborted: 0 };
  const callers: ClientSession[] = [];

  before(async () => {
    fixture = await meshFixture();
    asker = askingServer(seen);
    const served = await fixture.serveMember('asker', asker);
    mesh = await fixture.mesh();
    fixture.members$.next([served.member]);
    mesh.start();
    await eventually(() => mesh.members.every((status) => status.up) && mesh.members.length === 1, 5000, 'the member up');
  });

  after(async () => {
    await Promise.allSettled(callers.map((caller) => caller.close()));
    await fixture[Symbol.asyncDispose]();
  });

  test('mesh - legacy era: elicitation, sampling and roots reach the caller, the answers go back, the member\'s log reaches it', async () => {
    const ada = await askedCaller(mesh, 'Ada', 'legacy');
    callers.push(ada);
    const log = firstValueFrom(ada.logs$);
    assert.equal(textOf(await ada.callTool('ask')), 'hello Ada');
    assert.deepEqual((await log).data, { greeted: 'Ada' });
    assert.equal(textOf(await ada.callTool('sample')), 'the model said: hi from Ada\'s model');
    assert.equal(textOf(await ada.callTool('roots')), 'file:///home/Ada');
  });

  test('mesh - two callers asked at the same time each answer their own question', async () => {
    const ada = await askedCaller(mesh, 'Ada', 'legacy');
    const bob = await askedCaller(mesh, 'Bob', 'legacy');
    callers.push(ada, bob);
    const [forAda, forBob] = await Promise.all([ada.callTool('ask'), bob.callTool('ask')]);
    assert.equal(textOf(forAda), 'hello Ada');
    assert.equal(textOf(forBob), 'hello Bob');
  });

  test('mesh - modern era: the member\'s question becomes the caller\'s input round, and the retry answers it', async () => {
    const cleo = await askedCaller(mesh, 'Cleo', 'modern');
    callers.push(cleo);
    assert.equal(cleo.session.era, 'modern');
    const runsBefore = seen.runs;
    assert.equal(textOf(await cleo.callTool('ask')), 'hello Cleo');
    // The member's handler ran twice (once to ask, once with the answer), and its first run was not left waiting.
    assert.equal(seen.runs, runsBefore + 2);
    await eventually(() => seen.aborted >= 1, 3000, 'the first run cancelled');
    assert.equal(textOf(await cleo.callTool('sample')), 'the model said: hi from Cleo\'s model');
    assert.equal(textOf(await cleo.callTool('roots')), 'file:///home/Cleo');
  });

  test('mesh - a legacy caller has its own session with the member, closed when the caller\'s closes', async () => {
    // The member sessions of earlier tests' modern requests close on their own: count once they have.
    await eventually(() => asker.sessions.size === 1 + 3, 3000, 'the shared session and the three legacy callers\' sessions alone');
    const before = asker.sessions.size;
    const dana = await askedCaller(mesh, 'Dana', 'legacy');
    assert.equal(textOf(await dana.callTool('roots')), 'file:///home/Dana');
    assert.equal(asker.sessions.size, before + 1);
    // A second request reuses it.
    assert.equal(textOf(await dana.callTool('roots')), 'file:///home/Dana');
    assert.equal(asker.sessions.size, before + 1);
    // The member ends that session itself (as it does to sessions idle too long): the next request opens another.
    const theirs = [...asker.sessions].at(-1);
    await theirs?.close();
    await eventually(() => asker.sessions.size === before, 3000, 'the member closed the caller\'s session');
    assert.equal(textOf(await dana.callTool('roots')), 'file:///home/Dana');
    assert.equal(asker.sessions.size, before + 1);
    await dana.close();
    await eventually(() => asker.sessions.size === before, 3000, 'the caller\'s member session closed');
  });
});
