/**
 * A task run one at a time however often it is asked for: asked while it runs, it runs once more afterwards (so
 * what arrived meanwhile is seen), never twice at once (so what it passes on stays in order). A follow of the
 * event store drains its stream so, at each doorbell, poll and reconnect.
 */
export function coalescedRun(task: () => Promise<void>, onError: (error: unknown) => void): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    try {
      do {
        again = false;
        await task();
      } while (again);
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
  };
  return () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void run();
  };
}
