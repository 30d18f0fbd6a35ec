/**
 * What a NATS server tells its operator when a legacy session's portable state (resource subscriptions, log
 * level) or its ownership cannot be kept as it should: the record could not take it, a takeover restored less,
 * or this process no longer knows (or no longer is) the session's owner.
 */

export interface SessionStateWarning {
  readonly sessionId: string;
  /**
   * `not-recorded`: the record did not take the new state (KV failed or kept conflicting), a takeover would miss
   * it; `not-restored`: the process taking the session over restored less than the record held; `not-owner`:
   * the state changed here after another process took the session over (the change stays here, the client's
   * notifications come from the new owner; this process lets the session go); `not-confirmed`: the record could
   * not be read for about half a minute when this process's ownership was to be confirmed (after a NATS
   * reconnection, a claim, a takeover notice), so it serves the session on without knowing whether another
   * process took it over meanwhile.
   */
  readonly kind: 'not-recorded' | 'not-restored' | 'not-owner' | 'not-confirmed';
  readonly message: string;
}

export type StateWarn = (warning: SessionStateWarning) => void;

/** The default: `process.emitWarning` (stderr), so an operator sees it. */
function emitStateWarning(warning: SessionStateWarning): void {
  process.emitWarning(`session ${warning.sessionId}: ${warning.message}`, { type: 'RxmcpSessionStateWarning', code: warning.kind });
}

/**
 * The operator's listener (or the default), made safe to call: a listener that throws must not break the session
 * (its state writes and answers wait on the warning).
 */
export function stateWarner(listener: StateWarn | undefined): StateWarn {
  const warn = listener ?? emitStateWarning;
  return (warning) => {
    try {
      warn(warning);
    } catch {
      // The operator's listener failed; nothing else to tell.
    }
  };
}
