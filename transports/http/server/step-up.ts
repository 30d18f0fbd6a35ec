/**
 * Step-up before a stream opens: a legacy POST answered on an SSE stream gets its 200 before the handler runs,
 * so a call the caller lacks a scope for would carry its -32043 inside the stream, where no client steps up.
 * With `authenticate` configured, a lone request is checked first (the server decides from the item's
 * `requires`, see `SessionAcceptorPort.missingScopes`) and refused with 403 and the `insufficient_scope`
 * challenge, the -32043 error as body, as JSON-mode answers are; the session never sees it.
 */
import type { AuthInfo } from '../../../core/auth.ts';
import { ErrorCode } from '../../../core/error-codes.ts';
import type { FrameEnvelope } from '../../../core/frame-envelope.ts';
import type { HeaderMap, HttpResponder } from './http-exchange.ts';
import type { EndpointOptions } from './options.ts';
import { stepUpHeaders } from './protected-resource.ts';

/**
 * Answers 403 and returns true when the body (its `envelope`) is a lone request the caller lacks scopes for; false
 * otherwise. Only a request whose declaration names an access rule for its target (a tool, prompt or resource
 * call naming its item) is asked about: every other request goes on without the catalog being consulted.
 */
export function refusedForScope(options: EndpointOptions, res: HttpResponder, envelope: FrameEnvelope, auth: AuthInfo | undefined, headers: HeaderMap): boolean {
  const check = options.server.missingScopes;
  const classified = envelope.classified;
  if (check === undefined || options.authenticate === undefined || classified.kind !== 'request') return false;
  if (envelope.declaration?.target?.access === undefined || envelope.target === undefined) return false;
  const { id, method, params } = classified.message;
  const required = check(method, params, auth);
  if (required === undefined) return false;
  const error = {
    code: ErrorCode.InsufficientScope,
    message: `Insufficient scope: ${method} needs the scope(s) ${required.join(' ')}`,
    data: { requiredScopes: [...required] },
  };
  res.respond(403, { ...stepUpHeaders(error, options.transport), ...headers }, JSON.stringify({ jsonrpc: '2.0', id, error }));
  return true;
}
