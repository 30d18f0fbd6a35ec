/**
 * The HTTP engine on node:http / node:https (Node and Bun).
 *
 * Why not fetch here: undici's fetch costs most of the throughput of small JSON-RPC exchanges, and a shared
 * AbortSignal collects one listener per request in flight. Here each request is an object of its own: its
 * listeners live on it and die with it, nothing is added to a socket or to a shared signal, and no timer is
 * armed per request. Two keep-alive agents make the two lanes (requests and streams; control messages).
 */
import { Agent as HttpAgent, type Agent, type ClientRequest, type RequestOptions, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { LocalError } from '../../../core/errors.ts';
import type { ExchangeSpec, HttpEngine, HttpRequest, HttpResponse } from './http-exchange.ts';

export interface NodeEngineOptions {
  /** An agent of the caller's for both lanes (it is not destroyed on close). */
  readonly agent?: Agent | undefined;
  /** Sockets of the owned request agent; the control agent gets a quarter (at least 8). */
  readonly maxSockets: number;
}

export function createNodeEngine(url: URL, options: NodeEngineOptions): HttpEngine {
  let main: Agent;
  let control: Agent;
  const owned = options.agent === undefined;
  if (options.agent !== undefined) {
    main = control = options.agent;
  } else {
    const AgentClass = url.protocol === 'https:' ? HttpsAgent : HttpAgent;
    const maxSockets = options.maxSockets;
    main = new AgentClass({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' });
    const controlSockets = Math.max(8, Math.ceil(maxSockets / 4));
    control = new AgentClass({ keepAlive: true, maxSockets: controlSockets, maxFreeSockets: controlSockets, scheduling: 'lifo' });
  }
  /** The request options of the last URL asked for (the endpoint's, nearly always): not derived again per request. */
  let lastHref: string | undefined;
  let lastTarget: RequestTarget | undefined;
  const targetOf = (target: URL): RequestTarget => {
    const href = target.href;
    if (href !== lastHref || lastTarget === undefined) {
      lastTarget = requestTarget(target);
      lastHref = href;
    }
    return lastTarget;
  };
  /** Requests still running, so that close can abort them. */
  const active = new Set<ClientRequest>();
  /** Requests we ended on purpose: their 'socket hang up' is not a reason to send them again. */
  const abandoned = new WeakSet<HttpRequest>();

  const abort = (request: HttpRequest): void => {
    abandoned.add(request);
    request.destroy();
  };

  return {
    exchange(spec: ExchangeSpec, onRequest?: (request: HttpRequest) => void): Promise<HttpResponse> {
      return new Promise((resolve, reject) => {
        const target = targetOf(spec.url);
        const body = spec.body;
        const headers = body === undefined ? spec.headers : { ...spec.headers, 'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) };
        const requestOptions = { ...target, method: spec.method, headers, agent: spec.lane === 'main' ? main : control };
        sendRequest({ spec, options: requestOptions, onRequest, active, abandoned, resolve, reject }, false);
      });
    },
    abort,
    get inFlight() {
      return active.size;
    },
    abortAll() {
      for (const request of [...active]) abort(request);
    },
    dispose() {
      if (!owned) return;
      main.destroy();
      control.destroy();
    },
  };
}

/** One exchange's request, and where its outcome goes (an object, not a closure made per exchange). */
interface Outgoing {
  readonly spec: ExchangeSpec;
  readonly options: RequestOptions;
  readonly onRequest: ((request: HttpRequest) => void) | undefined;
  readonly active: Set<ClientRequest>;
  readonly abandoned: WeakSet<HttpRequest>;
  readonly resolve: (response: HttpResponse) => void;
  readonly reject: (error: LocalError) => void;
}

/** Sends the request of `out` (`retried`: this is the one retry on a fresh socket). */
function sendRequest(out: Outgoing, retried: boolean): void {
  const { spec, active } = out;
  const request = out.options.protocol === 'https:' ? httpsRequest(out.options) : httpRequest(out.options);
  let answered = false;
  active.add(request);
  request.once('response', (response) => {
    answered = true;
    out.resolve(response);
  });
  // `on`, not `once`: a socket error after the response head must not become an unhandled 'error' event.
  request.on('error', (error: NodeJS.ErrnoException) => {
    if (out.abandoned.has(request)) {
      out.reject(new LocalError('RequestAborted', `${spec.method} ${spec.url.href} was aborted`, { cause: error }));
      return;
    }
    // A kept-alive socket the server closed while idle fails before the request reached the server:
    // Node's documented remedy is to send it again, once, on a fresh socket.
    if (!answered && !retried && request.reusedSocket && error.code === 'ECONNRESET') {
      sendRequest(out, true);
      return;
    }
    out.reject(new LocalError('TransportFailed', `${spec.method} ${spec.url.href} failed: ${error.message}`, { cause: error }));
  });
  request.once('close', () => active.delete(request));
  out.onRequest?.(request);
  request.end(spec.body);
}

/** The parts of a URL node:http's request options take (what `http.request(url)` derives on every call). */
interface RequestTarget {
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
  readonly auth?: string;
}

function requestTarget(url: URL): RequestTarget {
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const base = { protocol: url.protocol, hostname, port: url.port, path: `${url.pathname}${url.search}` };
  if (url.username === '' && url.password === '') return Object.freeze(base);
  return Object.freeze({ ...base, auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` });
}
