/**
 * NATS connection credentials (natsConnectionOptions, and the commands' flags through natsConnectionOf) against
 * real nats-servers that demand them: a token, an nkey, user and password, a creds file (operator mode), TLS with
 * a client certificate. With
 * the right credentials a server is served and called; with wrong or missing ones the connection is refused with
 * the server's reason. Credentials that cannot work together, and unreadable files, are refused before connecting.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type NatsConnection, connect, nkeys } from '@nats-io/transport-node';
import { natsConnectionOf } from '../../../cli/nats-args.ts';
import { createClient } from '../../../client/create-client.ts';
import { createServer } from '../../../server/create-server.ts';
import { type NatsCredentials, createNatsClientTransport, natsConnectionOptions, serveNats } from '../../../transports/nats/index.ts';
import { within } from '../../support/harness.ts';
import { startNatsServer } from '../../support/nats-server.ts';
import { operatorSetup } from './operator-fixture.ts';

/** Serves an echo tool with one connection and calls it with another, both made from `credentials`. */
async function roundTrip(url: string, credentials: NatsCredentials): Promise<string> {
  const opened: NatsConnection[] = [];
  const server = createServer({ name: 'creds', version: '0' });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args: Record<string, unknown>) => ({ content: [{ type: 'text', text: String(args['text']) }] }));
  try {
    for (let index = 0; index < 2; index++) opened.push(await connect(natsConnectionOptions(credentials, { servers: url })));
    const serving = await serveNats(server, { connection: opened[0]!, name: 'creds', sessionRecords: false });
    const session = await within(createClient({ name: 'c', version: '0', era: 'modern' }).connect(createNatsClientTransport({ connection: opened[1]!, name: 'creds' })), 5000);
    const result = await within(session.callTool('echo', { text: 'through' }), 5000);
    await session.close();
    await serving.close('end');
    return (result.content[0] as { text: string }).text;
  } finally {
    await server.close();
    await Promise.allSettled(opened.map((made) => made.close()));
  }
}

async function refusal(url: string, credentials: NatsCredentials): Promise<string> {
  const made = await connect(natsConnectionOptions(credentials, { servers: url, maxReconnectAttempts: 0, timeout: 3000 })).then(
    async (connection) => {
      await connection.close();
      return undefined;
    },
    (error: unknown) => (error as Error).message,
  );
  assert.ok(made !== undefined, 'the connection was refused');
  return made;
}

describe('nats credentials', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rxmcp-creds-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('nats credentials - a token', async () => {
    await using nats = await startNatsServer({ jetstream: false, config: () => 'authorization { token: "t0ken-spec" }' });
    assert.equal(await roundTrip(nats.url, { token: 't0ken-spec' }), 'through');
    assert.match(await refusal(nats.url, { token: 'wrong' }), /Authorization Violation/i);
    assert.match(await refusal(nats.url, {}), /Authorization Violation/i);
  });

  test('nats credentials - user and password', async () => {
    await using nats = await startNatsServer({ jetstream: false, config: () => 'authorization { users = [ { user: "alice", password: "pa55" } ] }' });
    assert.equal(await roundTrip(nats.url, { user: 'alice', password: 'pa55' }), 'through');
    assert.match(await refusal(nats.url, { user: 'alice', password: 'nope' }), /Authorization Violation/i);
  });

  test('nats credentials - an nkey seed file', async () => {
    const pair = nkeys.createUser();
    const seedFile = join(dir, 'user.nk');
    await writeFile(seedFile, `${new TextDecoder().decode(pair.getSeed())}\n`);
    await using nats = await startNatsServer({ jetstream: false, config: () => `authorization { users = [ { nkey: "${pair.getPublicKey()}" } ] }` });
    assert.equal(await roundTrip(nats.url, { nkeySeedFile: seedFile }), 'through');
    const stranger = join(dir, 'stranger.nk');
    await writeFile(stranger, new TextDecoder().decode(nkeys.createUser().getSeed()));
    assert.match(await refusal(nats.url, { nkeySeedFile: stranger }), /Authorization Violation/i);
  });

  test('nats credentials - a creds file (operator mode: user JWT and seed)', async () => {
    const operator = operatorSetup();
    await using nats = await startNatsServer({ jetstream: false, config: (serverDir) => operator.config(serverDir) });
    const credsFile = join(dir, 'user.creds');
    await writeFile(credsFile, operator.creds());
    assert.equal(await roundTrip(nats.url, { credsFile }), 'through');
    const strangerFile = join(dir, 'stranger.creds');
    await writeFile(strangerFile, operator.creds(true));
    assert.match(await refusal(nats.url, { credsFile: strangerFile }), /Authorization Violation/i);
  });

  test('nats credentials - TLS with the server\'s CA and a client certificate (mutual TLS)', async () => {
    const file = (name: string): string => join(dir, name);
    const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' });
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=spec-ca', '-keyout', file('ca.key'), '-out', file('ca.pem'));
    for (const [name, extension] of [['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], ['client', 'extendedKeyUsage=clientAuth']] as const) {
      openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${name}`, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`));
      await writeFile(file(`${name}.ext`), `${extension}\n`);
      openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', file(`${name}.ext`), '-out', file(`${name}.pem`));
    }
    await using nats = await startNatsServer({
      jetstream: false,
      config: () => `tls { cert_file: ${JSON.stringify(file('server.pem'))}, key_file: ${JSON.stringify(file('server.key'))}, ca_file: ${JSON.stringify(file('ca.pem'))}, verify: true }`,
    });
    const tls = { caFile: file('ca.pem'), certFile: file('client.pem'), keyFile: file('client.key') };
    assert.equal(await roundTrip(nats.url, { tls }), 'through');
    // Without a client certificate the server's verify refuses the handshake.
    assert.ok((await refusal(nats.url, { tls: { caFile: file('ca.pem') } })).length > 0);
  });

  test('nats credentials - combinations that cannot work and unreadable files are refused before connecting', () => {
    assert.throws(() => natsConnectionOptions({ token: 't', user: 'u' }), /one way to authenticate, not user\/password and token/);
    assert.throws(() => natsConnectionOptions({ password: 'p' }), /a password needs its user/);
    assert.throws(() => natsConnectionOptions({ tls: { certFile: 'c.pem' } }), /certificate needs its key/);
    assert.throws(() => natsConnectionOptions({ credsFile: join(dir, 'missing.creds') }), /cannot read the creds file ".*missing\.creds"/);
    assert.throws(() => natsConnectionOptions({ nkeySeed: 'SAnotauser' }), /user seed/);
  });

  test('nats credentials - the commands\' flags and their environment variables, flags first', () => {
    const env = { NATS_URL: 'nats://10.0.0.1:4999', NATS_USER: 'env-user', NATS_PASSWORD: 'env-pass', NATS_CA: '/env/ca.pem' };
    assert.deepEqual(natsConnectionOf('rxmcp x', {}, env), {
      url: 'nats://10.0.0.1:4999',
      credentials: { user: 'env-user', password: 'env-pass', token: undefined, nkeySeedFile: undefined, credsFile: undefined, tls: { caFile: '/env/ca.pem', certFile: undefined, keyFile: undefined } },
    });
    const flagged = natsConnectionOf('rxmcp x', { nats: 'tls://h:1', 'nats-user': 'flag-user', 'nats-password': 'flag-pass', 'nats-cert': 'c.pem', 'nats-key': 'k.pem' }, env);
    assert.equal(flagged.url, 'tls://h:1');
    assert.equal(flagged.credentials.user, 'flag-user');
    assert.equal(flagged.credentials.tls?.certFile, 'c.pem');
    assert.throws(() => natsConnectionOf('rxmcp x', { 'nats-token': 't' }, env), /rxmcp x: give one way to authenticate to NATS, not --nats-user\/--nats-password and --nats-token/);
    assert.throws(() => natsConnectionOf('rxmcp x', { 'nats-cert': 'c.pem' }, {}), /--nats-cert and --nats-key go together/);
    assert.equal(natsConnectionOf('rxmcp x', {}, {}).url, 'nats://127.0.0.1:4222');
  });
});
