/**
 * Keepalives for long requests. Every `keepaliveMs`, each request whose reply subject heard nothing for that
 * long gets a keepalive frame, sent as a NATS request: the client answers it, so the client knows the server
 * lives and the server learns when the client's inbox is gone ("no responders"), which cancels the request.
 * One timer per process, however many requests are in flight.
 */
import { headers as natsHeaders } from '@nats-io/nats-core';
import { NatsHeader, isNoRespondersError } from '../headers.ts';
import type { ServingHost } from './served-connection.ts';

const EMPTY = new Uint8Array(0);

export function startKeepalives(host: ServingHost, keepaliveMs: number): () => void {
  const frame = natsHeaders();
  frame.set(NatsHeader.frame, 'keepalive');
  const timer = host.clock.setInterval(() => {
    const due = host.now() - keepaliveMs;
    for (const [reply, open] of host.exchanges) {
      if (open.probing || open.lastSent > due) continue;
      open.probing = true;
      open.lastSent = host.now();
      host.connection.request(reply, EMPTY, { timeout: keepaliveMs, headers: frame }).then(
        () => void (open.probing = false),
        (error: unknown) => {
          open.probing = false;
          if (isNoRespondersError(error)) open.connection.exchangeGone(reply);
        },
      );
    }
  }, keepaliveMs);
  return () => timer.cancel();
}
