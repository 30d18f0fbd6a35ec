/**
 * Names and values both sides of the MCP HTTP transports use. Header names are lower case, as node:http and the
 * fetch `Headers` class report them; HTTP header names are case-insensitive on the wire.
 */
export const HEADER = Object.freeze({
  sessionId: 'mcp-session-id',
  protocolVersion: 'mcp-protocol-version',
  lastEventId: 'last-event-id',
  accept: 'accept',
  contentType: 'content-type',
  contentLength: 'content-length',
  origin: 'origin',
  host: 'host',
  allow: 'allow',
  retryAfter: 'retry-after',
  cacheControl: 'cache-control',
  /** Asks nginx-style proxies not to buffer an event stream. */
  accelBuffering: 'x-accel-buffering',
} as const);

export const MEDIA_TYPE = Object.freeze({
  json: 'application/json',
  eventStream: 'text/event-stream',
} as const);
