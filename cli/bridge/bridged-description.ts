/**
 * The bridged server as `rxmcp bridge to-nats` announces it on the NATS services protocol (the acceptor's
 * `describe()`, which serveNats's announcer asks): the name, version and revision its probe answered (probe.ts),
 * and a catalog revision that moves each time one of its processes says a list changed.
 *
 * The revision is a count, not a digest of the lists (server/catalog-revision.ts): the bridge does not read the
 * lists its processes serve, it pipes them. A stdio server's lists may differ per session (server-everything adds
 * tools once a client is initialized), so any process's `list_changed` is news to whoever lists through the
 * bridge: a mesh lists the member again. Two bridges of one name count apart; a mesh joins their revisions.
 */
import { tap } from 'rxjs';
import type { ServerDescription } from '../../core/server-description.ts';
import type { Transport } from '../../core/transport.ts';
import type { ProbedServer } from './probe.ts';

const LIST_CHANGES = new Set(['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed']);

export interface BridgedDescription {
  describe(): ServerDescription;
  /** `child` as it is, save that the list changes it says are counted. */
  watch(child: Transport): Transport;
}

export function bridgedDescription(probed: ProbedServer): BridgedDescription {
  let changes = 0;
  const heard = (payload: unknown): void => {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return;
    const method = (payload as { readonly method?: unknown }).method;
    // A notification has no id; a request named like one is not a change.
    if (typeof method === 'string' && LIST_CHANGES.has(method) && !('id' in payload)) changes++;
  };
  return {
    describe: () => ({ serverInfo: probed.serverInfo, revisions: [probed.revision], catalogRevision: String(changes) }),
    watch(child) {
      return {
        kind: child.kind,
        incoming$: child.incoming$.pipe(
          tap((frame) => {
            if (frame.type === 'message') heard(frame.payload);
          }),
        ),
        send: (frame) => child.send(frame),
        close: (reason) => child.close(reason),
        pauseReading: () => child.pauseReading?.(),
        resumeReading: () => child.resumeReading?.(),
        negotiated: (revision) => child.negotiated?.(revision),
      };
    },
  };
}
