/**
 * `instrument(serverOrClient)`: tracing and request metrics in one call, and a server's session metrics. What it
 * needs of a server or client is taken structurally, so otel/ imports no server or client code.
 */
import type { Subscription } from 'rxjs';
import type { Interceptor, InterceptorScope } from './interceptor-contract.ts';
import { type MetricsOptions, type SessionEventSource, metrics, sessionMetrics } from './metrics.ts';
import { type TracingOptions, tracing } from './tracing.ts';

/** A server or a client: something interceptors are registered with (and a server's `sessions$`). */
export interface Instrumentable {
  use(interceptor: Interceptor, scope?: InterceptorScope): { remove(): void };
  readonly sessions$?: SessionEventSource['sessions$'];
}

export interface InstrumentOptions extends TracingOptions, MetricsOptions {
  /** Make spans (default true). */
  readonly traces?: boolean;
  /** Record metrics (default true). */
  readonly metrics?: boolean;
  /** Which requests to instrument (default: all, both directions). */
  readonly scope?: InterceptorScope;
}

/**
 * Registers `tracing()` then `metrics()` (so a request's duration is measured inside its span) on a server or a
 * client, and on a server records its sessions. Call it before other `use`s to see what they do in the span.
 * @returns `remove()` takes it all out again
 */
export function instrument(target: Instrumentable, options: InstrumentOptions = {}): { remove(): void } {
  const registered: { remove(): void }[] = [];
  if (options.traces !== false) registered.push(target.use(tracing(options), options.scope));
  let sessions: Subscription | undefined;
  if (options.metrics !== false) {
    registered.push(target.use(metrics(options), options.scope));
    if (target.sessions$ !== undefined) sessions = sessionMetrics({ sessions$: target.sessions$ }, options);
  }
  return {
    remove() {
      for (const registration of registered.splice(0)) registration.remove();
      sessions?.unsubscribe();
      sessions = undefined;
    },
  };
}
