/**
 * What a session tells observers: its state, its diagnostics, its flow status, and the settling of `closed`.
 * Every subject is made only when someone asks, so an idle session nobody watches holds none of them.
 */
import { BehaviorSubject, type Observable, Subject } from 'rxjs';
import type { FlowStatus } from '../core/backpressure.ts';
import type { LocalError } from '../core/errors.ts';
import type { SessionDiagnostic } from '../actors/session-context.ts';
import type { LifecycleState } from '../machines/session-lifecycle.ts';

export class SessionSignals {
  private stateSubject: BehaviorSubject<LifecycleState> | undefined;
  private diagnosticsSubject: Subject<SessionDiagnostic> | undefined;
  private flowSubject: Subject<FlowStatus> | undefined;
  private closedPromise: Promise<LocalError | undefined> | undefined;
  private resolveClosed: ((reason: LocalError | undefined) => void) | undefined;

  state$(current: LifecycleState): Observable<LifecycleState> {
    this.stateSubject ??= new BehaviorSubject<LifecycleState>(current);
    if (current === 'closed') this.stateSubject.complete();
    return this.stateSubject.asObservable();
  }

  diagnostics$(): Observable<SessionDiagnostic> {
    this.diagnosticsSubject ??= new Subject<SessionDiagnostic>();
    return this.diagnosticsSubject.asObservable();
  }

  flow$(closed: boolean): Observable<FlowStatus> {
    this.flowSubject ??= new Subject<FlowStatus>();
    if (closed) this.flowSubject.complete();
    return this.flowSubject.asObservable();
  }

  /** Settles when the session closed; `closedWith` is the reason when it already has. */
  closed(closedWith: { readonly reason: LocalError | undefined } | undefined): Promise<LocalError | undefined> {
    if (this.closedPromise === undefined) {
      this.closedPromise = closedWith !== undefined
        ? Promise.resolve(closedWith.reason)
        : new Promise((resolve) => (this.resolveClosed = resolve));
    }
    return this.closedPromise;
  }

  /** The lifecycle entered a state: told once per state (a phase of shutting down is not a new one). */
  stateChanged(state: LifecycleState): void {
    const subject = this.stateSubject;
    if (subject !== undefined && subject.value !== state) subject.next(state);
  }

  diagnose(diagnostic: SessionDiagnostic): void {
    this.diagnosticsSubject?.next(diagnostic);
  }

  flow(status: FlowStatus): void {
    this.flowSubject?.next(status);
  }

  /** The session closed: observers complete and `closed` settles with `reason`. */
  complete(reason: LocalError | undefined): void {
    this.stateSubject?.complete();
    this.diagnosticsSubject?.complete();
    this.flowSubject?.complete();
    this.resolveClosed?.(reason);
    this.resolveClosed = undefined;
  }
}
