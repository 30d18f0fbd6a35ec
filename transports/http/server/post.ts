/**
 * POST on the MCP endpoint: one JSON-RPC message (or a 2025-03-26 batch) from the client.
 * - notifications and responses: handed to the session, 202 without a body;
 * - requests: answered on an SSE stream (related notifications and requests first, then the response) or with
 *   one JSON body, by `responseMode` and the client's Accept header;
 * - a lone initialize request without Mcp-Session-Id opens a session (its id comes back in that header).
 * Stateless endpoints serve each POST with a session of its own (stateless.ts).
 */
import type { FrameOrigin } from '../../../core/transport.ts';
import { HEADER } from '../shared/headers.ts';
import { isJsonContentType } from '../shared/media-types.ts';
import { envelopeOf } from '../../../core/frame-envelope.ts';
import { initializeIdOf, shapeOf } from './body-shape.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import { accepted, refuse } from './replies.ts';
import { type Endpoint, answerMode, readJson, refuseUnacceptable, sessionFor } from './session-lookup.ts';
import { openSession, sessionRefusal } from './session-open.ts';
import type { HttpSessionTransport } from './session-transport.ts';
import { handleStatelessPost } from './stateless.ts';
import { refusedForScope } from './step-up.ts';
import { holdForStepUp } from './step-up-hold.ts';
import { handleModernPost, isModernPost } from './modern-post.ts';

export async function handlePost(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined): Promise<void> {
  const { options, registry } = endpoint;
  if (!isJsonContentType(req.header(HEADER.contentType))) {
    return refuse(res, 415, 'Unsupported Media Type: the Content-Type must be application/json');
  }
  const body = await readJson(req, res, options.maxBodyBytes);
  if (body === undefined) return;
  // Read once: the era, the answer's plan, step-up and the session's routing all go by it.
  const envelope = envelopeOf(body.value);
  const eras = options.server.eras;
  if (eras !== undefined && eras !== 'legacy' && (eras === 'modern' || isModernPost(req, envelope))) {
    return handleModernPost(endpoint, req, res, body.value, envelope, origin);
  }
  if (options.stateless) return handleStatelessPost(endpoint, req, res, body.value, envelope, origin);

  let transport: HttpSessionTransport | undefined;
  if (req.header(HEADER.sessionId) === undefined) {
    if (initializeIdOf(envelope) === undefined) {
      return refuse(res, 400, 'Bad Request: the Mcp-Session-Id header is required (only a lone initialize request starts a session)');
    }
    if (answerMode(req.header(HEADER.accept), options.responseMode) === undefined) return refuseUnacceptable(res);
    let refusal = sessionRefusal(options, registry);
    // Idle connections of the modern pool may hold the server's places (a session host at its maximum).
    if (refusal !== undefined && endpoint.modern.size > 0 && (await endpoint.modern.closeIdle(0))) refusal = sessionRefusal(options, registry);
    if (refusal !== undefined) return refuse(res, 503, refusal, { [HEADER.retryAfter]: '30' });
    transport = openSession(options, registry, origin);
    registry.hold(transport.sessionId as string, res);
  } else {
    const found = sessionFor(endpoint, req, res, origin);
    transport = found instanceof Promise ? await found : found;
    if (transport === undefined) return;
  }

  const shape = shapeOf(envelope, transport.revision);
  const headers = transport.replyHeaders;
  if (!shape.needsAnswer) {
    transport.deliver(body.value, envelope, origin, shape.cancelled);
    return accepted(res, headers);
  }
  const mode = answerMode(req.header(HEADER.accept), options.responseMode);
  if (mode === undefined) return refuseUnacceptable(res);
  if (mode === 'json') return transport.openJson(res, headers, body.value, envelope, origin, shape);
  // The stream's 200 goes out before the handler runs: a call lacking a scope is refused first (step-up), or,
  // when only the server behind can tell, the 200 waits for the request's first message (step-up-hold.ts).
  if (refusedForScope(options, res, envelope, origin?.auth ?? transport.auth, headers)) return;
  await transport.openStream(holdForStepUp(options, res, envelope, headers), headers, body.value, envelope, origin, shape);
}
