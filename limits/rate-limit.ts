/**
 * `rateLimit(options)`: an interceptor that admits a request only when every limit it falls under has tokens
 * for it, and otherwise answers it at once with the -32029 rate-limit error, which names the limit and says
 * when to retry (`error.data.retryAfterMs`). Over HTTP a request that is its own POST (2026-07-28) is answered
 * 429 with `Retry-After`.
 *
 * A limit is a token bucket per key: per principal, per session, per tool, per method, per target, any
 * combination of them, or a key of your own. Limits are checked in the order given and the first that refuses
 * ends the check, so a caller already over its own limit spends nothing from a shared one listed after it: put
 * the narrowest limits first. Buckets that admitted before a later one refused keep the cost (no refund), so
 * the refusal is cheap and never needs a second round trip to a shared store.
 */
import { defer, from, mergeMap, type Observable, throwError } from 'rxjs';
import type { RequestEvent } from '../actors/handler-types.ts';
import { ErrorCode } from '../core/error-codes.ts';
import { WireError } from '../core/errors.ts';
import { toolsCall } from '../core/protocol/declarations/tools.ts';
import { type BucketStore, MemoryBucketStore } from './bucket-store.ts';
import type { InterceptedRequest, Interceptor } from './interceptor-contract.ts';
import { TokenBucket, type TakeDecision, type TokenBucketRate } from './token-bucket.ts';

/**
 * What a bucket is per:
 * - `principal`: the authenticated caller (`session.principal`), else the `anonymousPrincipal` key;
 * - `session`: the session id (a 2026-07-28 request has no session: the limit does not apply to it);
 * - `tool`: the tool of a `tools/call` (other methods: the limit does not apply);
 * - `method`: the JSON-RPC method;
 * - `target`: the tool or prompt name or resource URI (requests without one: the limit does not apply).
 */
export type RateLimitKeyPart = 'principal' | 'session' | 'tool' | 'method' | 'target';

/** A request's cost in tokens: by method (unlisted methods cost 1; 0 makes a method free), or computed. */
export type RateLimitCost = Readonly<Record<string, number>> | ((request: InterceptedRequest) => number);

export interface RateLimitRule extends TokenBucketRate {
  /** Names the limit in the error message and `error.data.limit`, and keeps its buckets apart from others'. */
  readonly name: string;
  /**
   * What a bucket is per: one part, several (a bucket per combination, e.g. `['principal', 'tool']`), or a
   * function returning the key (undefined: the limit does not apply to this request).
   */
  readonly by: RateLimitKeyPart | readonly RateLimitKeyPart[] | ((request: InterceptedRequest) => string | undefined);
  /** Only these methods count against this limit (default: every request). */
  readonly methods?: readonly string[];
  /** The cost of a request under this limit (default: the options' `cost`, else 1). */
  readonly cost?: RateLimitCost;
}

export interface RateLimitOptions {
  readonly limits: readonly RateLimitRule[];
  /** Where the buckets live (default: a {@link MemoryBucketStore} of this process). */
  readonly store?: BucketStore;
  /** The cost of a request under every limit that sets none (default 1 for every method). */
  readonly cost?: RateLimitCost;
  /**
   * The principal of a request that has none (no authorization): a fixed key, or one computed from the
   * request (say, a client IP you put in `_meta`). Default `'anonymous'`: unauthenticated callers share one
   * bucket, so they cannot escape a principal limit by having no identity.
   */
  readonly anonymousPrincipal?: string | ((request: InterceptedRequest) => string | undefined);
  /** Which requests are limited (default `['incoming']`: what peers ask of us). */
  readonly directions?: readonly ('incoming' | 'outgoing')[];
  /** Called for each refusal, before the error is raised: for logs and metrics. Must not throw. */
  readonly onRefused?: (refusal: RateLimitRefusal) => void;
}

/** What `onRefused` is told. */
export interface RateLimitRefusal {
  readonly limit: string;
  /** The bucket's key (the limit's name, then the key parts, separated by U+001F). */
  readonly key: string;
  readonly retryAfterMs: number;
  readonly request: InterceptedRequest;
}

/** `error.data` of a -32029 error. */
export interface RateLimitErrorData {
  readonly limit: string;
  readonly retryAfterMs: number;
}

/** The -32029 error a refused request is answered with. */
export function rateLimitExceeded(limit: string, retryAfterMs: number, detail?: string): WireError {
  const wait = retryAfterMs < 1000 ? `${retryAfterMs} ms` : `${Math.ceil(retryAfterMs / 1000)} s`;
  const data: RateLimitErrorData = { limit, retryAfterMs };
  return new WireError(ErrorCode.RateLimited, `Rate limit exceeded: ${limit}${detail === undefined ? '' : ` (${detail})`}; retry after ${wait}`, { data });
}

/** The retry-after hint of a -32029 error (as a peer sent it, or as raised here), if it is one. */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (!(error instanceof WireError) || error.code !== ErrorCode.RateLimited) return undefined;
  const data = error.data as { retryAfterMs?: unknown } | undefined;
  return typeof data?.retryAfterMs === 'number' && Number.isFinite(data.retryAfterMs) && data.retryAfterMs >= 0 ? data.retryAfterMs : undefined;
}

/** One rule, compiled once. */
interface CompiledRule {
  readonly name: string;
  readonly bucket: TokenBucket;
  readonly keyOf: (request: InterceptedRequest) => string | undefined;
  readonly methods: ReadonlySet<string> | undefined;
  readonly costOf: (request: InterceptedRequest) => number;
  readonly detail: string;
}

/** Separates the parts of a bucket key (never in a method name; harmless in a principal or URI). */
const SEPARATOR = '\u001f';

function compileCost(cost: RateLimitCost | undefined): (request: InterceptedRequest) => number {
  if (cost === undefined) return () => 1;
  if (typeof cost === 'function') return cost;
  return (request) => cost[request.method] ?? 1;
}

function partOf(part: RateLimitKeyPart, request: InterceptedRequest, anonymous: (request: InterceptedRequest) => string | undefined): string | undefined {
  switch (part) {
    case 'principal':
      return request.session.principal ?? anonymous(request);
    case 'session':
      return request.session.id;
    case 'tool':
      return request.method === toolsCall.method ? request.target : undefined;
    case 'method':
      return request.method;
    case 'target':
      return request.target;
  }
}

function compileRule(rule: RateLimitRule, options: RateLimitOptions): CompiledRule {
  if (rule.name.length === 0) throw new RangeError('A rate limit needs a name');
  const bucket = new TokenBucket(rule);
  const anonymousOption = options.anonymousPrincipal ?? 'anonymous';
  const anonymous = typeof anonymousOption === 'function' ? anonymousOption : () => anonymousOption;
  const prefix = `${rule.name}${SEPARATOR}`;
  const by = rule.by;
  let keyOf: (request: InterceptedRequest) => string | undefined;
  if (typeof by === 'function') {
    keyOf = (request) => {
      const key = by(request);
      return key === undefined ? undefined : prefix + key;
    };
  } else {
    const parts: readonly RateLimitKeyPart[] = typeof by === 'string' ? [by] : by;
    const [only] = parts;
    keyOf =
      parts.length === 1 && only !== undefined
        ? (request) => {
            const value = partOf(only, request, anonymous);
            return value === undefined ? undefined : prefix + value;
          }
        : (request) => {
            let key = prefix;
            for (let index = 0; index < parts.length; index += 1) {
              const value = partOf(parts[index] as RateLimitKeyPart, request, anonymous);
              if (value === undefined) return undefined;
              key += index === 0 ? value : SEPARATOR + value;
            }
            return key;
          };
  }
  const cost = rule.cost ?? options.cost;
  // A cost by method is checked now (a cost above the capacity could never be admitted); a computed one, per request.
  if (cost !== undefined && typeof cost !== 'function') for (const value of Object.values(cost)) bucket.costUnits(value);
  const costOf = compileCost(cost);
  const detail = `${rule.capacity} at once, ${rule.refillPerSecond} per second`;
  return { name: rule.name, bucket, keyOf, methods: rule.methods === undefined ? undefined : new Set(rule.methods), costOf, detail };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A rate-limiting interceptor; see the module comment. Throws a RangeError at once for an invalid limit. */
export function rateLimit(options: RateLimitOptions): Interceptor {
  const rules = options.limits.map((rule) => compileRule(rule, options));
  const names = new Set(rules.map((rule) => rule.name));
  if (names.size !== rules.length) throw new RangeError('Rate limits need distinct names (a name keeps their buckets apart)');
  const store = options.store ?? new MemoryBucketStore();
  const directions = new Set(options.directions ?? ['incoming']);
  const onRefused = options.onRefused;
  const refuse = (rule: CompiledRule, key: string, decision: TakeDecision, request: InterceptedRequest): WireError => {
    onRefused?.({ limit: rule.name, key, retryAfterMs: decision.retryAfterMs, request });
    return rateLimitExceeded(rule.name, decision.retryAfterMs, rule.detail);
  };

  /** The rules from `index` on; a refusal as the error to answer with; synchronous while the store is. */
  const check = (request: InterceptedRequest, index: number): WireError | undefined | Promise<WireError | undefined> => {
    for (let i = index; i < rules.length; i += 1) {
      const rule = rules[i] as CompiledRule;
      if (rule.methods !== undefined && !rule.methods.has(request.method)) continue;
      const key = rule.keyOf(request);
      if (key === undefined) continue;
      const cost = rule.bucket.costUnits(rule.costOf(request));
      if (cost === 0) continue;
      const decision = store.take(key, rule.bucket, cost);
      if (isPromise(decision)) return decision.then((settled) => (settled.allowed ? check(request, i + 1) : refuse(rule, key, settled, request)));
      if (!decision.allowed) return refuse(rule, key, decision, request);
    }
    return undefined;
  };

  return (request, next): Observable<RequestEvent> => {
    if (!directions.has(request.direction)) return next(request);
    return defer(() => {
      const verdict = check(request, 0);
      if (!isPromise(verdict)) return verdict === undefined ? next(request) : throwError(() => verdict);
      return from(verdict).pipe(mergeMap((error) => (error === undefined ? next(request) : throwError(() => error))));
    });
  };
}
