/**
 * JetStream calls across a cluster's leader election. When the node leading a stream (a KV bucket, an object
 * store, the SSE event stream) dies, the other replicas elect a new leader, typically within a few seconds; until
 * then the stream's API answers "no responders" (503), and a call that was on its way to the dead leader gets no
 * answer at all (timeout). Such calls are tried again, with growing pauses, for a bounded time; any other error
 * ends them at once, and so does the budget running out (the last error is thrown).
 */
import { type Clock, systemClock } from '../../core/clock.ts';
import { apiErrorCode, apiErrorStatus, isJetStreamUnavailable } from './jetstream-errors.ts';
import { isTimeout } from './nats-errors.ts';

/**
 * How long a call keeps trying while the stream has no leader, unless told otherwise. nats-server elects a new
 * leader only once a follower's election timer ran out (4 to 9 s after the dead leader's last heartbeat, picked
 * at random) and its campaign won: measured on 3-node 2.9 clusters, 6 to 8 s after the kill and more. A budget
 * shorter than that fails the calls of one leader death in three.
 */
export const DEFAULT_ELECTION_RETRY_MS = 15_000;
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 500;

/**
 * Whether `error` says the stream had no leader to take the call. A timeout (the call may have been carried out)
 * counts only when the caller said the call is safe to repeat.
 */
export function isLeaderless(error: unknown, timeoutIsSafe: boolean): boolean {
  if (isJetStreamUnavailable(error)) return true;
  if (isTimeout(error)) return timeoutIsSafe;
  // JetStream's own "temporarily unavailable" answers (no meta leader, no stream leader yet) carry status 503.
  return apiErrorStatus(error) === 503;
}

/** JetStream's error code for "stream not found". */
const STREAM_NOT_FOUND = 10059;

/**
 * Whether `error` is JetStream's "stream not found". Opening a bucket or stream that another process is creating
 * at the same moment can get it while JetStream's meta layer settles (seen in a supercluster, a server of one
 * cluster opening the bucket a server of the other cluster had just created): for an opening, a passing state.
 */
export function isStreamNotFound(error: unknown): boolean {
  return apiErrorCode(error) === STREAM_NOT_FOUND;
}

interface ElectionRetry {
  /** The whole budget (default 15 s); 0 tries once. */
  readonly budgetMs?: number;
  /** Whether repeating the call after a timeout is harmless (it is idempotent, or deduplicated). */
  readonly timeoutIsSafe: boolean;
  /** The call opens (or creates) a bucket or stream: "stream not found" is tried again too (see `isStreamNotFound`). */
  readonly opening?: boolean;
  readonly clock?: Clock;
}

export async function retryWhileLeaderless<T>(call: () => Promise<T>, options: ElectionRetry): Promise<T> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + (options.budgetMs ?? DEFAULT_ELECTION_RETRY_MS);
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const passing = isLeaderless(error, options.timeoutIsSafe) || (options.opening === true && isStreamNotFound(error));
      if (!passing) throw error;
      if (clock.now() + pause > deadline) throw options.opening === true ? unansweredOpening(error, options.budgetMs ?? DEFAULT_ELECTION_RETRY_MS) : error;
    }
    await new Promise<void>((resolve) => clock.setTimeout(resolve, pause));
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  }
}

/**
 * An opening's last error once its budget is spent, said so that an operator knows what to check. "No responders"
 * on the JetStream API for the whole budget means JetStream is not there (a nats-server started without `-js`, or
 * an account without JetStream) or a cluster has no JetStream leader; nats.js says only "jetstream is not enabled".
 * The error keeps the original's name (`JetStreamNotEnabled`: callers may tell a leaderless answer by it), the
 * original as its cause.
 */
function unansweredOpening(error: unknown, budgetMs: number): unknown {
  if (!isJetStreamUnavailable(error)) return error;
  const said = new Error(
    `JetStream did not answer for ${budgetMs} ms (no responders on its API): JetStream is not enabled on this NATS server or account (start nats-server with -js, or give the account JetStream), or the cluster has no JetStream leader (too few nodes up)`,
    { cause: error },
  );
  said.name = (error as Error).name;
  return said;
}
