/**
 * The life of a task as an XState v5 machine, one for both flavours: the 2025-11-25 tasks
 * (`tasks/get|result|list|cancel`) and the 2026-07-28 tasks extension (`tasks/get|update|cancel`) have the
 * same statuses and the same rules; they differ in how they are reached and answered, not in how a task moves.
 *
 *   working <--> input_required            (NEED_INPUT / WORK; each also accepted in its own state: a new
 *      |              |                     statusMessage with the same status)
 *      +------+-------+
 *             v
 *   completed | failed | cancelled         (COMPLETE / FAIL / CANCEL), final: nothing moves a task out of one
 *
 * The states are named as the statuses are on the wire, so a stored `Task.status` is the state: stores keep
 * the status string and ask {@link taskStatusAfter} what an event makes of it. The machine has no context,
 * so every answer is computed once and memoised (machines/executor.ts); a task costs no snapshot at all.
 */
import { setup, type SnapshotFrom } from 'xstate';
import type { TaskStatus } from '../core/protocol/tasks.ts';
import { machineRunner } from './executor.ts';

export type TaskEvent =
  /** The work goes on (again): input it waited for arrived, or a new status message while working. */
  | { readonly type: 'WORK' }
  /** The work waits for the requestor's input. */
  | { readonly type: 'NEED_INPUT' }
  /** The work ended with its result. */
  | { readonly type: 'COMPLETE' }
  /** The work ended with an error (or a tool result flagged as one, in the 2025-11-25 flavour). */
  | { readonly type: 'FAIL' }
  /** The requestor cancelled the task, or nobody will ever learn of it. */
  | { readonly type: 'CANCEL' };

const endings = { COMPLETE: 'completed', FAIL: 'failed', CANCEL: 'cancelled' } as const;

export const taskLifecycleMachine = setup({ types: { events: {} as TaskEvent } }).createMachine({
  id: 'mcp-task',
  initial: 'working',
  states: {
    working: { on: { WORK: 'working', NEED_INPUT: 'input_required', ...endings } },
    input_required: { on: { WORK: 'working', NEED_INPUT: 'input_required', ...endings } },
    completed: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

type TaskSnapshot = SnapshotFrom<typeof taskLifecycleMachine>;

/** The machine made ready for the executor once (memoised steps): a stored status is turned back into its snapshot. */
const runner = machineRunner<TaskSnapshot, never, never, TaskEvent>(taskLifecycleMachine);

/** The status an event moves a task to, or `undefined` when the task's status does not allow it. */
export function taskStatusAfter(status: TaskStatus, event: TaskEvent): TaskStatus | undefined {
  const step = runner.step(runner.at(status), event);
  return step.accepted ? (step.snapshot.value as TaskStatus) : undefined;
}

/** Whether a status is final: no event moves a task out of it. */
export function isFinalTaskStatus(status: TaskStatus): boolean {
  return runner.at(status).status === 'done';
}

/** The event that reports a running task's new status (`tasks/*` stores take statuses, the machine events). */
export function taskEventFor(status: TaskStatus): TaskEvent {
  switch (status) {
    case 'working':
      return { type: 'WORK' };
    case 'input_required':
      return { type: 'NEED_INPUT' };
    case 'completed':
      return { type: 'COMPLETE' };
    case 'failed':
      return { type: 'FAIL' };
    case 'cancelled':
      return { type: 'CANCEL' };
  }
}
