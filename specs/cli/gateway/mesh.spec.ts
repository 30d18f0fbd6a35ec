/**
 * `rxmcp gateway --mesh` as users run it (a real process) on a real nats-server: two rxmcp servers served on NATS
 * are found and joined; an official SDK client on Streamable HTTP lists their union and calls a tool of each; an
 * rxmcp client on NATS reaches the same union through `--serve-nats` (the mesh never joins itself); a third server
 * started later appears (the callers hear tools/list_changed); `--select` with a pattern leaves a server out; with
 * `--auth-issuer` and `--identity-key` a caller reaches a member as itself; bad flags are usage errors; SIGTERM
 * stops the gateway with exit code 0.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { firstValueFrom } from 'rxjs';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import type { McpServer } from '../../../server/server-api.ts';
import { type NatsServing, createNatsClientTransport, serveNats } from '../../../transports/nats/index.ts';
import { killChildren, until } from '../../support/interop-processes.ts';
import { type NatsServerProcess, freePort, startNatsServer } from '../../support/nats-server.ts';
import { alphaServer, betaServer, gammaServer } from '../../mesh/members.ts';
import { signingKey, startAuthorizationServer } from '../../auth/support.ts';
import { gatewayKeys } from '../../transports/nats/identity-keys.ts';
import { memberServer } from '../../mesh/mesh-fixture.ts';
import { runRxmcp } from '../../../cli/main.ts';
import { type RunningCli, startCli } from '../commands/cli-process.ts';

/** A discovery round this often, so a server that starts is joined within a fraction of a second. */
const DISCOVERY_MS = '250';
const START_MS = 30_000;

const names = (items: readonly { readonly name: string }[]): string[] => items.map((item) => item.name).sort();

/** The text of a tool result's first content block. */
function textOf(result: unknown): string {
  const content = (result as { readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }> }).content;
  return content?.[0]?.text ?? JSON.stringify(result);
}

/** Starts `rxmcp gateway --mesh ...` and resolves with its endpoint once it listens and has joined `members`. */
async function startMeshGateway(args: readonly string[], members: readonly string[], port = 0): Promise<{ readonly cli: RunningCli; readonly url: string }> {
  const cli = startCli(['gateway', '--mesh', ...args, '--port', String(port), '--discovery-ms', DISCOVERY_MS, '--drain-ms', '500']);
  await until(() => {
    if (cli.child.exitCode !== null) assert.fail(`the gateway exited: ${cli.stdout()} ${cli.stderr()}`);
    return /listening at \S+/.test(cli.stdout()) && members.every((binding) => cli.stdout().includes(`member "${binding}" joined`));
  }, `the gateway to listen and join ${members.join(', ')}; it wrote: ${cli.stdout()} ${cli.stderr()}`, START_MS);
  return { cli, url: (/listening at (\S+)/.exec(cli.stdout()) as RegExpExecArray)[1] as string };
}

describe('rxmcp gateway --mesh', () => {
  let nats: NatsServerProcess;
  const connections: NatsConnection[] = [];
  const servers: McpServer[] = [];
  const servings: NatsServing[] = [];
  let all: { readonly cli: RunningCli; readonly url: string };
  let selected: { readonly cli: RunningCli; readonly url: string };
  let sdk: Client;
  let natsCaller: ClientSession;
  let toolListChanges = 0;
  const cleanups: Array<() => Promise<unknown>> = [];

  const open = async (): Promise<NatsConnection> => {
    const made = await connect({ servers: nats.url });
    connections.push(made);
    return made;
  };
  const serveMember = async (binding: string, server: McpServer, identity?: Parameters<typeof serveNats>[1]['identity']): Promise<void> => {
    servers.push(server);
    servings.push(await serveNats(server, { connection: await open(), name: binding, sessionRecords: false, keepaliveMs: 200, ...(identity === undefined ? {} : { identity }) }));
  };

  before(async () => {
    // JetStream on: the mesh's NATS face records its legacy sessions there, as `serve --nats` does.
    nats = await startNatsServer();
    await serveMember('alpha', alphaServer());
    await serveMember('beta', betaServer());
    [all, selected] = await Promise.all([
      startMeshGateway(['--nats', nats.url, '--serve-nats', 'front', '--mesh-name', 'spec-mesh'], ['alpha', 'beta']),
      startMeshGateway(['--nats', nats.url, '--select', 'alpha,gam*', '--mesh-name', 'spec-mesh-selected'], ['alpha']),
    ]);
    sdk = new Client({ name: 'sdk-mesh-caller', version: '1.0.0' });
    sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => void toolListChanges++);
    await sdk.connect(new StreamableHTTPClientTransport(new URL(all.url)));
  });

  after(async () => {
    await sdk?.close().catch(() => undefined);
    await natsCaller?.close().catch(() => undefined);
    for (const gateway of [all, selected]) gateway?.cli.child.kill('SIGTERM');
    await Promise.allSettled([all?.cli.done, selected?.cli.done]);
    await killChildren();
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    await Promise.allSettled(servings.map((serving) => serving.close('end', { drainMs: 0 })));
    await Promise.allSettled(servers.map((server) => server.close()));
    await Promise.allSettled(connections.map((made) => made.close()));
    await nats?.dispose();
  });

  test('an SDK client on Streamable HTTP lists the union and calls a tool of each server', async () => {
    assert.equal(sdk.getServerVersion()?.name, 'spec-mesh');
    // status is served by both: prefixed with each binding; the others keep their names.
    assert.deepEqual(names((await sdk.listTools()).tools), ['alpha__status', 'beta__status', 'count', 'echo', 'hold', 'wait']);
    assert.equal(textOf(await sdk.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'alpha: hi');
    assert.equal(textOf(await sdk.callTool({ name: 'beta__status', arguments: {} })), 'beta ok');
    assert.equal(textOf(await sdk.callTool({ name: 'alpha__status', arguments: {} })), 'alpha ok');
  });

  test('--serve-nats: an rxmcp client on NATS reaches the same union, and the mesh does not join itself', async () => {
    natsCaller = await createClient({ name: 'nats-mesh-caller', version: '1.0.0', era: 'legacy' }).connect(createNatsClientTransport({ connection: await open(), name: 'front' }));
    assert.equal(natsCaller.session.peerInfo?.name, 'spec-mesh');
    assert.deepEqual(names(await natsCaller.listTools()), ['alpha__status', 'beta__status', 'count', 'echo', 'hold', 'wait']);
    assert.equal(textOf(await natsCaller.callTool('beta__status', {})), 'beta ok');
    assert.match(all.cli.stdout(), /the mesh is served on NATS too, as mcp\.front/);
    // Several discovery rounds have passed since the NATS face was announced.
    assert.doesNotMatch(all.cli.stdout(), /member "front"/);
  });

  test('a server started later is joined: the callers hear tools/list_changed and list it', async () => {
    const changesBefore = toolListChanges;
    const heardOnNats = firstValueFrom(natsCaller.listChanged$);
    await serveMember('gamma', gammaServer());
    await until(() => toolListChanges > changesBefore, 'the SDK client to hear tools/list_changed', 10_000);
    await heardOnNats;
    // echo now collides with gamma's: both are prefixed.
    const union = ['alpha__echo', 'alpha__status', 'beta__status', 'count', 'gamma__echo', 'hold', 'wait'];
    await until(async () => names((await sdk.listTools()).tools).includes('gamma__echo'), 'gamma listed on HTTP', 10_000);
    assert.deepEqual(names((await sdk.listTools()).tools), union);
    assert.equal(textOf(await sdk.callTool({ name: 'gamma__echo', arguments: { text: 'hey' } })), 'gamma: hey');
    assert.deepEqual(names(await natsCaller.listTools()), union);
  });

  test('--select alpha,gam* joins alpha and gamma and leaves beta out', async () => {
    const client = new Client({ name: 'sdk-selected-caller', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(selected.url)));
    try {
      await until(async () => names((await client.listTools()).tools).includes('gamma__echo'), 'gamma joined through the pattern', 10_000);
      assert.deepEqual(names((await client.listTools()).tools), ['alpha__echo', 'gamma__echo', 'status', 'wait']);
      assert.equal(textOf(await client.callTool({ name: 'status', arguments: {} })), 'alpha ok');
      assert.doesNotMatch(selected.cli.stdout(), /member "beta"/);
    } finally {
      await client.close();
    }
  });

  test('--auth-issuer and --identity-key: an authenticated caller reaches a member as itself', async () => {
    const key = await signingKey('ES256', 'k1');
    const as = await startAuthorizationServer([key]);
    cleanups.push(async () => as[Symbol.asyncDispose]());
    const keys = await gatewayKeys('mesh-gw');
    const dir = await mkdtemp(join(tmpdir(), 'rxmcp-gateway-mesh-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const keyFile = join(dir, 'gateway.jwk');
    await writeFile(keyFile, JSON.stringify(keys.privateJwk));
    const vault = memberServer('vault-server');
    vault.tool({ name: 'whoami' }, (_args, ctx) => (ctx.auth === undefined ? 'anonymous' : ctx.auth.principal ?? 'no principal'));
    await serveMember('vault', vault, { keys: [keys.publicJwk] });
    const port = await freePort();
    const guarded = await startMeshGateway(['--nats', nats.url, '--select', 'vault', '--mesh-name', 'spec-mesh-identity', '--auth-issuer', as.issuer, '--auth-allow-loopback-http', '--identity-key', keyFile], ['vault'], port);
    cleanups.push(async () => {
      guarded.cli.child.kill('SIGTERM');
      await guarded.cli.done;
    });
    assert.match(guarded.cli.stdout(), /the servers are told who each caller is \(--identity-key\)/);
    const token = await as.mint({ iss: as.issuer, aud: guarded.url, sub: 'alice', scope: 'mcp', exp: Math.floor(Date.now() / 1000) + 3600 });
    const client = new Client({ name: 'sdk-authenticated-caller', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(guarded.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      assert.equal(textOf(await client.callTool({ name: 'whoami', arguments: {} })), 'alice');
    } finally {
      await client.close();
    }
    const anonymous = new Client({ name: 'sdk-anonymous-caller', version: '1.0.0' });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(new URL(guarded.url))), /401|Unauthorized/i, 'a caller without a token is refused at the edge');
  });

  test('bad flags are usage errors that say what is wrong (exit 2)', async () => {
    // The command line in process (cli/main.ts, what cli/rxmcp.ts exits with): no process to start for a refusal.
    const run = async (argv: readonly string[]): Promise<{ readonly code: number; readonly err: string }> => {
      let err = '';
      const { code } = await runRxmcp(argv, { out: () => undefined, err: (text) => void (err += `${text}\n`) });
      return { code, err };
    };
    const both = await run(['gateway', '--mesh', '--name', 'weather']);
    assert.equal(both.code, 2);
    assert.equal(both.err, 'rxmcp gateway: --mesh serves the union of every server on NATS and --name one of them: give one of the two\n(see rxmcp gateway --help)\n');
    const stray = await run(['gateway', '--name', 'weather', '--select', 'alpha']);
    assert.equal(stray.code, 2);
    assert.match(stray.err, /^rxmcp gateway: --select is for the mesh: add --mesh\n/);
    const pattern = await run(['gateway', '--mesh', '--select', 'alpha,mcp.beta']);
    assert.equal(pattern.code, 2);
    assert.match(pattern.err, /--select takes bindings .*, got "mcp\.beta"/);
    const naming = await run(['gateway', '--mesh', '--naming', 'sometimes']);
    assert.equal(naming.code, 2);
    assert.match(naming.err, /--naming must be collisions or always, got "sometimes"/);
  });

  test('SIGTERM stops the gateway gracefully: exit code 0', async () => {
    await sdk.close();
    all.cli.child.kill('SIGTERM');
    const run = await all.cli.done;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /stopping \(SIGTERM\)[\s\S]*\nstopped\n$/);
  });
});
