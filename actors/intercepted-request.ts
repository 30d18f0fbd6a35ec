/**
 * The request object interceptors see, made once per request (and per `with`). Its data are own members and what
 * runs it at the end of the chain travels under a symbol key, so a spread copy (`{ ...request, params }`) still
 * reaches the handler; each link of a chain turns such a copy back into a request (with its `signal` and `with`)
 * before passing it on. The signal is a getter: an AbortSignal costs microseconds to make, so it is made only for
 * interceptors that read it.
 */
import type { Observable } from 'rxjs';
import type { JsonObject, RequestId } from '../core/jsonrpc.ts';
import type { RequestEvent } from './handler-types.ts';
import type { InterceptedDirection, InterceptedRequest, InterceptedSession, RequestChanges } from './interceptors.ts';
import { targetOf } from './interceptors.ts';

/** What ends a chain: how the request is served (incoming) or sent (outgoing), and its signal. */
export interface RequestRunner {
  signal(): AbortSignal;
  run(request: InterceptedRequest): Observable<RequestEvent>;
}

const RUNNER = Symbol('rxmcp.interceptedRunner');

interface RunnableRequest extends InterceptedRequest {
  readonly [RUNNER]: RequestRunner;
}

interface RequestFields {
  readonly direction: InterceptedDirection;
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly id: RequestId | undefined;
  readonly session: InterceptedSession;
}

function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?.['_meta'];
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as JsonObject) : undefined;
}

class Request implements RunnableRequest {
  readonly direction: InterceptedDirection;
  readonly method: string;
  readonly params: JsonObject | undefined;
  readonly meta: JsonObject | undefined;
  readonly id: RequestId | undefined;
  readonly target: string | undefined;
  readonly session: InterceptedSession;
  readonly [RUNNER]: RequestRunner;

  constructor(fields: RequestFields, runner: RequestRunner, meta: JsonObject | undefined = metaOf(fields.params), target: string | undefined = targetOf(fields.method, fields.params)) {
    this.direction = fields.direction;
    this.method = fields.method;
    this.params = fields.params;
    this.meta = meta;
    this.id = fields.id;
    this.target = target;
    this.session = fields.session;
    this[RUNNER] = runner;
  }

  get signal(): AbortSignal {
    return this[RUNNER].signal();
  }

  with(changes: RequestChanges): InterceptedRequest {
    let params = 'params' in changes ? changes.params : this.params;
    if ('meta' in changes) {
      const { _meta: _dropped, ...rest } = params ?? {};
      params = changes.meta === undefined ? rest : { ...rest, _meta: changes.meta };
    }
    return new Request({ direction: this.direction, method: this.method, params, id: this.id, session: this.session }, this[RUNNER]);
  }
}

export function interceptedRequest(fields: RequestFields, runner: RequestRunner): InterceptedRequest {
  return new Request(fields, runner);
}

/** The request an interceptor passed on, as a request again if it is a spread copy (its members are kept as they are). */
export function adopt(request: InterceptedRequest): InterceptedRequest {
  if (request instanceof Request) return request;
  return new Request(request, runnerOf(request), request.meta, request.target);
}

/**
 * The params a request reaching the end of the chain is run with. A spread copy may have changed `meta` without
 * `params`: a `meta` that differs from the params' `_meta` wins.
 */
export function finalParams(request: InterceptedRequest): JsonObject | undefined {
  const params = request.params;
  const meta = request.meta;
  if (meta === metaOf(params)) return params;
  const { _meta: _dropped, ...rest } = params ?? {};
  return meta === undefined ? rest : { ...rest, _meta: meta };
}

/** The end of every chain: runs the request the way its runner does. */
export function runIntercepted(request: InterceptedRequest): Observable<RequestEvent> {
  return runnerOf(request).run(request);
}

function runnerOf(request: InterceptedRequest): RequestRunner {
  const runner = (request as Partial<RunnableRequest>)[RUNNER];
  if (runner === undefined) throw new TypeError('An interceptor must pass on the request it was given, or a copy of it (request.with({...}) or a spread)');
  return runner;
}
