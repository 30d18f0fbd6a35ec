/**
 * Who is calling: the `authenticate` hook's answer as the frame origin sessions and handlers see, or the refusal
 * to answer with. An `AuthRefusal` keeps its status and challenge; anything else the hook throws is a 401 that
 * names the protected-resource metadata, when the endpoint has some, so a client can start its OAuth flow.
 */
import { type AuthInfo, isAuthRefusal } from '../../../core/auth.ts';
import type { FrameOrigin } from '../../../core/transport.ts';
import type { HttpRequestInfo, HttpResponder } from './http-exchange.ts';
import type { EndpointOptions } from './options.ts';
import { refuse } from './replies.ts';

export class CallerRefusal {
  constructor(
    readonly status: 401 | 403,
    readonly message: string,
    readonly challenge: string | undefined,
  ) {}

  answer(res: HttpResponder): void {
    refuse(res, this.status, this.message, this.challenge === undefined ? {} : { 'www-authenticate': this.challenge });
  }
}

/** The caller's origin (undefined: anonymous), or why the request is refused. */
export async function identify(options: Pick<EndpointOptions, 'authenticate' | 'protectedResource'>, req: HttpRequestInfo): Promise<FrameOrigin | undefined | CallerRefusal> {
  const authenticate = options.authenticate;
  if (authenticate === undefined) return undefined;
  let who: string | AuthInfo | undefined;
  try {
    who = await authenticate(req);
  } catch (error) {
    if (isAuthRefusal(error)) return new CallerRefusal(error.status, `${error.status === 401 ? 'Unauthorized' : 'Forbidden'}: ${error.message}`, error.challenge);
    return new CallerRefusal(401, 'Unauthorized', options.protectedResource?.challenge());
  }
  if (who === undefined) return undefined;
  if (typeof who === 'string') return { principal: who };
  if (typeof who !== 'object' || who === null || typeof who.principal !== 'string' || who.principal.length === 0) {
    // A hook that answers something else is a bug in the program, not the caller's fault: refuse, loudly.
    throw new TypeError('authenticate returned neither a principal, an AuthInfo with a principal, nor undefined');
  }
  return { principal: who.principal, auth: who };
}
