/**
 * A legacy session's notifications sent a moment ago, by the token of their reply subject (`<inbox>.n.<token>`).
 * Only NATS writes there (a "no responders" status, when the session's process is gone), so each is kept just long
 * enough for that to come back, and then goes to the adopt subject instead of being lost. A notice's subject is
 * never used again (its tokens are only taken, never given back): a late status names one notification only.
 */
import type { Msg, MsgHdrs } from '@nats-io/nats-core';
import type { JsonRpcMessage } from '../../../core/jsonrpc.ts';
import { ReplyTokens } from './reply-token.ts';

export interface Notice {
  readonly message: JsonRpcMessage;
  readonly method: string;
  readonly body: Uint8Array;
  readonly headers: MsgHdrs;
  readonly sentAt: number;
  adoptions: number;
}

/** How long a notification's "no responders" may take to come back (a round trip to nats-server) before it is let go. */
const NOTICE_WATCH_MS = 5000;
/** Notifications watched at once; past it the oldest is let go (it only loses the re-route, not the send). */
const MAX_NOTICES = 1024;

export class SessionNotices {
  private readonly watched = new Map<number, Notice>();
  private readonly tokens: ReplyTokens;

  constructor(prefix: string) {
    this.tokens = new ReplyTokens(prefix);
  }

  /** Watches `notice`; returns its token. */
  watch(notice: Notice): number {
    if (this.watched.size >= MAX_NOTICES) this.watched.delete(this.watched.keys().next().value as number);
    const token = this.tokens.take();
    this.watched.set(token, notice);
    return token;
  }

  /** The reply subject of the notice with `token`. */
  subject(token: number): string {
    return this.tokens.subject(token);
  }

  /** The token of `msg`'s subject when it is a notice's subject; -1 otherwise. */
  tokenOf(msg: Msg): number {
    return this.tokens.of(msg);
  }

  get(token: number): Notice | undefined {
    return this.watched.get(token);
  }

  delete(token: number): void {
    this.watched.delete(token);
  }

  /** Lets go of the notices whose "no responders" would have come back by `now`: they were taken (oldest first). */
  expire(now: number): void {
    const cutoff = now - NOTICE_WATCH_MS;
    for (const [token, notice] of this.watched) {
      if (notice.sentAt > cutoff) break;
      this.watched.delete(token);
    }
  }

  clear(): void {
    this.watched.clear();
  }
}
