/**
 * The command-line login's redirect listener (cli/client/login/loopback-redirect.ts) over real sockets: it binds
 * 127.0.0.1 on a kernel-chosen port, accepts exactly the redirect with the expected state (others get 400 and
 * change nothing), closes after that one, and gives up on timeout and abort.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LoginTimeout, listenForRedirect } from '../../../cli/client/login/loopback-redirect.ts';

async function refusedConnection(url: string): Promise<boolean> {
  return fetch(url).then(
    () => false,
    () => true,
  );
}

describe('loopback redirect listener', () => {
  test('listens on 127.0.0.1 at a random port and takes only the redirect with the right state, once', async () => {
    const listener = await listenForRedirect();
    const uri = new URL(listener.redirectUri);
    assert.equal(uri.hostname, '127.0.0.1');
    assert.notEqual(uri.port, '');
    assert.equal(uri.pathname, '/callback');
    const waiting = listener.waitFor('the-state', { timeoutMs: 10_000 });

    const forged = await fetch(`${listener.redirectUri}?code=evil&state=other`);
    assert.equal(forged.status, 400);
    const noState = await fetch(`${listener.redirectUri}?code=evil`);
    assert.equal(noState.status, 400);
    const wrongPath = await fetch(`${uri.origin}/elsewhere?code=evil&state=the-state`);
    assert.equal(wrongPath.status, 400);
    const wrongMethod = await fetch(`${listener.redirectUri}?code=evil&state=the-state`, { method: 'POST' });
    assert.equal(wrongMethod.status, 400);

    const real = await fetch(`${listener.redirectUri}?code=good&state=the-state&iss=http%3A%2F%2F127.0.0.1`);
    assert.equal(real.status, 200);
    assert.equal(real.headers.get('cache-control'), 'no-store');
    assert.match(await real.text(), /close this window/);
    const received = await waiting;
    assert.equal(received.searchParams.get('code'), 'good');
    assert.equal(received.searchParams.get('iss'), 'http://127.0.0.1');

    // One-shot: the listener is gone.
    assert.equal(await refusedConnection(`${listener.redirectUri}?code=late&state=the-state`), true);
    await assert.rejects(listener.waitFor('the-state'), /one login only/);
  });

  test('an error redirect with the right state ends the wait too (the caller reads the error)', async () => {
    const listener = await listenForRedirect();
    const waiting = listener.waitFor('s1', { timeoutMs: 10_000 });
    const response = await fetch(`${listener.redirectUri}?error=access_denied&state=s1`);
    assert.match(await response.text(), /refused/);
    assert.equal((await waiting).searchParams.get('error'), 'access_denied');
  });

  test('gives up after the timeout and closes', async () => {
    const listener = await listenForRedirect();
    await assert.rejects(listener.waitFor('s', { timeoutMs: 50 }), LoginTimeout);
    assert.equal(await refusedConnection(listener.redirectUri), true);
  });

  test('an abort ends the wait with its reason and closes', async () => {
    const listener = await listenForRedirect();
    const controller = new AbortController();
    const waiting = listener.waitFor('s', { timeoutMs: 10_000, signal: controller.signal });
    controller.abort(new Error('user pressed Ctrl-C'));
    await assert.rejects(waiting, /Ctrl-C/);
    assert.equal(await refusedConnection(listener.redirectUri), true);
  });
});
