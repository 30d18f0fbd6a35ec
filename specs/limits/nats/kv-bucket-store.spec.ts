/**
 * Buckets shared through NATS JetStream KV (limits/nats/kv-bucket-store.ts) on a real nats-server: two Node
 * processes hammering one bucket together admit no more than the bucket allows over the window; concurrent
 * takes from two connections never over-admit (revision-checked writes); the KV bucket carries its max_age;
 * and what a take does while NATS is unreachable (local buckets by default, or allow, or deny), then shared
 * again once NATS is back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { KvBucketStore } from '../../../limits/nats/kv-bucket-store.ts';
import { TOKEN_UNITS, TokenBucket } from '../../../limits/token-bucket.ts';
import { type HammerOptions, type HammerReport, prepareHammer } from '../../support/limits-fixtures/hammer.ts';
import { type NatsServerProcess, startNatsServer } from '../../support/nats-server.ts';
import { REPO_ROOT } from '../../support/interop-processes.ts';
import { programArgs } from '../../support/spec-program.ts';

const ONE = TOKEN_UNITS;
const HAMMER_PROCESS = 'specs/support/limits-fixtures/hammer-process.ts';

let nats: NatsServerProcess;
before(async () => {
  nats = await startNatsServer();
});
after(async () => {
  await nats.dispose();
});

async function connection(): Promise<NatsConnection> {
  return connect({ servers: nats.url, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
}

/** Starts the second process; resolves once it is connected, with a function that starts it and awaits its report. */
async function secondProcess(options: HammerOptions): Promise<{ run(startAt: number): Promise<HammerReport> }> {
  const child = spawn(process.execPath, [...programArgs(HAMMER_PROCESS), JSON.stringify(options)], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const line = async (): Promise<string> => {
    const next = await iterator.next();
    if (next.done === true) throw new Error(`the second process ended early:\n${stderr}`);
    return next.value;
  };
  assert.equal(await line(), 'ready');
  return {
    async run(startAt) {
      child.stdin.write(`${startAt}\n`);
      const report = JSON.parse(await line()) as HammerReport;
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      return report;
    },
  };
}

describe('rate limits shared across processes through NATS JetStream KV', () => {
  test('two processes hammering one bucket admit at most capacity + rate x window together', async (t) => {
    const options: HammerOptions = { url: nats.url, bucket: 'spec_two_processes', capacity: 20, refillPerSecond: 40, workers: 4, durationMs: 1500 };
    const [here, there] = await Promise.all([prepareHammer(options), secondProcess(options)]);
    const startAt = Date.now() + 200;
    const [mine, theirs] = await Promise.all([here.run(startAt), there.run(startAt)]);
    await here.close();
    const window = Math.max(mine.lastAt, theirs.lastAt) - Math.min(mine.firstAt, theirs.firstAt);
    const total = mine.admitted + theirs.admitted;
    // Refills count whole milliseconds: over `window` ms at most (window + 1) x rate / 1000 tokens.
    const bound = options.capacity + Math.floor(((window + 1) * options.refillPerSecond) / 1000);
    t.diagnostic(`admitted ${mine.admitted} + ${theirs.admitted} = ${total} of at most ${bound} over ${window} ms; refused ${mine.refused + theirs.refused}; lost races ${mine.conflicts + theirs.conflicts}`);
    assert.equal(mine.unreachable + theirs.unreachable, 0, 'every take was decided by NATS');
    assert.ok(total <= bound, `admitted ${total}, more than ${bound}`);
    assert.ok(mine.admitted > 0 && theirs.admitted > 0, 'both processes were admitted some');
    assert.ok(mine.refused > 0 && theirs.refused > 0, 'both processes were refused some: the demand exceeded the limit');
    // Each alone would have admitted about `bound`; the shared bucket held both to it.
    assert.ok(total >= options.capacity, `admitted ${total}: the burst at least`);
  });

  test('concurrent takes on two connections never over-admit: revision-checked writes retry', async () => {
    const [a, b] = await Promise.all([connection(), connection()]);
    try {
      const [storeA, storeB] = await Promise.all([KvBucketStore.open(a, { bucket: 'spec_race', maxAttempts: 1000 }), KvBucketStore.open(b, { bucket: 'spec_race', maxAttempts: 1000 })]);
      const bucket = new TokenBucket({ capacity: 30, refillPerSecond: 0.01 });
      const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? storeA : storeB).take('race', bucket, ONE)));
      assert.equal(decisions.filter((decision) => decision.allowed).length, 30);
      assert.ok(storeA.stats().conflicts + storeB.stats().conflicts > 0, 'the takes did race');
      assert.equal(storeA.stats().contended + storeB.stats().contended, 0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('the KV bucket keeps one revision per key and drops idle keys after ttlMs (max_age); a slower limit is refused', async () => {
    const nc = await connection();
    try {
      const store = await KvBucketStore.open(nc, { bucket: 'spec_ttl', ttlMs: 60_000 });
      const info = await (await jetstreamManager(nc)).streams.info('KV_spec_ttl');
      assert.equal(info.config.max_age, 60_000 * 1_000_000);
      assert.equal(info.config.max_msgs_per_subject, 1);
      // Empty to full takes 100 s, longer than the keys live: the bucket would come back full too early.
      await assert.rejects(store.take('slow', new TokenBucket({ capacity: 100, refillPerSecond: 1 }), ONE), /ttlMs/);
    } finally {
      await nc.close();
    }
  });

  test('NATS unreachable: local buckets by default, or allow, or deny; shared again once it is back', async () => {
    const nc = await connection();
    try {
      const bucket = new TokenBucket({ capacity: 2, refillPerSecond: 0.001 });
      const local = await KvBucketStore.open(nc, { bucket: 'spec_outage', timeoutMs: 300 });
      const allow = await KvBucketStore.open(nc, { bucket: 'spec_outage', whenUnreachable: 'allow', timeoutMs: 300 });
      const deny = await KvBucketStore.open(nc, { bucket: 'spec_outage', whenUnreachable: 'deny', unreachableRetryAfterMs: 750, timeoutMs: 300 });
      // The shared bucket 'k' is drained while NATS is up.
      assert.equal((await local.take('k', bucket, 2 * ONE)).allowed, true);
      assert.equal((await local.take('k', bucket, ONE)).allowed, false);

      await nats.kill();
      // A take may still wait out its timeout until the connection reports the disconnect; from then on the
      // outage is known.
      const known = Date.now() + 5_000;
      while (local.stats().unreachable === 0 && Date.now() < known) await local.take('warm-up', bucket, 0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const before = local.stats().unreachable;
      const began = Date.now();
      const outage = [await local.take('k', bucket, ONE), await local.take('k', bucket, ONE), await local.take('k', bucket, ONE)];
      assert.deepEqual(outage.map((decision) => decision.allowed), [true, true, false], 'a local bucket of the same rate, full at first');
      assert.ok(Date.now() - began < 250, 'no take waits for a timeout once the outage is known');
      assert.equal(local.stats().unreachable, before + 3);
      assert.deepEqual(await allow.take('k', bucket, ONE), { allowed: true, remaining: 0, retryAfterMs: 0 });
      assert.deepEqual(await deny.take('k', bucket, ONE), { allowed: false, remaining: 0, retryAfterMs: 750 });

      await nats.start();
      const deadline = Date.now() + 10_000;
      let shared = local.stats().shared;
      while (local.stats().shared === shared && Date.now() < deadline) {
        await local.take('probe', bucket, 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      shared = local.stats().shared;
      assert.ok(shared > 0, 'takes are decided by NATS again');
      // The shared bucket kept its level through the outage (JetStream store on disk): still drained.
      assert.equal((await local.take('k', bucket, ONE)).allowed, false);
    } finally {
      await nc.close();
    }
  });
});
