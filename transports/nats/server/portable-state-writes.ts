/**
 * A legacy session's portable state (resource subscriptions, log level) kept in its record while this process
 * owns it, so that a process taking the session over restores it: writes of one session in order, and whatever
 * cannot be kept (the record refused it, a takeover restored less, another process owns the session now) told.
 */
import type { PortableSessionState } from '../../../core/transport.ts';
import type { OwnedSessions } from './session-ownership.ts';
import type { SessionRecords } from './session-records.ts';

export class PortableStateWrites {
  /** Per session, the state write under way: writes of one session go in order. */
  private readonly writes = new Map<string, Promise<void>>();
  /** Sessions just taken over, with the state their record held, until the server says what it restored. */
  private readonly restoring = new Map<string, PortableSessionState>();

  constructor(
    private readonly processId: string,
    private readonly records: SessionRecords | undefined,
    private readonly sessions: OwnedSessions,
  ) {}

  /** A session taken over here is about to be served with the state its record held. */
  restoringFrom(sessionId: string, state: PortableSessionState): void {
    this.restoring.set(sessionId, state);
  }

  /** The session taken over was not served after all. */
  notRestoring(sessionId: string): void {
    this.restoring.delete(sessionId);
  }

  /**
   * The session taken over is served: a server that did not say what it restored (it reports no portable state)
   * restored nothing, and that is told when the record held something.
   */
  served(sessionId: string): void {
    const unanswered = this.restoring.get(sessionId);
    this.restoring.delete(sessionId);
    if (unanswered !== undefined && !isEmpty(unanswered)) {
      this.sessions.warn({ sessionId, kind: 'not-restored', message: `taken over, but the server restored none of its state (${describe(unanswered)})` });
    }
  }

  /** The state write of `sessionId` under way, if any. */
  pending(sessionId: string): Promise<void> | undefined {
    return this.writes.get(sessionId);
  }

  /**
   * The server changed a session's portable state (or says what it restored after a takeover): it goes into the
   * session's record, in order, while this process owns it; whatever cannot be kept is told.
   */
  changed(sessionId: string, state: PortableSessionState): Promise<void> {
    const expected = this.restoring.get(sessionId);
    if (expected !== undefined) {
      this.restoring.delete(sessionId);
      const lost = lostState(expected, state);
      if (lost !== undefined) this.sessions.warn({ sessionId, kind: 'not-restored', message: `taken over, but not all of its state was restored: ${lost}` });
    }
    const records = this.records;
    if (records === undefined) return Promise.resolve();
    const previous = this.writes.get(sessionId) ?? Promise.resolve();
    const write = previous.then(async () => {
      let outcome: 'saved' | 'not-owner' | 'gone' | 'conflict' | 'failed';
      try {
        outcome = await records.saveState(sessionId, this.processId, state);
      } catch {
        outcome = 'failed';
      }
      if (outcome === 'not-owner') {
        // Another process owns the session now (it took it over while this one was cut off): this one steps down.
        if (this.sessions.isServed(sessionId)) {
          this.sessions.warn({ sessionId, kind: 'not-owner', message: 'its state changed on a process that no longer owns it; the change was not recorded, and this process let the session go to its owner' });
          this.sessions.letGo(sessionId);
        }
      } else if (outcome === 'gone') {
        // The record expired (a session ending here deletes its record, and then is no longer served here).
        if (this.sessions.isServed(sessionId)) this.sessions.warn({ sessionId, kind: 'not-recorded', message: `its record is gone (expired?), so its state was not recorded; a takeover would not find the session` });
      } else if (outcome !== 'saved') {
        this.sessions.warn({ sessionId, kind: 'not-recorded', message: `its state could not be recorded (${outcome === 'conflict' ? 'concurrent writes' : 'the session store failed'}); a takeover would not restore ${describe(state)}` });
      }
    });
    this.writes.set(sessionId, write);
    void write.finally(() => {
      if (this.writes.get(sessionId) === write) this.writes.delete(sessionId);
    });
    return write;
  }
}

function isEmpty(state: PortableSessionState): boolean {
  return (state.subscriptions?.length ?? 0) === 0 && state.logLevel === undefined;
}

function describe(state: PortableSessionState): string {
  return `${state.subscriptions?.length ?? 0} resource subscription(s), log level ${state.logLevel ?? 'unset'}`;
}

/** What `restored` lacks of `expected`, in words, or `undefined` when it lacks nothing. */
function lostState(expected: PortableSessionState, restored: PortableSessionState): string | undefined {
  const kept = new Set(restored.subscriptions ?? []);
  const missing = (expected.subscriptions ?? []).filter((uri) => !kept.has(uri)).length;
  const lost = [
    ...(missing === 0 ? [] : [`${missing} resource subscription(s)`]),
    ...(expected.logLevel !== undefined && restored.logLevel !== expected.logLevel ? [`log level ${expected.logLevel}`] : []),
  ];
  return lost.length === 0 ? undefined : lost.join(', ');
}
