/**
 * How a server program reacts to being told to stop: the first SIGTERM or SIGINT starts a graceful shutdown
 * (stop accepting, let requests in flight finish up to a deadline, answer the rest, flush, close); a second
 * one ends the process at once. Every `rxmcp` command and `serveStdio({ handleSignals: true })` use this
 * one module, so they all behave alike.
 *
 * Ending "at once" never calls `process.exit`: the listeners are removed and the signal is raised again, so
 * its default action ends the process, and whoever started it sees it was killed by that signal.
 */
export type StopSignal = 'SIGTERM' | 'SIGINT';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGTERM', 'SIGINT'];

export interface StopSignalHandlers {
  /** The first signal: start the graceful shutdown. */
  readonly graceful: (signal: StopSignal) => void;
  /** A second signal while the shutdown runs (default: the process ends by that signal, see above). */
  readonly immediate?: (signal: StopSignal) => void;
}

/** Listens for SIGTERM and SIGINT until the returned function is called (call it once the shutdown is over). */
export function onStopSignals(handlers: StopSignalHandlers): () => void {
  let received: StopSignal | undefined;
  const listener = (signal: NodeJS.Signals): void => {
    const stop = signal as StopSignal;
    if (received === undefined) {
      received = stop;
      handlers.graceful(stop);
      return;
    }
    if (handlers.immediate !== undefined) handlers.immediate(stop);
    else endAtOnce(stop);
  };
  const remove = (): void => {
    for (const signal of STOP_SIGNALS) process.off(signal, listener);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  function endAtOnce(signal: StopSignal): void {
    remove();
    // With no listener left, the signal's default action applies: the process ends now.
    process.kill(process.pid, signal);
  }
  return remove;
}
