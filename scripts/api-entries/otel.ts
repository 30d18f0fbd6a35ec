/**
 * OpenTelemetry for rxmcp: spans per request after the MCP semantic conventions, trace context in `_meta`,
 * request and session metrics, on `@opentelemetry/api` (an optional peer). See docs/otel.md.
 *
 * @module rxmcp/otel
 */
export * from '../../otel/index.ts';
