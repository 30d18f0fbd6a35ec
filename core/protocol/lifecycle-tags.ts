/**
 * What a session's lifecycle state admits. The lifecycle machines (machines/) attach these tags to their
 * states; actors read them per message. Declared in core so both layers speak the same vocabulary.
 */
export type LifecycleTag =
  /** `ping` may flow both ways. */
  | 'admit-ping'
  /** The handshake request may flow (inbound `initialize` for a server, outbound for a client). */
  | 'admit-handshake'
  /** Inbound requests of the negotiated methods are served. */
  | 'admit-inbound'
  /** Our own requests may be sent. */
  | 'admit-outbound'
  /** Our own requests wait until the handshake completes (a server before `notifications/initialized`). */
  | 'defer-outbound'
  /**
   * Modern era (2026-07-28): every request is served on its own envelope (`_meta`), with no handshake and
   * no requests to the client; server needs travel as multi round-trip results.
   */
  | 'admit-modern'
  /** Frames may still be written to the transport. */
  | 'writable'
  /** The session is draining: no new inbound requests, in-flight ones may finish. */
  | 'draining'
  | 'closed';
