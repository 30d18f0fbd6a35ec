/** Numeric JSON-RPC error codes that MCP puts on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy revisions only (2026-07-28 uses InvalidParams). */
  ResourceNotFound: -32002,
  /** 2025-11-25 only. */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: HTTP headers missing, malformed or disagreeing with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request's protocol version is not supported. */
  UnsupportedProtocolVersion: -32022,
  /**
   * rxmcp (implementation-defined server error range): a rate limit refused the request. `data` carries
   * `{ limit, retryAfterMs }`; over HTTP, a request that is its own POST is answered 429 with `Retry-After`.
   * The digits echo HTTP 429; no MCP revision uses the code.
   */
  RateLimited: -32029,
  /**
   * rxmcp (implementation-defined server error range): the caller's token lacks a scope the tool, prompt or
   * resource requires. `data` carries `{ requiredScopes }`; over HTTP, a request that is its own POST is answered
   * 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` so the client can step up. The
   * digits echo HTTP 403 (-32003 is taken by other implementations for other meanings).
   */
  InsufficientScope: -32043,
  /**
   * rxmcp (implementation-defined server error range): a NATS-hosted server refused the identity a message carried
   * (an assertion that does not verify, or none where one is required). The digits echo HTTP 401 (-32001 is taken: the SDKs use it for request timeouts).
   */
  IdentityRefused: -32041,
  /** Example code for a user declining a sampling request. */
  UserRejected: -1,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
