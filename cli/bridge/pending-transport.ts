/**
 * A transport that is still being made (a child process starting), usable at once: `send` waits for it (a
 * promise, so a pipe holds its frames back: backpressure), `incoming$` carries its frames once it exists, and a
 * transport that could not be made ends `incoming$` with that error (every waiting send rejects with it).
 * Closing before it exists closes it as soon as it does.
 */
import { type Observable, from, switchMap } from 'rxjs';
import { LocalError } from '../../core/errors.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';

export function pendingTransport(making: Promise<Transport>, kind: string): Transport {
  // A transport that failed to start while nobody sent to it or listened is not a crash of the process.
  making.catch(() => undefined);
  const incoming$: Observable<InboundFrame> = from(making).pipe(switchMap((made) => made.incoming$));
  let closing: Promise<void> | undefined;
  // Flow control asked for before the transport exists applies once it does.
  let made: Transport | undefined;
  let paused = false;
  making.then(
    (transport) => {
      made = transport;
      if (paused) transport.pauseReading?.();
    },
    () => undefined,
  );
  return {
    kind,
    incoming$,
    send(frame: OutboundFrame): Promise<void> {
      if (closing !== undefined) return Promise.reject(new LocalError('ConnectionClosed', `The ${kind} transport is closed`));
      return making.then((made) => made.send(frame));
    },
    pauseReading(): void {
      paused = true;
      made?.pauseReading?.();
    },
    resumeReading(): void {
      paused = false;
      made?.resumeReading?.();
    },
    close(reason?: LocalError): Promise<void> {
      closing ??= making.then(
        (made) => made.close(reason),
        () => undefined,
      );
      return closing;
    },
  };
}
