/**
 * Checks what a third-party modern server (the official SDK 2.x) sends our client: every inbound message
 * against the official 2026-07-28 schema (responses against the result definition of the request they answer),
 * with the schema oracle's `validateMessage`. The legacy inbound check (specs/support/interop-inbound-check.ts)
 * learns its revision from an initialize result, which the modern era does not have: here it is fixed.
 * Violations are recorded, not thrown.
 */
import { tap } from 'rxjs';
import type { RequestId } from '../../../core/jsonrpc.ts';
import type { Transport } from '../../../core/transport.ts';
import { type RequestRecord, validateMessage } from '../../support/schema-oracle.ts';

export const MODERN_REVISION = '2026-07-28';

export interface ModernInboundCheck {
  readonly transport: Transport;
  readonly checked: number;
  /** One line per violation: the message (shortened), then its errors. */
  readonly violations: readonly string[];
  /** Inbound messages, in order. */
  readonly received: readonly unknown[];
  /** Outbound messages, in order. */
  readonly sent: readonly unknown[];
}

type Json = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

export function withModernInboundCheck(inner: Transport): ModernInboundCheck {
  const ours = new Map<RequestId, RequestRecord>();
  const violations: string[] = [];
  const received: unknown[] = [];
  const sent: unknown[] = [];
  let checked = 0;
  const inspect = (message: unknown): void => {
    received.push(message);
    checked++;
    const errors = validateMessage(MODERN_REVISION, message, { requestFor: (id) => ours.get(id), role: 'server' });
    if (errors.length > 0) violations.push(`${JSON.stringify(message).slice(0, 400)}\n    ${errors.join('\n    ')}`);
    if (isObject(message) && isId(message['id']) && !('method' in message)) ours.delete(message['id']);
  };
  const transport: Transport = {
    get kind() {
      return inner.kind;
    },
    incoming$: inner.incoming$.pipe(
      tap((frame) => {
        if (frame.type !== 'message') return;
        for (const message of Array.isArray(frame.payload) ? (frame.payload as unknown[]) : [frame.payload]) inspect(message);
      }),
    ),
    negotiated: (revision) => inner.negotiated?.(revision),
    send(frame) {
      for (const message of Array.isArray(frame.payload) ? (frame.payload as unknown[]) : [frame.payload]) {
        sent.push(message);
        if (isObject(message) && typeof message['method'] === 'string' && isId(message['id'])) {
          ours.set(message['id'], { method: message['method'], params: message['params'] });
        }
      }
      return inner.send(frame);
    },
    close(reason) {
      return inner.close(reason);
    },
  };
  return {
    transport,
    get checked() {
      return checked;
    },
    violations,
    received,
    sent,
  };
}
