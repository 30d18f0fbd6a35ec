/**
 * GET and DELETE on the MCP endpoint.
 * - GET opens the session's standalone SSE stream: server notifications and requests unrelated to any POST.
 *   One connection at a time: a second plain GET gets 409 while the first is open.
 * - GET with Last-Event-ID resumes whichever stream that event belongs to (a POST's or the standalone one) on
 *   this connection, taking it over from any connection still holding it; allowed even when the standalone
 *   stream is disabled, since the 2025-11-25 polling pattern depends on it. A stream that is over with nothing
 *   left to replay gets 204: clients take that as its end, where an empty event stream sends them back again.
 * - DELETE ends the session: its transport closes (the session sees its input complete), its streams end,
 *   its events leave the store, and its id answers 404 from then on (here; other processes that restored it
 *   hold their own copy until it expires there).
 */
import type { FrameOrigin } from '../../../core/transport.ts';
import { HEADER, MEDIA_TYPE } from '../shared/headers.ts';
import { accepts } from '../shared/media-types.ts';
import type { HttpRequest, HttpResponder } from './http-exchange.ts';
import { methodNotAllowed, refuse } from './replies.ts';
import { type Endpoint, sessionFor } from './session-lookup.ts';
import { resumeStream } from './stream-resume.ts';

export async function handleGet(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined): Promise<void> {
  const { options } = endpoint;
  if (options.stateless) return methodNotAllowed(res, 'POST', 'a stateless endpoint has no GET stream');
  if (!accepts(req.header(HEADER.accept), MEDIA_TYPE.eventStream)) {
    return refuse(res, 406, 'Not Acceptable: a GET stream needs an Accept header listing text/event-stream');
  }
  const lastEventId = req.header(HEADER.lastEventId);
  const resuming = lastEventId !== undefined && lastEventId.length > 0 && options.transport.store !== undefined;
  if (!resuming && !options.standaloneGet) return methodNotAllowed(res, 'POST, DELETE', 'this endpoint offers no standalone GET stream');
  const transport = await sessionFor(endpoint, req, res, origin);
  if (transport === undefined) return;
  const headers = { [HEADER.sessionId]: transport.sessionId as string };
  if (resuming) {
    const outcome = await resumeStream(transport, res, headers, lastEventId);
    if (outcome === 'unknown') refuse(res, 400, 'Bad Request: the Last-Event-ID names no event this session still holds');
    else if (outcome === 'closed') refuse(res, 404, 'Session not found: it ended');
    else if (outcome === 'over') res.respond(204, headers);
    return;
  }
  if (!(await transport.openStandalone(res, headers))) {
    refuse(res, 409, 'Conflict: this session already has its standalone GET stream open');
  }
}

export async function handleDelete(endpoint: Endpoint, req: HttpRequest, res: HttpResponder, origin: FrameOrigin | undefined): Promise<void> {
  if (endpoint.options.stateless) return methodNotAllowed(res, 'POST', 'a stateless endpoint has no sessions to end');
  const transport = await sessionFor(endpoint, req, res, origin);
  if (transport === undefined) return;
  await transport.end();
  res.respond(200, {});
}
