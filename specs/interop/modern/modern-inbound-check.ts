/**
 * Checks what a third-party modern server (the official SDK 2.x) sends our client: every inbound message
 * against the official 2026-07-28 schema (responses against the result definition of the request they answer),
 * with the schema oracle's `validateMessage`. It is the inbound check of specs/support/interop-inbound-check.ts
 * with its revision fixed: that one learns it from an initialize result, which the modern era does not have.
 * Violations are recorded, not thrown.
 */
import type { Transport } from '../../../core/transport.ts';
import { withInboundCheck } from '../../support/interop-inbound-check.ts';

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

/** The inbound check of specs/support/interop-inbound-check.ts, at 2026-07-28 throughout. */
export function withModernInboundCheck(inner: Transport): ModernInboundCheck {
  const check = withInboundCheck(inner, 'server', { revision: MODERN_REVISION });
  return {
    transport: check.transport,
    get checked() {
      return check.checked;
    },
    get violations() {
      return check.violations.map((violation) => `${JSON.stringify(violation.message).slice(0, 400)}\n    ${violation.errors.join('\n    ')}`);
    },
    received: check.received,
    sent: check.sent,
  };
}
