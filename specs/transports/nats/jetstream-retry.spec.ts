/**
 * Which JetStream failures a call tries again within its budget: "no responders" and JetStream's 503 always, a
 * timeout only when the call says it is safe to repeat, and "stream not found" only while opening a bucket or
 * stream (JetStream's meta layer settling, seen in a supercluster); anything else ends the call at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, NatsError } from 'nats';
import { isStreamNotFound, retryWhileLeaderless } from '../../../transports/nats/jetstream-retry.ts';

function apiError(code: number, errCode: number, description: string): NatsError {
  const error = new NatsError(description, String(code));
  error.api_error = { code, err_code: errCode, description };
  return error;
}

const streamNotFound = (): NatsError => apiError(404, 10059, 'stream not found');

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
    const { call } = failing(Array.from({ length: 100 }, () => () => new NatsError('503', ErrorCode.NoResponders)));
    await assert.rejects(retryWhileLeaderless(call, { budgetMs: 200, timeoutIsSafe: true, opening: true }), (error: unknown) => {
      assert.ok(error instanceof NatsError && error.code === ErrorCode.NoResponders, String(error));
      assert.match(error.message, /JetStream did not answer for 200 ms .*JetStream is not enabled on this NATS server or account \(start nats-server with -js/);
      return true;
    });
    const other = failing(Array.from({ length: 100 }, () => () => new NatsError('503', ErrorCode.NoResponders)));
    await assert.rejects(retryWhileLeaderless(other.call, { budgetMs: 200, timeoutIsSafe: true }), (error: unknown) => error instanceof NatsError && error.message === '503');
  });

  test('no responders and a timeout (when safe) are tried again; a timeout that is not safe, or another error, is not', async () => {
    const retried = failing([() => new NatsError('no responders', ErrorCode.NoResponders), () => new NatsError('timeout', ErrorCode.Timeout)]);
    assert.equal(await retryWhileLeaderless(retried.call, { budgetMs: 5000, timeoutIsSafe: true }), 'done');
    assert.equal(retried.attempts(), 3);
    const unsafe = failing([() => new NatsError('timeout', ErrorCode.Timeout)]);
    await assert.rejects(retryWhileLeaderless(unsafe.call, { budgetMs: 5000, timeoutIsSafe: false }), /timeout/);
    assert.equal(unsafe.attempts(), 1);
    const other = failing([() => apiError(400, 10058, 'stream name already in use with a different configuration')]);
    await assert.rejects(retryWhileLeaderless(other.call, { budgetMs: 5000, timeoutIsSafe: true, opening: true }), /already in use/);
    assert.equal(other.attempts(), 1);
  });
});
