/**
 * Stand-ins for the unit specs of server/: a session that records what it is sent, and the context of one
 * incoming request. The parts under test only read a session's state and capabilities and call `notify`.
 */
import type { RequestContext } from '../../actors/handler-types.ts';
import type { AuthInfo } from '../../core/auth.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { ServerCapabilities } from '../../core/protocol/capabilities.ts';
import type { Revision } from '../../core/protocol/versions.ts';
import type { McpSession } from '../../session/session-core.ts';

export interface FakeSession {
  readonly session: McpSession;
  /** What the session was sent, in order. */
  readonly sent: { method: string; params: JsonObject | undefined }[];
  /** Marks the session as no longer operating (closing or closed). */
  close(): void;
}

export function fakeSession(capabilities: ServerCapabilities = {}, revision: Revision = '2025-11-25', auth?: AuthInfo): FakeSession {
  const sent: FakeSession['sent'] = [];
  let state = 'operating';
  const session = {
    role: 'server',
    revision,
    peerInfo: undefined,
    peerCapabilities: {},
    ownCapabilities: capabilities,
    auth,
    get state() {
      return state;
    },
    notify(method: string, params?: JsonObject) {
      sent.push({ method, params });
    },
  };
  return {
    session: session as unknown as McpSession,
    sent,
    close: () => void (state = 'closed'),
  };
}

/** The context of a request `method` on `session`, answering nothing of its own. */
export function fakeRequest(method: string, session: McpSession, id = 1): RequestContext {
  return {
    id,
    method,
    meta: undefined,
    signal: new AbortController().signal,
    session,
    progress: () => undefined,
    request$: () => {
      throw new Error('not in this spec');
    },
    request: () => Promise.reject(new Error('not in this spec')),
    notify: () => undefined,
    whenWritable: () => Promise.resolve(),
    modern: undefined,
  };
}
