/**
 * Which JetStream failures a call tries again within its budget: "no responders" and JetStream's 503 always, a
 * timeout only when the call says it is safe to repeat, and "stream not found" only while opening a bucket or
 * stream (JetStream's meta layer settling, seen in a supercluster); anything else ends the call at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NoRespondersError, RequestError, errors } from '@nats-io/transport-node';
import { JetStreamApiError } from '@nats-io/jetstream';
import { isStreamNotFound, retryWhileLeaderless } from '../../../transports/nats/jetstream-retry.ts';

function apiError(code: number, errCode: number, description: string): JetStreamApiError {
  return new JetStreamApiError({ code, err_code: errCode, description });
}

const streamNotFound = (): JetStreamApiError => apiError(404, 10059, 'stream not found');

/** What nats.js v3 throws for a JetStream API request nobody serves (its class is not exported: made as it makes it). */
function jetStreamNotEnabled(): Error {
  const error = new Error('jetstream is not enabled', { cause: new RequestError('503', { cause: new NoRespondersError('$JS.API.INFO') }) });
  error.name = 'JetStreamNotEnabled';
  return error;
}

const noResponders = (): Error => new RequestError('no responders', { cause: new NoRespondersError('$JS.API.INFO') });
const timeout = (): Error => new errors.TimeoutError();

/** A call failing with `failures` in turn, then answering `'done'`; counts its attempts. */
function failing(failures: readonly (() => Error)[]): { readonly call: () => Promise<string>; readonly attempts: () => number } {
  let attempts = 0;
  return {
    call: () => {
      const failure = failures[attempts++];
      return failure === undefined ? Promise.resolve('done') : Promise.reject(failure());
    },
    attempts: () => attempts,
  };
}

describe('JetStream calls across an election (retryWhileLeaderless)', () => {
  // The system clock's timers do not hold the process open (nothing else here does): this one does, meanwhile.
  let alive: NodeJS.Timeout | undefined;
  before(() => void (alive = setInterval(() => undefined, 1000)));
  after(() => clearInterval(alive));

  test('an opening tries "stream not found" again, and succeeds once the stream is there', async () => {
    const { call, attempts } = failing([streamNotFound, streamNotFound]);
    assert.equal(await retryWhileLeaderless(call, { budgetMs: 5000, timeoutIsSafe: true, opening: true }), 'done');
    assert.equal(attempts(), 3);
  });

  test('any other call ends at once on "stream not found"', async () => {
    const { call, attempts } = failing([streamNotFound]);
    await assert.rejects(retryWhileLeaderless(call, { budgetMs: 5000, timeoutIsSafe: true }), (error: unknown) => isStreamNotFound(error));
    assert.equal(attempts(), 1);
  });

  test('an opening still fails with the last error once its budget is spent', async () => {
    const { call, attempts } = failing(Array.from({ length: 100 }, () => streamNotFound));
    const started = Date.now();
    await assert.rejects(retryWhileLeaderless(call, { budgetMs: 300, timeoutIsSafe: true, opening: true }), (error: unknown) => isStreamNotFound(error));
    assert.ok(attempts() >= 2 && attempts() < 100, `tried a few times within the budget (${attempts()})`);
    assert.ok(Date.now() - started < 2000, 'gave up soon after the budget');
  });

  test('an opening that JetStream never answers fails saying what to check, as a NATS error with the same code', async () => {
    const { call } = failing(Array.from({ length: 100 }, () => jetStreamNotEnabled));
    await assert.rejects(retryWhileLeaderless(call, { budgetMs: 200, timeoutIsSafe: true, opening: true }), (error: unknown) => {
      assert.ok(error instanceof Error && error.name === 'JetStreamNotEnabled', String(error));
      assert.match(error.message, /JetStream did not answer for 200 ms .*JetStream is not enabled on this NATS server or account \(start nats-server with -js/);
      return true;
    });
    const other = failing(Array.from({ length: 100 }, () => jetStreamNotEnabled));
    await assert.rejects(retryWhileLeaderless(other.call, { budgetMs: 200, timeoutIsSafe: true }), (error: unknown) => error instanceof Error && error.message === 'jetstream is not enabled');
  });

  test('no responders and a timeout (when safe) are tried again; a timeout that is not safe, or another error, is not', async () => {
    const retried = failing([noResponders, jetStreamNotEnabled, () => apiError(503, 10008, 'JetStream system temporarily unavailable'), timeout]);
    assert.equal(await retryWhileLeaderless(retried.call, { budgetMs: 5000, timeoutIsSafe: true }), 'done');
    assert.equal(retried.attempts(), 5);
    const unsafe = failing([timeout]);
    await assert.rejects(retryWhileLeaderless(unsafe.call, { budgetMs: 5000, timeoutIsSafe: false }), /timeout/);
    assert.equal(unsafe.attempts(), 1);
    const other = failing([() => apiError(400, 10058, 'stream name already in use with a different configuration')]);
    await assert.rejects(retryWhileLeaderless(other.call, { budgetMs: 5000, timeoutIsSafe: true, opening: true }), /already in use/);
    assert.equal(other.attempts(), 1);
  });
});
