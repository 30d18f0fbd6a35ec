/**
 * The requests a side sends, through its interceptors (direction `outgoing`): a client's calls, a server's
 * requests to its client (sampling, elicitation, roots in the legacy era). The handshake (`initialize`, the
 * `server/discover` probe) is the session's own business and is never intercepted.
 *
 * Chains are composed once per method, on first use after each `use`; the request object is made per send, and
 * the signal interceptors see aborts when the caller stops listening.
 */
import { Observable } from 'rxjs';
import { onAbort } from '../core/abort.ts';
import { LocalError } from '../core/errors.ts';
import type { JsonObject } from '../core/jsonrpc.ts';
import { MODERN_REVISIONS } from '../core/protocol/versions.ts';
import type { RequestEvent } from './handler-types.ts';
import { type RequestRunner, finalParams, interceptedRequest, runIntercepted } from './intercepted-request.ts';
import type { Chain, InterceptedRequest, InterceptedSession, InterceptorList } from './interceptors.ts';
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
    const composed = chain;
    return new Observable<RequestEvent<object>>((subscriber) => {
      const runner = new SendRunner(session, spec, send);
      const request = interceptedRequest({ direction: 'outgoing', method, params: runner.params, id: undefined, session: sessionOf(session) }, runner);
      let ended = false;
      const subscription = composed(request).subscribe({
        next: (event) => subscriber.next(event),
        error: (error: unknown) => {
          ended = true;
          subscriber.error(error);
        },
        complete: () => {
          ended = true;
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        if (!ended) runner.abort();
      };
    });
  }
}

function sessionOf(session: SessionContext): InterceptedSession {
  const era = session.envelope !== undefined ? 'modern' : 'legacy';
  const view = session.view;
  return {
    role: session.role,
    era,
    revision: session.revision ?? (era === 'modern' ? MODERN_REVISIONS[0] : undefined),
    peerInfo: view.peerInfo,
    peerCapabilities: view.peerCapabilities,
    principal: undefined,
  };
}

/** Sends the request when it reaches the end of the chain; the request's `meta` option travels in its params. */
class SendRunner implements RequestRunner {
  readonly params: JsonObject | undefined;
  private readonly spec: OutgoingRequestSpec;
  private controller: AbortController | undefined;

  constructor(
    private readonly session: SessionContext,
    spec: OutgoingRequestSpec,
    private readonly send: Send,
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

  abort(): void {
    this.controller?.abort(new LocalError('RequestAborted', 'The caller stopped waiting'));
  }

  run(request: InterceptedRequest): Observable<RequestEvent> {
    return this.send(this.session, { ...this.spec, params: finalParams(request) }) as Observable<RequestEvent>;
  }
}
