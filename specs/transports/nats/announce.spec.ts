/**
 * A server served on NATS answers the NATS services protocol (ADR-32) by itself, asked by hand: `$SRV.PING`,
 * `INFO` and `STATS` on the subject for every service, for its name and for its instance, each a schema-valid
 * answer carrying the MCP facts in its metadata; STATS counts what it answered. Its name and version follow the
 * documented rules; `announce: false` keeps it silent; a NATS user with exactly `natsPermissions('server')`
 * announces, and one without the `$SRV` subjects still serves, warning once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Empty, type NatsConnection } from '@nats-io/transport-node';
import { ALL_REVISIONS } from '../../../core/protocol/versions.ts';
import { createClient } from '../../../client/create-client.ts';
import type { ClientSession } from '../../../client/session-api.ts';
import { type McpServer, type ServerOptions, createServer } from '../../../server/create-server.ts';
import { type NatsPermissions, type NatsServeOptions, type NatsServing, createNatsClientTransport, discoverNatsServers, natsPermissions, serveNats } from '../../../transports/nats/index.ts';
import { serviceVersionOf } from '../../../transports/nats/announce/service-identity.ts';
import { within } from '../../support/harness.ts';
import { assertMicroShape } from '../../support/micro-schemas.ts';
import { type NatsFixture, SERVER_NAME, demoTools, natsFixture } from './nats-fixture.ts';

type Answer = Record<string, unknown> & { readonly metadata: Record<string, string> };

const serverRole = natsPermissions('server', { name: 'perm-announce' });
const user = (name: string, permissions?: NatsPermissions): string => JSON.stringify({ user: name, password: `${name}-secret`, ...(permissions === undefined ? {} : { permissions }) });

describe('nats announce', () => {
  let fixture: NatsFixture;
  let admin: NatsConnection;
  const asAdmin = { user: 'admin', pass: 'admin-secret' };

  before(async () => {
    fixture = await natsFixture({
      config: () => `authorization { users = [
        ${user('admin')},
        ${user('server', serverRole)},
        ${user('server-no-srv', { ...serverRole, subscribe: { allow: serverRole.subscribe.allow.filter((subject) => !subject.startsWith('$SRV')) } })},
        ${user('watcher', natsPermissions('client', { name: 'perm-announce', discovery: true }))}
      ] }`,
    });
    admin = await fixture.connection(asAdmin);
  });
  after(async () => {
    await Promise.allSettled(servers.map((server) => server.close()));
    await fixture[Symbol.asyncDispose]();
  });

  const servers: McpServer[] = [];
  /** The fixture's server with its demo tools, served on a connection of `as` (the fixture's own serve connects anonymously). */
  const serve = async (nats: Partial<NatsServeOptions> = {}, options: Partial<ServerOptions> = {}, as = asAdmin): Promise<{ readonly server: McpServer; readonly serving: NatsServing }> => {
    const server = createServer({ name: 'nats-spec-server', version: '0.0.0', ...options });
    demoTools(server);
    servers.push(server);
    return { server, serving: await serveNats(server, { connection: await fixture.connection(as), name: SERVER_NAME, ...nats }) };
  };
  const client = async (name: string): Promise<ClientSession> =>
    createClient({ name: 'announce-spec', version: '0.0.0', era: 'legacy' }).connect(createNatsClientTransport({ connection: await fixture.connection(asAdmin), name }));

  const ask = async (subject: string): Promise<Answer> => JSON.parse(new TextDecoder().decode((await admin.request(subject, Empty, { timeout: 2000 })).data)) as Answer;

  test('nats announce - PING, INFO and STATS answer on every subject form with valid shapes and the MCP facts', async () => {
    const { server, serving } = await serve();
    const id = serving.processId;
    for (const verb of ['PING', 'INFO', 'STATS'] as const) {
      for (const subject of [`$SRV.${verb}`, `$SRV.${verb}.${SERVER_NAME}`, `$SRV.${verb}.${SERVER_NAME}.${id}`]) {
        const answer = await ask(subject);
        assertMicroShape(verb, answer);
        assert.equal(answer['name'], SERVER_NAME, subject);
        assert.equal(answer['id'], id, subject);
        assert.equal(answer['version'], '0.0.0', subject);
        assert.deepEqual({ ...answer.metadata, 'mcp.catalog': '' }, {
          'mcp.name': 'nats-spec-server',
          'mcp.version': '0.0.0',
          'mcp.revisions': ALL_REVISIONS.join(','),
          'mcp.eras': 'legacy,modern',
          'mcp.catalog': '',
          'mcp.prefix': 'mcp',
          'mcp.binding': SERVER_NAME,
        }, subject);
        assert.match(answer.metadata['mcp.catalog'] ?? '', /^[0-9a-f]{16}$/);
        assert.equal(answer.metadata['mcp.catalog'], server.describe().catalogRevision);
      }
    }
    const info = await ask(`$SRV.INFO.${SERVER_NAME}.${id}`);
    assert.deepEqual(info['endpoints'], [{ name: 'mcp', subject: `mcp.${SERVER_NAME}.call.>`, queue_group: 'mcp-servers', metadata: { 'mcp.sessions': `mcp.${SERVER_NAME}.s.*` } }]);
    assert.equal(info['description'], `MCP server nats-spec-server on mcp.${SERVER_NAME}`);
    await serving.close('end', { drainMs: 0 });
  });

  test('nats announce - STATS counts the requests answered, the errors among them and their processing time', async () => {
    const { server, serving } = await serve({ name: 'counted' }, { name: 'counted' });
    server.tool({ name: 'fails' }, () => Promise.reject(new Error('no')));
    const statsOf = async (): Promise<Record<string, number | string>> => {
      const answer = await ask(`$SRV.STATS.counted.${serving.processId}`);
      assertMicroShape('STATS', answer);
      return (answer['endpoints'] as Array<Record<string, number | string>>)[0] ?? {};
    };
    const before = await statsOf();
    assert.equal(before['num_requests'], 0);
    assert.equal(before['last_error'], '');
    const session = await client('counted');
    await session.callTool('echo', { text: 'one' });
    await session.callTool('slow', { ms: 30 });
    await assert.rejects(session.callTool('no-such-tool', {}));
    await session.close();
    const afterSession = await statsOf();
    // initialize, two calls, the call of a tool that does not exist (an error answer).
    assert.equal(afterSession['num_requests'], 4);
    assert.equal(afterSession['num_errors'], 1);
    assert.match(String(afterSession['last_error']), /no-such-tool/);
    // A request the binding refuses itself (a body that is not JSON) counts too.
    await admin.request('mcp.counted.call.tools.call', 'not json', { timeout: 2000 });
    const counted = await statsOf();
    assert.equal(counted['num_requests'], 5);
    assert.equal(counted['num_errors'], 2);
    assert.match(String(counted['last_error']), /Parse error/);
    // The slow call alone took 30 ms: reported in nanoseconds.
    assert.ok(Number(counted['processing_time']) >= 30e6, `processing_time ${counted['processing_time']}`);
    assert.equal(counted['average_processing_time'], Math.round(Number(counted['processing_time']) / 5));
    await serving.close('end', { drainMs: 0 });
  });

  test('nats announce - a version that is not semver is announced as 0.0.0 with build metadata; the exact one is in the metadata', async () => {
    assert.equal(serviceVersionOf('1.2.3-rc.1+build.5'), '1.2.3-rc.1+build.5');
    assert.equal(serviceVersionOf('2024.10'), '0.0.0+2024.10');
    assert.equal(serviceVersionOf('v1 beta'), '0.0.0+v1-beta');
    assert.equal(serviceVersionOf('...'), '0.0.0');
    assert.equal(serviceVersionOf(''), '0.0.0');
    const { serving } = await serve({ name: 'odd-version', announce: { serviceName: 'renamed', description: 'what it does' } }, { version: 'v2 beta' });
    const answer = await ask(`$SRV.INFO.renamed.${serving.processId}`);
    assertMicroShape('INFO', answer);
    assert.equal(answer['name'], 'renamed');
    assert.equal(answer['version'], '0.0.0+v2-beta');
    assert.equal(answer['description'], 'what it does');
    assert.equal(answer.metadata['mcp.version'], 'v2 beta');
    assert.equal(answer.metadata['mcp.binding'], 'odd-version');
    await serving.close('end', { drainMs: 0 });
  });

  test('nats announce - announce: false answers nothing on the services protocol, and serves', async () => {
    const { serving } = await serve({ name: 'quiet', announce: false });
    await assert.rejects(admin.request(`$SRV.PING.quiet.${serving.processId}`, Empty, { timeout: 1000 }), /no responders|timeout/i);
    const session = await client('quiet');
    assert.deepEqual((await session.callTool('echo', { text: 'here' })).content, [{ type: 'text', text: 'here' }]);
    await session.close();
    await serving.close('end', { drainMs: 0 });
  });

  test("nats announce - natsPermissions('server') lets a process announce; without the $SRV subjects it still serves and warns once", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void (warning.name === 'RxmcpNatsAnnounceWarning' && warnings.push(warning));
    process.on('warning', onWarning);
    try {
      const allowed = await serve({ name: 'perm-announce' }, {}, { user: 'server', pass: 'server-secret' });
      const watcher = await fixture.connection({ user: 'watcher', pass: 'watcher-secret' });
      const here = async (): Promise<string[]> => (await discoverNatsServers(watcher, { windowMs: 1000 })).filter((server) => server.binding === 'perm-announce').map((server) => server.instanceId);
      assert.deepEqual(await here(), [allowed.serving.processId]);
      await allowed.serving.close('end', { drainMs: 0 });

      const refused = await within(serve({ name: 'perm-announce' }, {}, { user: 'server-no-srv', pass: 'server-no-srv-secret' }), 5000);
      const session = await client('perm-announce');
      assert.deepEqual((await session.callTool('echo', { text: 'still' })).content, [{ type: 'text', text: 'still' }]);
      await session.close();
      assert.deepEqual(await here(), []);
      await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(warnings.length, 1, warnings.map((warning) => warning.message).join('\n'));
      assert.match(warnings[0]?.message ?? '', /NATS refused the subscriptions announcing mcp\.perm-announce/);
      await refused.serving.close('end', { drainMs: 0 });
    } finally {
      process.off('warning', onWarning);
    }
  });
});
