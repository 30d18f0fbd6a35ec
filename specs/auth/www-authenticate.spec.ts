/**
 * The kit's own `WWW-Authenticate` parser (RFC 9110 section 11.6.1): the challenges MCP servers and
 * authorization servers send, several in one header, quoted strings with commas and escapes, token68, case,
 * whitespace around `=`, empty list elements; and a peer's malformed header read no further than its last good
 * challenge. The OAuth client reads its challenges with it (no request leaves to do so).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseChallenges } from '../../auth/client/challenge.ts';
import { isNonceChallenge } from '../../auth/client/dpop/challenge.ts';
import { parseWwwAuthenticate } from '../../auth/policy/www-authenticate.ts';

test('the challenges servers send, several in one header', () => {
  assert.deepEqual(parseWwwAuthenticate('Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"'), [
    { scheme: 'bearer', parameters: { resource_metadata: 'https://mcp.example.test/.well-known/oauth-protected-resource/mcp', scope: 'mcp:read mcp:write' } },
  ]);
  assert.deepEqual(parseWwwAuthenticate('DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", algs="ES256 PS256", Bearer realm="mcp"'), [
    { scheme: 'dpop', parameters: { error: 'use_dpop_nonce', error_description: 'Resource server requires nonce in DPoP proof', algs: 'ES256 PS256' } },
    { scheme: 'bearer', parameters: { realm: 'mcp' } },
  ]);
  assert.deepEqual(parseWwwAuthenticate('Basic, Bearer'), [
    { scheme: 'basic', parameters: {} },
    { scheme: 'bearer', parameters: {} },
  ]);
});

test('quoted strings keep commas, spaces and escaped quotes; tokens stand unquoted; names and schemes in any case', () => {
  assert.deepEqual(parseWwwAuthenticate('BEARER Error=invalid_token, Error_Description="bad, \\"very\\" bad \\\\ token", scope = "a b"'), [
    { scheme: 'bearer', parameters: { error: 'invalid_token', error_description: 'bad, "very" bad \\ token', scope: 'a b' } },
  ]);
});

test('token68, empty list elements and whitespace', () => {
  assert.deepEqual(parseWwwAuthenticate(' , Negotiate YIIB+w/a==  ,, Bearer   realm="x" ,'), [
    { scheme: 'negotiate', token68: 'YIIB+w/a==', parameters: {} },
    { scheme: 'bearer', parameters: { realm: 'x' } },
  ]);
  // `name=` without a value is token68 by the grammar, not a parameter.
  assert.deepEqual(parseWwwAuthenticate('Custom abc=, Basic'), [
    { scheme: 'custom', token68: 'abc=', parameters: {} },
    { scheme: 'basic', parameters: {} },
  ]);
});

test('a malformed challenge ends the reading: the good ones before it stand, nothing after it is trusted', () => {
  const cases: ReadonlyArray<readonly [string, number]> = [
    ['Bearer realm="unterminated', 0],
    ['Bearer realm="x" scope="y"', 0], // parameters without the comma between them
    ['Bearer realm="x", realm="y"', 0], // a parameter twice: RFC 9110 forbids it
    ['Bearer realm="x", scope=', 1], // a parameter without a value reads as a scheme, and breaks there
    ['"Bearer"', 0],
    ['Bearer="x"', 0],
    ['Basic realm="a", Bearer scope="s" error="e", DPoP', 1],
    ['Bearer realm="bad \u0001 control"', 0],
    ['Bearer realm="a\\', 0],
  ];
  for (const [header, good] of cases) assert.equal(parseWwwAuthenticate(header).length, good, header);
  assert.deepEqual(parseWwwAuthenticate(`Bearer realm="${'x'.repeat(20_000)}"`), [], 'longer than any real header: not read');
});

test('a parameter named __proto__ is a parameter, not a prototype', () => {
  const [challenge] = parseWwwAuthenticate('Bearer __proto__="x", error="e"');
  assert.equal(Object.getPrototypeOf(challenge?.parameters), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(challenge?.parameters, '__proto__')?.value, 'x');
  assert.equal(challenge?.parameters['error'], 'e');
});

test('the OAuth client reads the metadata URL, scope and error from a refusal, and DPoP nonce challenges', () => {
  const header = 'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource", scope="mcp:admin", error="insufficient_scope"';
  const response = { endpoint: new URL('https://mcp.example.test/mcp'), url: new URL('https://mcp.example.test/mcp'), method: 'POST', status: 403, sentWith: {}, header: (name: string) => (name === 'www-authenticate' ? header : undefined) };
  assert.deepEqual(
    parseChallenges(response).map(({ scheme, resourceMetadata, scope, error }) => ({ scheme, resourceMetadata, scope, error })),
    [{ scheme: 'bearer', resourceMetadata: 'https://mcp.example.test/.well-known/oauth-protected-resource', scope: 'mcp:admin', error: 'insufficient_scope' }],
  );
  assert.equal(isNonceChallenge('Bearer realm="x", DPoP error="use_dpop_nonce"'), true);
  assert.equal(isNonceChallenge('DPoP error="invalid_dpop_proof"'), false);
  assert.equal(isNonceChallenge(undefined), false);
});
