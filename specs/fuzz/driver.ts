/**
 * Plays a rendered script over one client connection of any medium, waits until the server answered what it
 * owes (or the session ended, or the time a well-behaved server needs ran out), and checks the outcome. Each
 * medium supplies a {@link Connection}: how frames go out, how reading stops and resumes, what came back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { check, outstanding } from './checker.ts';
import type { Frame, Script } from './script.ts';

export interface Connection {
  /** Puts frames on the wire, in order; resolves once the medium took them (not once they were answered). */
  send(frames: readonly Frame[]): Promise<void>;
  /** Stops reading what the server writes (the medium's own buffers fill, then the server's). */
  pauseReading(): void;
  resumeReading(): void;
  /** Closes the client's input to the server (stdin EOF) and goes on reading; media without one lack it. */
  endInput?(): void;
  /** Every JSON-RPC message the server sent on this connection so far, decoded. */
  readonly messages: readonly unknown[];
  /** How the session ended, if it did (see checker.ts `Observed.ended`). */
  ended(): { readonly reason: string | undefined } | undefined;
  /** Problems the medium saw that no message shows (a crash, a 500, a closed socket), one line each. */
  readonly problems: readonly string[];
}

/** The slack a loaded 2-core machine gets on top of a script's own settle time. */
export const SETTLE_FACTOR = 3;

export interface DriveResult {
  readonly violations: string[];
  readonly framesSent: number;
}

export async function drive(connection: Connection, script: Script, options: { readonly settleFactor?: number } = {}): Promise<DriveResult> {
  let stopped = false;
  let pauses = 0;
  let stalled = false;
  let inputEnded = false;
  const waitFor = async (done: () => boolean, ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) return false;
      await sleep(5);
    }
    return true;
  };
  const settleMs = script.settleMs * (options.settleFactor ?? SETTLE_FACTOR);
  for (const action of script.actions) {
    if (connection.ended() !== undefined) break;
    switch (action.type) {
      case 'frames':
        await connection.send(action.frames);
        break;
      case 'await': {
        const key = JSON.stringify(action.id);
        const answered = (): boolean => connection.messages.some((message) => typeof message === 'object' && message !== null && JSON.stringify((message as { id?: unknown }).id) === key);
        if (!(await waitFor(() => answered() || connection.ended() !== undefined, settleMs))) {
          return { violations: [`no answer to ${key} within ${settleMs} ms`, ...connection.problems], framesSent: script.framesSent };
        }
        break;
      }
      case 'pause-reading':
        // The reader stalls while the client goes on writing: that is when the server's queues fill.
        connection.pauseReading();
        stalled = true;
        pauses += 1;
        void sleep(action.ms).then(() => {
          pauses -= 1;
          if (!stopped && pauses === 0) connection.resumeReading();
        });
        break;
      case 'stop-reading':
        connection.pauseReading();
        stopped = true;
        stalled = true;
        break;
      case 'wait':
        await sleep(action.ms);
        break;
      case 'end-input':
        if (connection.endInput === undefined) throw new Error('this medium cannot end its input; its traffic must not ask to');
        connection.endInput();
        inputEnded = true;
        break;
    }
  }
  if (stopped) await sleep(300);
  else await waitFor(() => connection.ended() !== undefined || outstanding(script, connection.messages).length === 0, settleMs);
  // A little longer, so an answer sent twice has the time to arrive twice.
  await sleep(50);
  const violations = [
    ...connection.problems,
    ...check(script, { messages: connection.messages, ended: connection.ended(), stoppedReading: stopped, stalledReading: stalled, inputEnded }),
  ];
  return { violations, framesSent: script.framesSent };
}
