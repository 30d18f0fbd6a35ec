/**
 * `runStdioServer`: serve one session on stdio until the client goes away, then resolve, so a server
 * program ends naturally:
 *
 *   await runStdioServer(server); // the process exits once nothing else keeps it alive
 *
 * The library never calls `process.exit`: what happens after the promise settles is the program's choice.
 */
import type { LocalError } from '../../core/errors.ts';
import type { SessionAcceptorPort } from '../../core/transport.ts';
import { type StdioServerTransportOptions, stdioServerTransport } from './server-transport.ts';

export interface RunStdioServerOptions extends StdioServerTransportOptions {
  /** Aborting closes the session (and the transport) early; the promise then resolves as usual. */
  readonly signal?: AbortSignal;
}

/**
 * Accepts one session on stdio. Resolves once stdin closed (or the session was closed) and the session is
 * closed, with the reason the transport ended for (undefined for an orderly end such as stdin EOF).
 */
export async function runStdioServer(acceptor: SessionAcceptorPort, options: RunStdioServerOptions = {}): Promise<LocalError | undefined> {
  const transport = stdioServerTransport(options);
  let session: ReturnType<SessionAcceptorPort['accept']>;
  try {
    session = acceptor.accept(transport);
  } catch (error) {
    await transport.close();
    throw error;
  }
  const signal = options.signal;
  const onAbort = (): void => void session.close();
  if (signal?.aborted === true) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const reason = await transport.closed;
    if (session.state !== 'closed') await session.close();
    return reason;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
