/**
 * server/subscriptions.ts: resource subscriptions per session, bounded, indexed by URI, forgotten on close.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../core/error-codes.ts';
import { WireError } from '../../core/errors.ts';
import { ResourceSubscriptions } from '../../server/subscriptions.ts';
import { fakeSession } from './fakes.ts';

describe('server resource subscriptions', () => {
  test('a URI has the sessions subscribed to it, until they unsubscribe', () => {
    const book = new ResourceSubscriptions(10);
    const a = fakeSession().session;
    const b = fakeSession().session;
    book.subscribe(a, 'file:///x');
    book.subscribe(b, 'file:///x');
    book.subscribe(a, 'file:///y');
    assert.deepEqual([...book.subscribersOf('file:///x')], [a, b]);
    assert.deepEqual([...book.subscribersOf('file:///y')], [a]);
    assert.equal(book.subscribersOf('file:///z').size, 0);
    book.unsubscribe(a, 'file:///x');
    assert.deepEqual([...book.subscribersOf('file:///x')], [b]);
    book.unsubscribe(b, 'file:///x');
    assert.equal(book.subscribersOf('file:///x').size, 0);
    book.unsubscribe(b, 'file:///never');
  });

  test('a session holds at most the bound; subscribing again to a URI it holds is no new subscription', () => {
    const book = new ResourceSubscriptions(2);
    const a = fakeSession().session;
    book.subscribe(a, 'file:///1');
    book.subscribe(a, 'file:///2');
    book.subscribe(a, 'file:///2');
    assert.throws(
      () => book.subscribe(a, 'file:///3'),
      (error: unknown) => error instanceof WireError && error.code === ErrorCode.InvalidParams && /at most 2/.test(error.message),
    );
    assert.equal(book.subscribersOf('file:///3').size, 0);
    // The bound is per session: another one may still subscribe.
    book.subscribe(fakeSession().session, 'file:///3');
    book.unsubscribe(a, 'file:///1');
    book.subscribe(a, 'file:///3');
    assert.equal(book.subscribersOf('file:///3').size, 2);
  });

  test('a closed session is taken out of every URI it followed; the others stay', () => {
    const book = new ResourceSubscriptions(10);
    const a = fakeSession().session;
    const b = fakeSession().session;
    book.subscribe(a, 'file:///x');
    book.subscribe(a, 'file:///y');
    book.subscribe(b, 'file:///y');
    book.sessionClosed(a);
    assert.equal(book.subscribersOf('file:///x').size, 0);
    assert.deepEqual([...book.subscribersOf('file:///y')], [b]);
    book.sessionClosed(fakeSession().session);
  });
});
