/**
 * Who sent each message a server process takes, from its `Mcp-Identity` assertion (docs/nats-binding.md,
 * "Identity across NATS"). Messages come out in the order they came in, whatever their verification costs: an
 * assertion verified before is known at once, and a message behind one still being verified waits for it (a
 * session's `initialize`, `notifications/initialized` and first request must not overtake each other).
 */
import type { Msg } from '@nats-io/nats-core';
import type { AuthInfo } from '../../../core/auth.ts';
import { type HeaderReader, headerOf, NatsHeader } from '../headers.ts';
import { type IdentityVerifier, IdentityRefused } from '../identity/identity-verifier.ts';

/** The caller of a message: `auth` undefined is anonymous. */
export type CallerIdentity = { readonly ok: true; readonly auth: AuthInfo | undefined } | { readonly ok: false; readonly reason: string };

const ANONYMOUS: CallerIdentity = Object.freeze({ ok: true, auth: undefined });
/** Messages waiting behind a verification; more are refused (bounded like every queue). */
const MAX_WAITING = 10_000;

export class IdentityGate {
  private readonly waiting: Array<{ readonly identity: CallerIdentity | Promise<CallerIdentity>; readonly then: (identity: CallerIdentity) => void }> = [];
  /** One drain at a time: a continuation may pass another message while the queue is being drained. */
  private draining = false;

  constructor(private readonly verifier: IdentityVerifier | undefined, private readonly required: boolean) {}

  /** Calls `then` with the message's caller, in arrival order (`headers`: the message's, read once by the caller). */
  pass(msg: Msg, then: (identity: CallerIdentity) => void, headers: HeaderReader | undefined = msg.headers): void {
    const identity = this.identify(headers);
    if (this.waiting.length === 0 && !(identity instanceof Promise)) return then(identity);
    if (this.waiting.length >= MAX_WAITING) return then({ ok: false, reason: 'the server is verifying too many identities at once; retry the request' });
    this.waiting.push({ identity, then });
    if (!this.draining) void this.drain();
  }

  /**
   * The caller of a message known at once without a verification, when no message waits before it: anonymous
   * (the message carries no assertion and none is required). Undefined otherwise: such a message goes through
   * {@link pass}. Lets the per-request path skip the continuation `pass` takes.
   */
  anonymousNow(headers: HeaderReader | undefined): CallerIdentity | undefined {
    if (this.required || this.waiting.length > 0 || headerOf(headers, NatsHeader.identity) !== undefined) return undefined;
    return ANONYMOUS;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const head = this.waiting[0]!;
        const identity = await head.identity;
        this.waiting.shift();
        try {
          head.then(identity);
        } catch {
          // One message's failure is not the next one's.
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private identify(headers: HeaderReader | undefined): CallerIdentity | Promise<CallerIdentity> {
    const assertion = headerOf(headers, NatsHeader.identity);
    if (assertion === undefined) {
      return this.required ? { ok: false, reason: `this server requires a caller identity (an ${NatsHeader.identity} assertion from a gateway it trusts)` } : ANONYMOUS;
    }
    if (this.verifier === undefined) return { ok: false, reason: 'the message carries an identity assertion but this server trusts no gateway keys, so it cannot verify it' };
    try {
      const verified = this.verifier.verify(assertion);
      return verified instanceof Promise ? verified.then(accepted, refused) : accepted(verified);
    } catch (error) {
      return refused(error);
    }
  }
}

function accepted(auth: AuthInfo): CallerIdentity {
  return { ok: true, auth };
}

function refused(error: unknown): CallerIdentity {
  return { ok: false, reason: error instanceof IdentityRefused ? error.message : 'the identity assertion could not be verified' };
}

/** The words of a refusal for an identity (the JSON-RPC error message). */
export function identityRefusal(reason: string): string {
  return `Identity refused: ${reason}`;
}
