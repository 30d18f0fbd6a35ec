/**
 * The schema oracle checks what WE send; this checks what we RECEIVE from a third-party peer (an official SDK
 * server, server-everything), with the same `validateMessage`: every inbound message against the official
 * schema of the negotiated revision, responses against the result definition of the request they answer.
 *
 *   const inbound = withInboundCheck(rawTransport);              // innermost: sees our requests as sent
 *   const { transport, oracle } = withSchemaOracle(inbound.transport, { role: 'client' });
 *   ... inbound.violations lists what the peer got wrong ...
 *
 * Violations are recorded, not thrown: a peer's defect is reported by the test (or listed as a known one).
 */
import { tap } from 'rxjs';
import type { RequestId } from '../../core/jsonrpc.ts';
import type { Transport } from '../../core/transport.ts';
import { DEFAULT_REVISION, type RequestRecord, type Role, validateMessage } from './schema-oracle.ts';

export interface InboundViolation {
  readonly revision: string;
  readonly message: unknown;
  readonly errors: readonly string[];
}

export interface InboundCheck {
  readonly transport: Transport;
  /** Inbound messages validated so far. */
  readonly checked: number;
  readonly violations: readonly InboundViolation[];
  /** Inbound messages, in order (for assertions on what the peer sent). */
  readonly received: readonly unknown[];
  /** Outbound messages, in order. */
  readonly sent: readonly unknown[];
}

export interface InboundCheckOptions {
  /** Check every message against this revision instead of the one an initialize result names (the modern era has none). */
  readonly revision?: string;
}

type Json = Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

/** Wraps `inner`; `peer` is the role of the other side (whose messages are checked). */
export function withInboundCheck(inner: Transport, peer: Role = 'server', options: InboundCheckOptions = {}): InboundCheck {
  const ours = new Map<RequestId, RequestRecord>();
  const violations: InboundViolation[] = [];
  const received: unknown[] = [];
  const sent: unknown[] = [];
  let revision: string | undefined = options.revision;
  let checked = 0;

  const inspect = (message: unknown): void => {
    received.push(message);
    checked++;
    if (isObject(message) && isId(message['id']) && !('method' in message)) {
      const request = ours.get(message['id']);
      const result = message['result'];
      if (options.revision === undefined && request?.method === 'initialize' && isObject(result) && typeof result['protocolVersion'] === 'string') {
        revision = result['protocolVersion'];
      }
    }
    const at = revision ?? DEFAULT_REVISION;
    const errors = validateMessage(at, message, { requestFor: (id) => ours.get(id), role: peer });
    if (errors.length > 0) violations.push({ revision: at, message, errors });
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

/** One line per violation, for assertion messages. */
export function describeInbound(violations: readonly InboundViolation[]): string {
  return violations.map((violation) => `${JSON.stringify(violation.message).slice(0, 300)}\n    ${violation.errors.join('\n    ')}`).join('\n');
}
