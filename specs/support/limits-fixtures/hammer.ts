/**
 * One process's share of the two-process rate-limit spec: `workers` concurrent loops, each sending requests
 * through `rateLimit` with a bucket shared in NATS JetStream KV, from `startAt` for `durationMs` (wall clock).
 * Reports what it admitted and the instants of its first and last take.
 */
import { of } from 'rxjs';
import { connect } from '@nats-io/transport-node';
import type { RequestEvent } from '../../../actors/handler-types.ts';
import type { InterceptedRequest } from '../../../limits/interceptor-contract.ts';
import { KvBucketStore } from '../../../limits/nats/kv-bucket-store.ts';
import { rateLimit } from '../../../limits/rate-limit.ts';

export interface HammerOptions {
  readonly url: string;
  readonly bucket: string;
  readonly capacity: number;
  readonly refillPerSecond: number;
  readonly workers: number;
  readonly durationMs: number;
}

export interface HammerReport {
  readonly admitted: number;
  readonly refused: number;
  readonly conflicts: number;
  readonly unreachable: number;
  readonly firstAt: number;
  readonly lastAt: number;
}

const RESULT: RequestEvent = { type: 'result', result: {} };

function request(id: number): InterceptedRequest {
  const made: InterceptedRequest = {
    method: 'tools/call',
    params: { name: 'search' },
    meta: undefined,
    id,
    direction: 'incoming',
    target: 'search',
    session: { role: 'server', era: 'modern', revision: '2026-07-28', peerInfo: undefined, peerCapabilities: undefined, principal: 'tenant-1', id: undefined },
    signal: new AbortController().signal,
    with: (changes) => ({ ...made, ...changes }),
  };
  return made;
}

/** Connects and opens the shared store; `run` then hammers from `startAt`. */
export async function prepareHammer(options: HammerOptions): Promise<{ run(startAt: number): Promise<HammerReport>; close(): Promise<void> }> {
  const connection = await connect({ servers: options.url });
  const store = await KvBucketStore.open(connection, { bucket: options.bucket, maxAttempts: 50, timeoutMs: 2000 });
  const interceptor = rateLimit({ store, limits: [{ name: 'per-principal', by: 'principal', capacity: options.capacity, refillPerSecond: options.refillPerSecond }] });
  const next = () => of(RESULT);
  return {
    async run(startAt) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
      const endAt = startAt + options.durationMs;
      let admitted = 0;
      let refused = 0;
      let firstAt = Number.POSITIVE_INFINITY;
      let lastAt = 0;
      let id = 0;
      const worker = async (): Promise<void> => {
        while (Date.now() < endAt) {
          const began = Date.now();
          firstAt = Math.min(firstAt, began);
          const verdict = await new Promise<boolean>((resolve) => {
            interceptor(request((id += 1)), next).subscribe({ complete: () => resolve(true), error: () => resolve(false) });
          });
          lastAt = Math.max(lastAt, Date.now());
          if (verdict) admitted += 1;
          else refused += 1;
        }
      };
      await Promise.all(Array.from({ length: options.workers }, worker));
      const stats = store.stats();
      return { admitted, refused, conflicts: stats.conflicts, unreachable: stats.unreachable, firstAt, lastAt };
    },
    close: () => connection.close(),
  };
}
