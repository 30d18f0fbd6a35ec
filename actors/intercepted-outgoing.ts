/**
 * The requests a side sends, through its interceptors (direction `outgoing`): a client's calls, a server's
 * requests to its client (sampling, elicitation, roots in the legacy era). The handshake (`initialize`, the
 * `server/discover` probe) is the session's own business and is never intercepted.
 *
 * Chains are composed once per method, on first use after each `use`; the request object is made per send, and
 * the signal interceptors see aborts when the caller stops listening.
 */
import { Observable, type Subscriber, type Subscription } from 'rxjs';
import { onAbort } from '../core/abort.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import type { RequestEvent } from './handler-types.ts';
import { type RequestRunner, finalParams, interceptedRequest, runIntercepted } from './intercepted-request.ts';
import { type Chain, type InterceptedRequest, type InterceptedSession, type InterceptorList, InterceptedSessionFacts } from './interceptors.ts';
import type { OutgoingInterception, OutgoingRequestSpec } from './outgoing-request.ts';
import type { SessionContext } from './session-context.ts';

type Send = (session: SessionContext, spec: OutgoingRequestSpec) => Observable<RequestEvent<object>>;

/** Requests of the handshake, which no interceptor sees. */
const HANDSHAKE: ReadonlySet<string> = new Set(['initialize', 'server/discover']);

export class OutgoingInterceptors implements OutgoingInterception {
  private readonly chains = new Map<string, Chain | undefined>();

  constructor(private readonly interceptors: InterceptorList) {}

  /** The interceptors changed: chains are composed again. */
  reset(): void {
    this.chains.clear();
  }

  request$(session: SessionContext, spec: OutgoingRequestSpec, send: Send): Observable<RequestEvent<object>> | undefined {
    const method = spec.method;
    if (HANDSHAKE.has(method)) return undefined;
    let chain = this.chains.get(method);
    if (chain === undefined && !this.chains.has(method)) this.chains.set(method, (chain = this.interceptors.chain('outgoing', method, runIntercepted)));
    if (chain === undefined) return undefined;
    return interceptedSend(chain, session, spec, send);
  }
}

/**
 * One intercepted send, as an Observable: each subscription runs the chain afresh (a retrying interceptor
 * subscribes again), and its teardown is the runner's, which aborts what the interceptors see.
 */
function interceptedSend(chain: Chain, session: SessionContext, spec: OutgoingRequestSpec, send: Send): Observable<RequestEvent<object>> {
  return new Observable<RequestEvent<object>>((subscriber) => {
    const runner = new SendRunner(session, spec, send, subscriber);
    const request = interceptedRequest({ direction: 'outgoing', method: spec.method, params: runner.params, id: undefined, session: sessionOf(session) }, runner);
    runner.subscription = chain(request).subscribe(runner);
    return runner;
  });
}

function sessionOf(session: SessionContext): InterceptedSession {
  const view = session.view;
  const era = session.envelope !== undefined ? 'modern' : 'legacy';
  // The peer a server sends to is the client its transport authenticated; a client authenticates nobody.
  const server = session.role === 'server';
  return new InterceptedSessionFacts(view, era, server ? session.principal : undefined, server ? session.auth : undefined);
}

/**
 * Sends the request when it reaches the end of the chain (the request's `meta` option travels in its params), and
 * passes the chain's events to the caller; unsubscribed before the end, it aborts the signal interceptors see.
 */
class SendRunner implements RequestRunner {
  readonly params: JsonObject | undefined;
  subscription: Subscription | undefined;
  private readonly spec: OutgoingRequestSpec;
  private controller: AbortController | undefined;
  private ended = false;

  constructor(
    private readonly session: SessionContext,
    spec: OutgoingRequestSpec,
    private readonly send: Send,
    private readonly caller: Subscriber<RequestEvent<object>>,
  ) {
    const extra = spec.options.meta;
    if (extra === undefined) {
      this.params = spec.params;
      this.spec = spec;
    } else {
      const own = spec.params?.['_meta'];
      this.params = { ...spec.params, _meta: { ...(typeof own === 'object' && own !== null ? (own as JsonObject) : {}), ...extra } };
      const { meta: _merged, ...options } = spec.options;
      this.spec = { ...spec, options };
    }
  }

  signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = (this.controller = new AbortController());
      const given = this.spec.options.signal;
      if (given !== undefined) onAbort(given, (reason) => controller.abort(reason));
    }
    return this.controller.signal;
  }

  next(event: RequestEvent<object>): void {
    this.caller.next(event);
  }

  error(error: unknown): void {
    this.ended = true;
    this.caller.error(error);
  }

  complete(): void {
    this.ended = true;
    this.caller.complete();
  }

  /** The caller's teardown. */
  unsubscribe(): void {
    this.subscription?.unsubscribe();
    if (!this.ended) this.controller?.abort(new LocalError('RequestAborted', 'The caller stopped waiting'));
  }

  run(request: InterceptedRequest): Observable<RequestEvent> {
    return this.send(this.session, { ...this.spec, params: finalParams(request) }) as Observable<RequestEvent>;
  }
}
