/**
 * What this process served, for the services protocol's `$SRV.STATS` answer: requests answered, how many of them
 * with an error, and the time from receiving each to answering it. Four fields, bumped in place per answer (no
 * allocation per request); the last error's message is kept as the string the answer already carried.
 */
export class RequestStats {
  requests = 0;
  errors = 0;
  /** Milliseconds from a request's arrival to its answer, summed (the protocol reports nanoseconds). */
  processingMs = 0;
  lastError: string | undefined;

  /** A request received at `receivedAt` was answered at `now` (`error`: the error answer's message, if it was one). */
  answered(receivedAt: number, now: number, error: string | undefined): void {
    this.requests++;
    this.processingMs += Math.max(0, now - receivedAt);
    if (error !== undefined) {
      this.errors++;
      this.lastError = error;
    }
  }
}

/** The error message of a JSON-RPC answer, if it is an error answer (read defensively: it is our own frame, but typed loosely). */
export function errorMessageOf(message: object): string | undefined {
  if (!('error' in message)) return undefined;
  const error = (message as { readonly error: unknown }).error;
  const text = typeof error === 'object' && error !== null ? (error as { readonly message?: unknown }).message : undefined;
  return typeof text === 'string' ? text : 'error';
}
