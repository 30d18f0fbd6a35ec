/**
 * `rxmcp/otel`: OpenTelemetry for rxmcp on `@opentelemetry/api` (an optional peer; `import 'rxmcp'` never loads
 * it). Spans per request on both sides after the MCP semantic conventions, trace context carried in `_meta`,
 * request and session metrics. Runs wherever rxmcp runs (no Node built-in). See docs/otel.md.
 */
export { ATTR, CANCELLED, TIMED_OUT, TOOL_ERROR } from './attributes.ts';
export { type HostFigures, type HostMetricsOptions, hostMetrics } from './host-metrics.ts';
export { type InstrumentOptions, type Instrumentable, instrument } from './instrument.ts';
export type { InterceptedRequest, Interceptor, InterceptorScope } from './interceptor-contract.ts';
export { type MetricsOptions, type SessionEventSource, metrics, sessionMetrics } from './metrics.ts';
export { CANCEL_REASON, INSTRUMENTATION_NAME, PROGRESS_EVENT, type TracingOptions, tracing } from './tracing.ts';
