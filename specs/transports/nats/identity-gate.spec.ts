/**
 * The server's identity gate: messages come out in arrival order whatever their verification costs (an anonymous
 * message waits behind one still being verified, and a continuation that passes another message keeps it in its
 * place), a verified assertion is known at once the second time, and a refusal carries its reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Msg, headers as natsHeaders } from '@nats-io/transport-node';
import { type CallerIdentity, IdentityGate } from '../../../transports/nats/server/identity-gate.ts';
import { createIdentitySigner } from '../../../transports/nats/index.ts';
import { createIdentityVerifier } from '../../../transports/nats/identity/identity-verifier.ts';
import { gatewayKeys } from './identity-keys.ts';

function message(assertion?: string): Msg {
  const headers = natsHeaders();
  if (assertion !== undefined) headers.set('Mcp-Identity', assertion);
  return { headers } as unknown as Msg;
}

test('identity gate - order kept across verifications, cached assertions known at once, refusals with reasons', async () => {
  const keys = await gatewayKeys('k');
  const gate = new IdentityGate(createIdentityVerifier({ keys: [keys.publicJwk] }, 'mcp.gate'), false);
  const signer = createIdentitySigner({ key: keys.privateJwk });
  const alice = await signer.assertionFor({ principal: 'alice', scopes: [], claims: {} }, 'mcp.gate');
  const seen: string[] = [];
  const note = (label: string) => (caller: CallerIdentity): void => void seen.push(`${label}:${caller.ok ? caller.auth?.principal ?? 'anonymous' : `refused(${caller.reason})`}`);

  gate.pass(message(alice), (caller) => {
    note('first')(caller);
    // A continuation passing another message: it comes after the ones already waiting.
    gate.pass(message(), note('nested'));
  });
  gate.pass(message(), note('second'));
  gate.pass(message('garbage'), note('third'));
  assert.deepEqual(seen, [], 'the first waits for its verification, and everything behind it waits too');
  for (let waited = 0; seen.length < 4 && waited < 2000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(seen, ['first:alice', 'second:anonymous', 'third:refused(the identity assertion is malformed)', 'nested:anonymous']);

  // Verified once: the same assertion is known at once now.
  let now: string | undefined;
  gate.pass(message(alice), (caller) => void (now = caller.ok ? caller.auth?.principal : 'refused'));
  assert.equal(now, 'alice');

  // The last waiting message's continuation passes one that needs verifying: it is handled once, by one drain.
  const bob = await signer.assertionFor({ principal: 'bob', scopes: [], claims: {} }, 'mcp.gate');
  const carol = await signer.assertionFor({ principal: 'carol', scopes: [], claims: {} }, 'mcp.gate');
  seen.length = 0;
  gate.pass(message(bob), (caller) => {
    note('bob')(caller);
    gate.pass(message(carol), note('carol'));
  });
  for (let waited = 0; seen.length < 2 && waited < 2000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(seen, ['bob:bob', 'carol:carol']);

  const strict = new IdentityGate(undefined, true);
  let refusal: CallerIdentity | undefined;
  strict.pass(message(), (caller) => void (refusal = caller));
  assert.deepEqual(refusal, { ok: false, reason: 'this server requires a caller identity (an Mcp-Identity assertion from a gateway it trusts)' });
  strict.pass(message(alice), (caller) => void (refusal = caller));
  assert.match(refusal?.ok === false ? refusal.reason : '', /trusts no gateway keys/);
});
