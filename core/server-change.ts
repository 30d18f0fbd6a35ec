/**
 * Changes a server announces (its lists, a resource's content), and the port through which a medium that spans
 * processes (NATS) carries them: it hears this process's own changes and applies other processes' changes here.
 */
import type { Observable } from 'rxjs';

/** Something that changed on the server, as listeners are told about it. */
export type ServerChange =
  | { readonly type: 'tools' | 'prompts' | 'resources' }
  | { readonly type: 'resource-updated'; readonly uri: string };

export interface ChangeFeedPort {
  /** Changes made in this process (never the ones applied from elsewhere). */
  readonly local$: Observable<ServerChange>;
  /** A change another process made: told to this process's listeners and sessions as if made here. */
  apply(change: ServerChange): void;
}
