/**
 * Keepalive: pings the peer on an interval and declares the connection dead after too many pings in a row
 * go unanswered.
 */
import type { Observable } from 'rxjs';
import type { TimerHandle } from '../core/clock.ts';
import { LocalError, isLocalError } from '../core/errors.ts';
import type { RequestEvent } from './handler-types.ts';
import type { SessionContext } from './session-context.ts';

export interface KeepaliveOptions {
  /** Milliseconds between pings. */
  readonly intervalMs: number;
  /** Milliseconds a ping may take (default: the interval). */
  readonly timeoutMs?: number;
  /** Consecutive unanswered pings before the peer is declared dead (default 2). */
  readonly maxMissed?: number;
}

export function startKeepalive(
  session: SessionContext,
  options: KeepaliveOptions,
  ping$: (timeoutMs: number) => Observable<RequestEvent>,
  onDead: (error: LocalError) => void,
): TimerHandle {
  const timeoutMs = options.timeoutMs ?? options.intervalMs;
  const maxMissed = options.maxMissed ?? 2;
  let missed = 0;
  let inFlight = false;
  const tick = (): void => {
    if (inFlight || !session.admits('admit-ping')) return;
    inFlight = true;
    ping$(timeoutMs).subscribe({
      complete: () => {
        inFlight = false;
        missed = 0;
      },
      error: (error: unknown) => {
        inFlight = false;
        // Only silence counts; a closed session or an error answer is not a missed pong.
        if (!isLocalError(error, 'RequestTimeout')) return;
        missed++;
        if (missed >= maxMissed) {
          onDead(new LocalError('PeerUnresponsive', `The peer did not answer ${missed} pings in a row`, { cause: error }));
        }
      },
    });
  };
  return session.clock.setInterval(tick, options.intervalMs);
}
