/**
 * The authorization flags of `rxmcp serve` and `rxmcp gateway` (cli/auth-args.ts): what they turn into, the
 * resource URI they default to, and the mistakes refused as usage errors (exit 2) that name the flag and the fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authArgsOf, resourceOf } from '../../../cli/auth-args.ts';
import { runRxmcp } from '../../../cli/main.ts';
import { parseGatewayArgs } from '../../../cli/gateway/command.ts';
import { parseServeArgs } from '../../../cli/serve.ts';

const AS = 'https://as.example.com';

test('auth flags - none given: no protection; each flag parsed as given, scopes deduplicated', () => {
  assert.equal(authArgsOf('rxmcp x', {}), undefined);
  assert.deepEqual(
    authArgsOf('rxmcp x', {
      'auth-issuer': [AS],
      'auth-resource': 'https://mcp.example.com/mcp',
      'auth-scope': ['mcp:read', 'mcp:write', 'mcp:read'],
      'auth-jwks': 'https://as.example.com/keys',
      'auth-audience': ['api://mcp'],
    }),
    { issuers: [AS], resource: 'https://mcp.example.com/mcp', scopes: ['mcp:read', 'mcp:write'], jwksUri: 'https://as.example.com/keys', audiences: ['api://mcp'], allowLoopbackHttp: false, accessTokenType: 'at+jwt' },
  );
  assert.equal(authArgsOf('rxmcp x', { 'auth-issuer': [AS], 'auth-any-token-type': true })?.accessTokenType, 'any');
  assert.deepEqual(authArgsOf('rxmcp x', { 'auth-issuer': ['http://127.0.0.1:9000', 'http://localhost:9001/realm'], 'auth-allow-loopback-http': true })?.issuers, ['http://127.0.0.1:9000', 'http://localhost:9001/realm']);
});

test('auth flags - the resource defaults to the URL the command listens on; a wildcard host or port 0 needs --auth-resource', () => {
  const auth = authArgsOf('rxmcp x', { 'auth-issuer': [AS] });
  assert.ok(auth !== undefined);
  assert.equal(resourceOf('rxmcp x', auth, { host: '127.0.0.1', port: 8080, path: '/mcp' }), 'http://127.0.0.1:8080/mcp');
  assert.equal(resourceOf('rxmcp x', auth, { host: '::1', port: 8080, path: '/api/mcp' }), 'http://[::1]:8080/api/mcp');
  assert.throws(() => resourceOf('rxmcp x', auth, { host: '127.0.0.1', port: 0, path: '/mcp' }), /rxmcp x: --auth-issuer with --port 0 needs --auth-resource URL/);
  assert.throws(() => resourceOf('rxmcp x', auth, { host: '0.0.0.0', port: 80, path: '/mcp' }), /--host 0\.0\.0\.0 needs --auth-resource URL/);
  const given = authArgsOf('rxmcp x', { 'auth-issuer': [AS], 'auth-resource': 'https://mcp.example.com/mcp' });
  assert.ok(given !== undefined);
  assert.equal(resourceOf('rxmcp x', given, { host: '0.0.0.0', port: 0, path: '/mcp' }), 'https://mcp.example.com/mcp');
});

test('auth flags - serve and gateway take them, with the default resource of each', () => {
  const served = parseServeArgs(['--port', '4100', '--auth-issuer', AS, '--auth-scope', 'mcp']);
  assert.deepEqual(served?.auth, { args: { issuers: [AS], resource: undefined, scopes: ['mcp'], jwksUri: undefined, audiences: [], allowLoopbackHttp: false, accessTokenType: 'at+jwt' }, resource: 'http://127.0.0.1:4100/mcp' });
  assert.equal(parseServeArgs(['--port', '4100'])?.auth, undefined);
  const gateway = parseGatewayArgs(['--name', 'weather', '--port', '4200', '--path', '/weather', '--auth-issuer', AS, '--identity-key', 'k.jwk']);
  assert.equal(gateway?.auth?.resource, 'http://127.0.0.1:4200/weather');
  assert.equal(gateway?.identityKey, 'k.jwk');
  assert.equal(parseGatewayArgs(['--name', 'weather', '--port', '4200'])?.auth, undefined);
});

const mistakes: ReadonlyArray<{ readonly args: readonly string[]; readonly says: RegExp }> = [
  { args: ['serve', '--port', '1', '--auth-scope', 'mcp'], says: /rxmcp serve: --auth-scope needs --auth-issuer URL/ },
  { args: ['gateway', '--name', 'w', '--port', '1', '--auth-resource', 'https://x/mcp'], says: /rxmcp gateway: --auth-resource needs --auth-issuer URL/ },
  { args: ['serve', '--port', '1', '--auth-issuer', 'not a url'], says: /--auth-issuer must be an absolute URL, got "not a url"/ },
  { args: ['serve', '--port', '1', '--auth-issuer', 'http://as.example.com'], says: /--auth-issuer must be https \(plain http only to a loopback host/ },
  { args: ['serve', '--port', '1', '--auth-issuer', 'http://127.0.0.1:9000'], says: /--auth-issuer "http:\/\/127\.0\.0\.1:9000\/" is plain http: add --auth-allow-loopback-http/ },
  { args: ['serve', '--port', '1', '--auth-issuer', 'ftp://as.example.com'], says: /--auth-issuer must be an https URL/ },
  { args: ['serve', '--port', '1', '--auth-issuer', `${AS}?tenant=1`], says: /--auth-issuer is an issuer identifier, without a query or fragment/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-issuer', AS], says: /names the same authorization server twice/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-issuer', 'https://other.example.com', '--auth-jwks', `${AS}/jwks`], says: /--auth-jwks names the keys of one authorization server/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-jwks', 'http://keys.example.com/jwks'], says: /--auth-jwks must be https/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-resource', 'mcp.example.com'], says: /--auth-resource must be an absolute URL/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-resource', 'urn:mcp'], says: /--auth-resource must be an http\(s\) URL/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-resource', 'https://x/mcp#frag'], says: /--auth-resource must have no fragment/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-scope', 'read write'], says: /--auth-scope takes one scope .*got "read write"/ },
  { args: ['serve', '--port', '1', '--auth-issuer', AS, '--auth-audience', ' '], says: /--auth-audience must not be empty/ },
  { args: ['serve', '--port', '0', '--auth-issuer', AS], says: /--auth-issuer with --port 0 needs --auth-resource URL/ },
  { args: ['serve', '--stdio', '--auth-issuer', AS], says: /rxmcp serve: --auth-issuer protects the HTTP endpoint; on stdio/ },
  { args: ['serve', '--nats', 'nats://127.0.0.1:1', '--auth-issuer', AS], says: /--auth-issuer protects the HTTP endpoint; on NATS, trust a gateway/ },
  { args: ['gateway', '--name', 'w', '--host', '0.0.0.0', '--port', '80', '--auth-issuer', AS], says: /rxmcp gateway: --auth-issuer with --host 0\.0\.0\.0 needs --auth-resource URL/ },
  { args: ['serve', '--port', '1', '--auth-issuers', AS], says: /unknown option --auth-issuers; did you mean --auth-issuer\?/ },
];

test('auth flags - each mistake is a usage error (exit 2) on stderr that names the flag and what would be right', async () => {
  for (const { args, says } of mistakes) {
    let stderr = '';
    const { code } = await runRxmcp(args, { out: () => undefined, err: (text) => (stderr += `${text}\n`) });
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, says, args.join(' '));
  }
});

test('auth flags - --help of serve and gateway lists them', async () => {
  for (const command of ['serve', 'gateway']) {
    let stdout = '';
    const { code } = await runRxmcp([command, '--help'], { out: (text) => (stdout += `${text}\n`), err: () => undefined });
    assert.equal(code, 0);
    for (const flag of ['--auth-issuer URL', '--auth-resource URL', '--auth-scope S', '--auth-jwks URL', '--auth-audience A', '--auth-allow-loopback-http']) assert.ok(stdout.includes(flag), `${command}: ${flag}`);
  }
});
