/**
 * A transport the specs drive by hand: they push inbound frames, see what was sent, and decide whether a send
 * is taken at once, held (a promise they settle), or refused.
 */
import { BehaviorSubject, type Observable, Subject } from 'rxjs';
import { LocalError } from '../../../core/errors.ts';
import type { InboundFrame, OutboundFrame, Transport, TransportStatus } from '../../../core/transport.ts';

export interface FakeTransport extends Transport {
  readonly sent: unknown[];
  /** The whole frames sent (payload, exchange, mirror), in order. */
  readonly frames: OutboundFrame[];
  /** What `negotiated` was told, in order. */
  readonly negotiations: Array<string | undefined>;
  /** `pauseReading` / `resumeReading` calls, in order (only with `pausable`). */
  readonly reading: Array<'pause' | 'resume'>;
  /** Sends whose promise is still held (mode `hold`), oldest first. */
  readonly held: Array<{ readonly payload: unknown; release(): void; fail(error: Error): void }>;
  /** How `send` answers: `take` (undefined), `hold` (a promise the spec settles), `refuse` (throws). */
  mode: 'take' | 'hold' | 'refuse';
  /** Most sends awaiting at once. */
  readonly maxHeld: number;
  closed: boolean;
  closeReason: LocalError | undefined;
  /** Delivers an inbound frame (a message, unless a whole frame is given). */
  receive(payload: unknown): void;
  receiveFrame(frame: InboundFrame): void;
  /** Ends incoming$ as the medium would (the peer went away). */
  end(error?: Error): void;
}

export function fakeTransport(kind = 'fake', options: { readonly pausable?: boolean } = {}): FakeTransport {
  const inbound = new Subject<InboundFrame>();
  const status = new BehaviorSubject<TransportStatus>({ type: 'open' });
  let maxHeld = 0;
  const fake: FakeTransport = {
    kind,
    sent: [],
    frames: [],
    negotiations: [],
    reading: [],
    held: [],
    mode: 'take',
    get maxHeld() {
      return maxHeld;
    },
    closed: false,
    closeReason: undefined,
    incoming$: inbound.asObservable() as Observable<InboundFrame>,
    send(frame: OutboundFrame) {
      if (fake.closed) return Promise.reject(new LocalError('ConnectionClosed', `${kind} is closed`));
      if (fake.mode === 'refuse') throw new LocalError('TransportFailed', `${kind} refuses`);
      fake.sent.push(frame.payload);
      fake.frames.push(frame);
      if (fake.mode === 'take') return undefined;
      return new Promise<void>((resolve, reject) => {
        const entry = {
          payload: frame.payload,
          release: () => {
            fake.held.splice(fake.held.indexOf(entry), 1);
            resolve();
          },
          fail: (error: Error) => {
            fake.held.splice(fake.held.indexOf(entry), 1);
            reject(error);
          },
        };
        fake.held.push(entry);
        maxHeld = Math.max(maxHeld, fake.held.length);
      });
    },
    async close(reason) {
      if (fake.closed) return;
      fake.closed = true;
      fake.closeReason = reason;
      for (const entry of [...fake.held]) entry.fail(new LocalError('ConnectionClosed', `${kind} is closed`));
      status.next({ type: 'closed' });
      inbound.complete();
    },
    negotiated: (revision) => void fake.negotiations.push(revision),
    ...(options.pausable === true
      ? { pauseReading: () => void fake.reading.push('pause'), resumeReading: () => void fake.reading.push('resume') }
      : {}),
    receive: (payload) => inbound.next({ type: 'message', payload }),
    receiveFrame: (frame) => inbound.next(frame),
    end(error) {
      fake.closed = true;
      if (error === undefined) inbound.complete();
      else inbound.error(error);
    },
  };
  return fake;
}

/** Lets queued microtasks and promise chains run. */
export async function settle(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
