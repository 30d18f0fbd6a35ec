/**
 * A legacy session taken over from a bridge process that died arrives already initialized: its client
 * negotiated with a server process that is gone. The new server process has seen nothing, so before the
 * client's traffic reaches it the bridge replays the handshake on the client's behalf: `initialize` with the
 * revision, capabilities and client info the session agreed on (its answer is kept from the client, which has
 * had one), then `notifications/initialized`.
 *
 * `replayHandshake(child, agreed)` is the child's transport with that done first: `send` waits (a promise, so
 * the pipe holds the client's frames back) until the handshake is over, and rejects when it failed (the server
 * refused, answered another revision, said nothing within `timeoutMs`, or exited); the child is then closed.
 * The server's own messages meanwhile (a log line, a `roots/list` once it is initialized) pass through.
 */
import { Observable } from 'rxjs';
import { LocalError } from '../../core/errors.ts';
import { type JsonObject, type JsonRpcResponse, classify, notification, request } from '../../core/jsonrpc.ts';
import type { Implementation } from '../../core/protocol/capabilities.ts';
import type { LegacyRevision } from '../../core/protocol/versions.ts';
import type { InboundFrame, OutboundFrame, Transport } from '../../core/transport.ts';
import { requestIds } from '../join/payload.ts';

/** What the session agreed on at its real handshake (`SessionAcceptorPort`'s `preinitialized`). */
export interface AgreedHandshake {
  readonly revision: LegacyRevision;
  readonly peerCapabilities: { readonly [key: string]: unknown };
  readonly peerInfo?: Implementation;
}

export interface ReplayOptions {
  /** How long the server may take to answer the replayed `initialize` (default 30 s). */
  readonly timeoutMs?: number;
  /** The client info to send when the session's record has none. */
  readonly clientInfo?: Implementation;
}

/** The id of the replayed `initialize`; its answer (or failure) never reaches the client. */
export const REPLAYED_INITIALIZE_ID = 'rxmcp-bridge:replayed-initialize';

const DEFAULT_TIMEOUT_MS = 30_000;
const FALLBACK_CLIENT: Implementation = { name: 'rxmcp-bridge', version: '0.1.0' };

export function replayHandshake(child: Transport, agreed: AgreedHandshake, options: ReplayOptions = {}): Transport {
  return new ReplayedHandshake(child, agreed, options);
}

class ReplayedHandshake implements Transport {
  readonly kind: string;
  readonly incoming$: Observable<InboundFrame>;
  private state: 'waiting' | 'ready' | 'failed' = 'waiting';
  private failure: LocalError | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly ready: Promise<void>;
  private settle!: { readonly resolve: () => void; readonly reject: (error: LocalError) => void };

  constructor(private readonly child: Transport, private readonly agreed: AgreedHandshake, private readonly options: ReplayOptions) {
    this.kind = child.kind;
    this.ready = new Promise<void>((resolve, reject) => (this.settle = { resolve, reject }));
    // Nobody may be sending when it fails; the failure still ends the session through incoming$.
    this.ready.catch(() => undefined);
    this.incoming$ = new Observable<InboundFrame>((subscriber) => {
      const subscription = child.incoming$.subscribe({
        next: (frame) => {
          if (!this.swallowed(frame)) subscriber.next(frame);
        },
        error: (error: unknown) => {
          this.fail(error instanceof LocalError ? error : new LocalError('TransportFailed', String(error), { cause: error }), false);
          subscriber.error(error);
        },
        complete: () => {
          this.fail(new LocalError('ConnectionClosed', 'The server process ended before it answered the replayed initialize'), false);
          subscriber.complete();
        },
      });
      this.begin();
      return () => subscription.unsubscribe();
    });
  }


  send(frame: OutboundFrame): void | Promise<void> {
    if (this.state === 'ready') return this.child.send(frame);
    if (this.state === 'failed') return Promise.reject(this.failure);
    return this.ready.then(() => this.child.send(frame));
  }

  close(reason?: LocalError): Promise<void> {
    this.fail(new LocalError('ConnectionClosed', 'The session closed while its handshake was replayed'), false);
    return this.child.close(reason);
  }

  private begin(): void {
    if (this.state !== 'waiting') return;
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.timer = setTimeout(() => this.fail(new LocalError('PeerUnresponsive', `The new server process did not answer the replayed initialize within ${timeoutMs} ms`), true), timeoutMs);
    const params: JsonObject = {
      protocolVersion: this.agreed.revision,
      capabilities: this.agreed.peerCapabilities,
      clientInfo: this.agreed.peerInfo ?? this.options.clientInfo ?? FALLBACK_CLIENT,
    };
    void this.write(request(REPLAYED_INITIALIZE_ID, 'initialize', params));
  }

  /** The replayed `initialize`'s answer, or its failure, stays here. */
  private swallowed(frame: InboundFrame): boolean {
    if (frame.type === 'undeliverable' && requestIds(frame.payload).includes(REPLAYED_INITIALIZE_ID)) {
      this.fail(new LocalError('ConnectionClosed', `The replayed initialize did not reach the new server process: ${frame.error.message}`), true);
      return true;
    }
    if (frame.type !== 'message') return false;
    const classified = classify(frame.payload);
    if (classified.kind !== 'response' || classified.message.id !== REPLAYED_INITIALIZE_ID) return false;
    this.answered(classified.message);
    return true;
  }

  private answered(answer: JsonRpcResponse): void {
    if (this.state !== 'waiting') return;
    if ('error' in answer) {
      return this.fail(new LocalError('ProtocolViolation', `The new server process refused the replayed initialize: ${answer.error.message}`), true);
    }
    const revision = answer.result['protocolVersion'];
    if (revision !== this.agreed.revision) {
      return this.fail(new LocalError('UnsupportedVersion', `The new server process answered protocol version ${JSON.stringify(revision)}, but the session runs ${this.agreed.revision}`), true);
    }
    clearTimeout(this.timer);
    const sent = this.write(notification('notifications/initialized'));
    void sent.then(() => {
      if (this.state !== 'waiting') return;
      this.state = 'ready';
      this.settle.resolve();
    });
  }

  /** Sends a frame of the handshake; a failure to send fails the handshake. */
  private write(payload: ReturnType<typeof request> | ReturnType<typeof notification>): Promise<void> {
    try {
      return Promise.resolve(this.child.send({ payload })).catch((error: unknown) => this.fail(asLocal(error), true));
    } catch (error) {
      this.fail(asLocal(error), true);
      return Promise.resolve();
    }
  }

  private fail(error: LocalError, closeChild: boolean): void {
    if (this.state !== 'waiting') return;
    this.state = 'failed';
    this.failure = error;
    clearTimeout(this.timer);
    this.settle.reject(error);
    if (closeChild) void this.child.close(error);
  }
}

function asLocal(error: unknown): LocalError {
  return error instanceof LocalError ? error : new LocalError('TransportFailed', String(error), { cause: error });
}
