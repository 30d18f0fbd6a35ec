/** The bridge commands stop on SIGINT or SIGTERM; a listener is only in place while a command runs. */

/** Calls `stop` on the first SIGINT or SIGTERM; returns what removes the listeners. */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  const handler = (signal: NodeJS.Signals): void => {
    remove();
    stop(signal);
  };
  const remove = (): void => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return remove;
}
