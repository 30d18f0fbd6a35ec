/**
 * Stateless mode: no sessions and no ids. Every POST carrying requests is served by a session of its own,
 * closed once it answered (or once the client left, since nothing could reach it any more). An initialize
 * request is served by a fresh session that negotiates as usual; anything else by a session preinitialized
 * with the revision of the MCP-Protocol-Version header (2025-03-26 when absent) and a client that declared no
 * capabilities, so server-to-client requests fail at once instead of waiting for an answer that cannot come.
 * Notifications and responses have no session to go to: they are acknowledged (202) and dropped.
 */
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';
import type { FrameOrigin } from '../../../core/transport.ts';
import { HEADER } from '../shared/headers.ts';
import { shapeOf } from './body-shape.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import { accepted, refuse } from './replies.ts';
import { type Endpoint, answerMode, protocolVersionOf, refuseUnacceptable, refuseVersion } from './session-lookup.ts';
import { HttpSessionTransport, type SessionTransportHooks } from './session-transport.ts';
import { refusedForScope } from './step-up.ts';
import { holdForStepUp } from './step-up-hold.ts';

const noHooks: SessionTransportHooks = { onClosed: () => undefined, onInitializeFailed: () => undefined };

export async function handleStatelessPost(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, body: unknown, envelope: FrameEnvelope, origin: FrameOrigin | undefined): Promise<void> {
  const { options } = endpoint;
  const version = protocolVersionOf(req, options.supportedVersions);
  if (version === 'invalid') return refuseVersion(res, req, options.supportedVersions);
  const revision = version === 'absent' ? '2025-03-26' : version;
  const shape = shapeOf(envelope, revision);
  if (!shape.needsAnswer) return accepted(res);
  const mode = answerMode(req.header(HEADER.accept), options.responseMode);
  if (mode === undefined) return refuseUnacceptable(res);
  // An SSE answer's 200 goes out before the handler runs: a call lacking a scope is refused first (step-up).
  if (mode === 'sse' && refusedForScope(options, res, envelope, origin?.auth, {})) return;
  const refusal = options.server.refusal?.();
  if (refusal !== undefined) return refuse(res, 503, `Service Unavailable: ${refusal.message}`, { [HEADER.retryAfter]: '30' });
  const transport = new HttpSessionTransport(undefined, options.transport, noHooks);
  if (shape.initializeId !== undefined) {
    options.server.accept(transport);
  } else {
    transport.revision = revision;
    options.server.accept(transport, { preinitialized: { revision, peerCapabilities: {} } });
  }
  if (mode === 'json') return transport.openJson(res, {}, body, envelope, origin, shape);
  await transport.openStream(holdForStepUp(options, res, envelope, {}), {}, body, envelope, origin, shape);
}
