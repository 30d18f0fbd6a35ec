/**
 * `rxmcp bridge from-nats --era legacy|modern`: pins the protocol era a local client may use through the bridge,
 * when the NATS server serves both. Requests of the other era are answered here with a JSON-RPC error, the way
 * a server of the pinned era would refuse them, and never reach NATS:
 *
 * - `legacy`: before `initialize`, only `initialize` and `ping` pass, so a client that probes with
 *   `server/discover` falls back to the initialize handshake (a legacy session, with takeover on NATS).
 * - `modern`: `initialize` is refused, so the client speaks 2026-07-28 (stateless requests on NATS lanes).
 *
 * Without `--era` the bridge lets the client's own choice through.
 */
import type { Observable } from 'rxjs';
import { filter } from 'rxjs';
import { ErrorCode } from '../../core/error-codes.ts';
import { type RequestId, classify, errorResponse } from '../../core/jsonrpc.ts';
import type { InboundFrame, Transport } from '../../core/transport.ts';

export type BridgeEra = 'legacy' | 'modern';

export function eraGate(transport: Transport, era: BridgeEra): Transport {
  let initialized = false;
  const refuse = (id: RequestId, message: string): void => {
    try {
      void Promise.resolve(transport.send({ payload: errorResponse(id, { code: ErrorCode.InvalidRequest, message }) })).catch(() => undefined);
    } catch {
      // The client is gone; nothing to answer.
    }
  };
  const admits = (frame: InboundFrame): boolean => {
    if (frame.type !== 'message') return true;
    const classified = classify(frame.payload);
    if (classified.kind !== 'request') return true;
    const { id, method } = classified.message;
    if (era === 'modern') {
      if (method !== 'initialize') return true;
      refuse(id, 'Invalid request: this bridge carries the 2026-07-28 protocol era only (rxmcp bridge from-nats --era modern), which has no initialize handshake');
      return false;
    }
    if (method === 'initialize') initialized = true;
    if (initialized || method === 'ping') return true;
    refuse(id, 'Invalid request: this bridge carries the legacy protocol era (rxmcp bridge from-nats --era legacy); send initialize first and then use the session');
    return false;
  };
  const incoming$: Observable<InboundFrame> = transport.incoming$.pipe(filter(admits));
  return {
    kind: transport.kind,
    incoming$,
    send: (frame) => transport.send(frame),
    close: (reason) => transport.close(reason),
    // Flow control passes through: the gate holds nothing of its own.
    pauseReading: () => transport.pauseReading?.(),
    resumeReading: () => transport.resumeReading?.(),
    negotiated: (revision) => transport.negotiated?.(revision),
  };
}
