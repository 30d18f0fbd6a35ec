import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isLocalError } from '../../core/errors.ts';
import { createStateSealer, randomStateKey, type OpenResult, type StateBinding } from '../../core/request-state.ts';
import { TestClock } from '../support/test-clock.ts';

const KEY = 'k'.repeat(32);
const OTHER_KEY = 'o'.repeat(32);
const binding: StateBinding = { principal: 'user-42', purpose: 'tools/call\u0000deploy' };
const payload = { step: 2, answers: { region: 'eu-west', confirm: true }, list: [1, 'two', null] };
const BASE64URL_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function refusal(result: OpenResult): string {
  assert.equal(result.ok, false, 'the state is refused');
  return result.ok ? 'accepted' : result.reason;
}

/** A token with the given envelope and a valid tag, built from the documented format (a wire-format vector). */
function signedToken(key: string, bound: StateBinding, envelopeJson: string): string {
  const keyId = createHmac('sha256', key).update('rxmcp/request-state/key-id').digest().subarray(0, 4).toString('base64url');
  const signed = `rxs1.${keyId}.${Buffer.from(envelopeJson, 'utf8').toString('base64url')}`;
  const tag = createHmac('sha256', key)
    .update('rxmcp/request-state/v1\n')
    .update(JSON.stringify([bound.principal ?? null, bound.purpose]))
    .update('\n')
    .update(signed)
    .digest('base64url');
  return `${signed}.${tag}`;
}

describe('request state', () => {
  test('request state - a sealed state opens with its payload, nonce and expiry', () => {
    const clock = new TestClock(1_000);
    const sealer = createStateSealer({ keys: [KEY], clock, ttlMs: 5_000 });
    const token = sealer.seal(payload, binding);
    const opened = sealer.open(token, binding);
    assert.equal(opened.ok, true);
    if (!opened.ok) return;
    assert.deepEqual(opened.payload, payload);
    assert.equal(opened.expiresAt, 6_000);
    assert.match(opened.nonce, /^[A-Za-z0-9_-]{22}$/);
  });

  test('request state - the token is compact and URL-safe, and two seals of one payload differ', () => {
    const sealer = createStateSealer({ keys: [randomStateKey()] });
    const first = sealer.seal(payload, binding);
    const second = sealer.seal(payload, binding);
    assert.match(first, /^rxs1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.equal(encodeURIComponent(first), first);
    assert.notEqual(first, second);
    assert.equal(sealer.open(second, binding).ok, true);
  });

  test('request state - any payload object survives the round trip (as JSON)', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const opened = sealer.open(sealer.seal(value, binding), binding);
        assert.equal(opened.ok, true);
        if (opened.ok) assert.deepEqual(opened.payload, JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
  });

  test('request state - another process with the same key opens it', () => {
    const token = createStateSealer({ keys: [KEY] }).seal(payload, binding);
    const opened = createStateSealer({ keys: [KEY] }).open(token, binding);
    assert.equal(opened.ok, true);
  });

  test('request state - replacing any one character with any base64url character or dot is refused', () => {
    // Exhaustive on purpose: it covers the last character of the tag, whose unused low bits a lenient
    // base64url decoder would ignore.
    const sealer = createStateSealer({ keys: [KEY] });
    const token = sealer.seal(payload, binding);
    for (let position = 0; position < token.length; position++) {
      for (const replacement of `${BASE64URL_CHARS}.`) {
        if (replacement === token[position]) continue;
        const tampered = token.slice(0, position) + replacement + token.slice(position + 1);
        const result = sealer.open(tampered, binding);
        assert.equal(result.ok, false, `position ${position} replaced by ${JSON.stringify(replacement)} was accepted`);
      }
    }
  });

  test('request state - replacing any one character with any character is refused (property)', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    const token = sealer.seal(payload, binding);
    fc.assert(
      fc.property(
        fc.nat({ max: token.length - 1 }),
        fc.oneof(fc.constantFrom(...`${BASE64URL_CHARS}.=+/ %\u0000`), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
        (position, replacement) => {
          fc.pre(replacement !== token[position]);
          const tampered = token.slice(0, position) + replacement + token.slice(position + 1);
          assert.equal(sealer.open(tampered, binding).ok, false);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  test('request state - inserting, deleting or appending characters is refused', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    const token = sealer.seal(payload, binding);
    assert.ok(['malformed', 'bad-signature'].includes(refusal(sealer.open(`${token}-TAMPERED`, binding))));
    assert.ok(['malformed', 'bad-signature'].includes(refusal(sealer.open(`${token}A`, binding))));
    assert.ok(['malformed', 'bad-signature'].includes(refusal(sealer.open(token.slice(0, -1), binding))));
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.boolean(), (position, insert) => {
        const edited = insert ? `${token.slice(0, position)}A${token.slice(position)}` : token.slice(0, position) + token.slice(position + 1);
        assert.equal(sealer.open(edited, binding).ok, false);
      }),
      { numRuns: 500 },
    );
  });

  test('request state - a state is refused for another principal or another purpose', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    const token = sealer.seal(payload, binding);
    assert.equal(refusal(sealer.open(token, { principal: 'user-43', purpose: binding.purpose })), 'bad-signature');
    assert.equal(refusal(sealer.open(token, { principal: binding.principal, purpose: 'tools/call\u0000delete' })), 'bad-signature');
    assert.equal(refusal(sealer.open(token, { purpose: binding.purpose })), 'bad-signature', 'anonymous is another principal');

    const anonymous = sealer.seal(payload, { purpose: binding.purpose });
    assert.equal(sealer.open(anonymous, { purpose: binding.purpose }).ok, true);
    assert.equal(sealer.open(anonymous, { principal: undefined, purpose: binding.purpose }).ok, true);
    assert.equal(refusal(sealer.open(anonymous, { principal: '', purpose: binding.purpose })), 'bad-signature', 'empty is not anonymous');
    assert.equal(refusal(sealer.open(anonymous, binding)), 'bad-signature');
  });

  test('request state - the binding cannot be shifted between principal and purpose', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    const token = sealer.seal(payload, { principal: 'a', purpose: 'b\u0000c' });
    assert.equal(refusal(sealer.open(token, { principal: 'a\u0000b', purpose: 'c' })), 'bad-signature');
  });

  test('request state - a state expires after its ttl on the injected clock', () => {
    const clock = new TestClock(50_000);
    const sealer = createStateSealer({ keys: [KEY], clock, ttlMs: 1_000 });
    const token = sealer.seal(payload, binding);
    clock.advance(999);
    assert.equal(sealer.open(token, binding).ok, true);
    clock.advance(1);
    assert.equal(refusal(sealer.open(token, binding)), 'expired');
    assert.equal(refusal(sealer.open(token, { principal: 'user-43', purpose: binding.purpose })), 'bad-signature', 'authenticity is checked first');
  });

  test('request state - the default ttl is ten minutes', () => {
    const clock = new TestClock(0);
    const sealer = createStateSealer({ keys: [KEY], clock });
    const token = sealer.seal(payload, binding);
    clock.advance(10 * 60_000 - 1);
    assert.equal(sealer.open(token, binding).ok, true);
    clock.advance(1);
    assert.equal(refusal(sealer.open(token, binding)), 'expired');
  });

  test('request state - rotation: an old state opens while its key is still listed, and not after', () => {
    const oldKey = randomStateKey();
    const newKey = randomStateKey();
    const token = createStateSealer({ keys: [oldKey] }).seal(payload, binding);

    const rotating = createStateSealer({ keys: [newKey, oldKey] });
    assert.equal(rotating.open(token, binding).ok, true);
    const fresh = rotating.seal(payload, binding);
    assert.equal(createStateSealer({ keys: [newKey] }).open(fresh, binding).ok, true, 'the first key seals');
    assert.equal(refusal(createStateSealer({ keys: [oldKey] }).open(fresh, binding)), 'bad-signature');

    assert.equal(refusal(createStateSealer({ keys: [newKey] }).open(token, binding)), 'bad-signature');
  });

  test('request state - a state sealed with a foreign key is refused', () => {
    const token = createStateSealer({ keys: [OTHER_KEY] }).seal(payload, binding);
    assert.equal(refusal(createStateSealer({ keys: [KEY] }).open(token, binding)), 'bad-signature');
  });

  test('request state - the caller mutating its key array afterwards changes nothing', () => {
    const key = randomStateKey();
    const sealer = createStateSealer({ keys: [key] });
    const token = sealer.seal(payload, binding);
    key.fill(0);
    assert.equal(sealer.open(token, binding).ok, true);
  });

  test('request state - sealing past maxBytes throws a LocalError; opening past it is refused as too-large', () => {
    const sealer = createStateSealer({ keys: [KEY], maxBytes: 512 });
    const small = sealer.seal({ note: 'fits' }, binding);
    assert.ok(small.length <= 512);
    assert.throws(
      () => sealer.seal({ blob: 'x'.repeat(1_000) }, binding),
      (error: unknown) => isLocalError(error, 'FrameTooLarge') && /512-byte limit/.test(error.message),
    );
    const big = createStateSealer({ keys: [KEY] }).seal({ blob: 'x'.repeat(1_000) }, binding);
    assert.equal(refusal(sealer.open(big, binding)), 'too-large');
    assert.equal(refusal(sealer.open('A'.repeat(513), binding)), 'too-large');
  });

  test('request state - the default limit is 64 KiB and a huge string is refused on its length', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    assert.throws(() => sealer.seal({ blob: 'x'.repeat(64 * 1024) }, binding), (error: unknown) => isLocalError(error, 'FrameTooLarge'));
    // Two segments: malformed too, so 'too-large' shows the length was checked before any parsing.
    assert.equal(refusal(sealer.open(`rxs1.${'A'.repeat(20 * 1024 * 1024)}`, binding)), 'too-large');
  });

  test('request state - non-strings and garbage are refused without throwing', () => {
    const sealer = createStateSealer({ keys: [KEY] });
    const inputs: unknown[] = [
      undefined, null, 0, 42, true, {}, [], ['rxs1'], Symbol('x'), () => 'x', 10n, new String('rxs1.a.b.c'),
      '', '.', '...', 'rxs1', 'rxs1...', 'rxs1.a.b', 'rxs1.a.b.c.d', 'rxs2.AAAAAA.e30.' + 'A'.repeat(43),
      'RXS1.AAAAAA.e30.' + 'A'.repeat(43), 'rxs1.AA AA.e30.' + 'A'.repeat(43), 'rxs1.AAAAAA.e30=.' + 'A'.repeat(43),
      'rxs1.AAAAAA.e30.' + 'A'.repeat(42), 'rxs1.AAAAAA.e30.' + 'A'.repeat(44), 'rxs1.AAAAAA.e30.' + '+'.repeat(43),
      'rxs1.AAAAAA.%%%.' + 'A'.repeat(43), 'rxs1.é.e30.' + 'A'.repeat(43),
    ];
    for (const input of inputs) {
      const result = sealer.open(input, binding);
      assert.equal(result.ok, false, `${String(typeof input)} input was accepted`);
      if (!result.ok) assert.ok(['malformed', 'bad-signature'].includes(result.reason));
    }
    assert.equal(refusal(sealer.open(42, binding)), 'malformed');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.anything()), (input) => {
        assert.equal(sealer.open(input, binding).ok, false);
      }),
      { numRuns: 500 },
    );
  });

  test('request state - an authentic envelope of the wrong shape is malformed, never accepted', () => {
    // These tokens carry valid tags, so they exercise the checks that run after authentication.
    const sealer = createStateSealer({ keys: [KEY], clock: new TestClock(0) });
    const vector = signedToken(KEY, binding, JSON.stringify({ payload: { a: 1 }, exp: 1_000, iat: 0, nonce: 'n' }));
    const opened = sealer.open(vector, binding);
    assert.equal(opened.ok, true, 'the documented format opens');
    if (opened.ok) assert.deepEqual(opened.payload, { a: 1 });

    for (const envelope of ['[1,2]', '"text"', '42', 'null', '{', '{"payload":[1],"exp":1000,"nonce":"n"}',
      '{"payload":null,"exp":1000,"nonce":"n"}', '{"payload":{},"exp":"1000","nonce":"n"}', '{"payload":{},"nonce":"n"}',
      '{"payload":{},"exp":1000}', '{"exp":1000,"nonce":"n"}']) {
      assert.equal(refusal(sealer.open(signedToken(KEY, binding, envelope), binding)), 'malformed', envelope);
    }
  });

  test('request state - keys shorter than 32 bytes, or none, are rejected at creation', () => {
    assert.throws(() => createStateSealer({ keys: [] }), RangeError);
    assert.throws(() => createStateSealer({ keys: ['k'.repeat(31)] }), RangeError);
    assert.throws(() => createStateSealer({ keys: [new Uint8Array(31)] }), RangeError);
    assert.throws(() => createStateSealer({ keys: [KEY, new Uint8Array(16)] }), RangeError, 'every key is checked, not just the first');
    assert.doesNotThrow(() => createStateSealer({ keys: [new Uint8Array(32)] }));
    // 11 three-byte characters: 33 bytes though only 11 characters.
    assert.doesNotThrow(() => createStateSealer({ keys: ['€'.repeat(11)] }));
    assert.throws(() => createStateSealer({ keys: [KEY], ttlMs: 0 }), RangeError);
    assert.throws(() => createStateSealer({ keys: [KEY], maxBytes: Number.NaN }), RangeError);
  });

  test('request state - randomStateKey gives 32 fresh bytes', () => {
    const a = randomStateKey();
    const b = randomStateKey();
    assert.ok(a instanceof Uint8Array);
    assert.equal(a.length, 32);
    assert.notDeepEqual(a, b);
  });
});
