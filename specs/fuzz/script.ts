/**
 * Renders a scenario (traffic.ts) into the frames a client sends, numbering ids as it goes, and keeps the
 * ledger of what each id is owed: a valid request exactly one answer (a result where the request can only
 * succeed), a cancelled or re-used one at most as many as were sent, an invalid frame at most one error, a
 * response to nothing no answer at all. The frames are transport-neutral text (one JSON-RPC message or a line of
 * garbage); each harness puts them on its medium.
 */
import type { RequestId } from '../../core/jsonrpc.ts';
import type { Scenario, Step } from './traffic.ts';

export const MODERN = '2026-07-28';
export const META_PROTOCOL = 'io.modelcontextprotocol/protocolVersion';

export interface Frame {
  /** What goes on the wire. */
  readonly text: string;
  /** The method, when the frame is a JSON-RPC request or notification (a medium may need it in a header). */
  readonly method?: string;
  /** The tool name of a `tools/call`. */
  readonly tool?: string;
  /** The id of a valid request. */
  readonly id?: RequestId;
}

export type Action =
  | { readonly type: 'frames'; readonly frames: readonly Frame[] }
  /** Wait until the answer to this id arrived (the handshake). */
  | { readonly type: 'await'; readonly id: RequestId }
  | { readonly type: 'pause-reading'; readonly ms: number }
  | { readonly type: 'stop-reading' }
  /** The client closes its input (stdin EOF) and goes on reading. */
  | { readonly type: 'end-input' }
  | { readonly type: 'wait'; readonly ms: number };

export type Owed =
  /** A valid request: one answer per send (fewer only when cancelled, or when a reused id was refused id-less). */
  | 'answer'
  /** A frame the server cannot take as a request; if it answers with this id, once and with an error. */
  | 'error-at-most'
  /** Nothing may come back with this id. */
  | 'nothing';

export interface Entry {
  readonly id: RequestId;
  readonly owed: Owed;
  /** Valid requests sent with this id. */
  sends: number;
  cancelled: boolean;
  collided: boolean;
  /** The request can only succeed: any error but the in-flight refusal is a defect. */
  mustSucceed: boolean;
  /** Where the id was sent, for reports. */
  readonly label: string;
}

export interface Script {
  readonly actions: readonly Action[];
  readonly ledger: Map<string, Entry>;
  /** Longest a well-behaved server needs to answer everything once the last frame went out, in ms. */
  readonly settleMs: number;
  readonly framesSent: number;
}

export const keyOf = (id: RequestId): string => `${typeof id}:${String(id)}`;

export interface RenderOptions {
  /** Whether this medium lets the client take part in a batch at all (HTTP modern answers a batch as one). */
  readonly batches: boolean;
}

export function renderScenario(scenario: Scenario, options: RenderOptions = { batches: true }): Script {
  const ledger = new Map<string, Entry>();
  const actions: Action[] = [];
  const valid: RequestId[] = [];
  let lastSlow: RequestId | undefined;
  let next = 0;
  let settleMs = 3000;
  let framesSent = 0;
  const modern = scenario.era === 'modern';
  const batchesAllowed = options.batches && !modern && scenario.revision === '2025-03-26';

  const remember = (id: RequestId, owed: Owed, label: string, mustSucceed = false): Entry => {
    const key = keyOf(id);
    let entry = ledger.get(key);
    if (entry === undefined) ledger.set(key, (entry = { id, owed, sends: 0, cancelled: false, collided: false, mustSucceed, label }));
    return entry;
  };
  const withMeta = (params: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => {
    const meta = modern ? { [META_PROTOCOL]: MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, ...extra } : extra;
    return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
  };
  const request = (id: RequestId, method: string, params: Record<string, unknown> | undefined, tool?: string): Frame => ({
    text: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
    method,
    id,
    ...(tool === undefined ? {} : { tool }),
  });
  const notification = (method: string, params?: Record<string, unknown>): Frame => ({
    text: JSON.stringify({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }),
    method,
  });

  /** A valid request; `owed` is 'nothing' for a request inside a batch the server refuses whole. */
  const validRequest = (step: Extract<Step, { kind: 'ping' | 'list' | 'call' }>, owed: Owed, label: string, reuse?: RequestId): Frame => {
    const id = reuse ?? ++next;
    const entry = remember(id, owed, label, step.kind !== 'call' || step.tool !== 'throws');
    if (owed === 'answer') entry.sends += 1;
    if (reuse !== undefined) entry.collided = true;
    if (owed === 'answer' && reuse === undefined) valid.push(id);
    switch (step.kind) {
      case 'ping':
        // 2026-07-28 has no ping; its cheapest request that can only succeed is server/discover.
        return modern ? request(id, 'server/discover', withMeta({})) : request(id, 'ping', undefined);
      case 'list':
        return request(id, 'tools/list', withMeta({}));
      case 'call': {
        if (step.tool === 'slow') {
          lastSlow = id;
          settleMs += step.ms;
        }
        const progress = step.tool === 'progress' ? { progressToken: `p${String(id)}` } : {};
        const args = step.tool === 'slow' ? { ms: step.ms } : step.tool === 'progress' ? { steps: step.ms } : {};
        return request(id, 'tools/call', withMeta({ name: step.tool, arguments: args }, progress), step.tool);
      }
    }
  };

  /** One step's frames; `inBatch` renders items of a batch (no bursts, pauses or nesting there). */
  const frames = (step: Step, inBatch: boolean): Frame[] => {
    const owed: Owed = inBatch && !batchesAllowed ? 'nothing' : 'answer';
    switch (step.kind) {
      case 'ping':
      case 'list':
      case 'call':
        return [validRequest(step, owed, inBatch ? 'batch item' : step.kind === 'call' ? `tools/call ${step.tool}` : step.kind)];
      case 'collide':
        return [validRequest({ kind: 'call', tool: 'slow', ms: 100 }, 'answer', 'tools/call slow (reused id)', lastSlow)];
      case 'cancel': {
        const target = valid[valid.length - 1 - (step.back % Math.max(1, valid.length))];
        if (target === undefined) return [notification('notifications/cancelled', { requestId: 'never-sent', reason: 'fuzz' })];
        const entry = ledger.get(keyOf(target));
        if (entry !== undefined) entry.cancelled = true;
        return [notification('notifications/cancelled', { requestId: target, reason: 'fuzz' })];
      }
      case 'garbage':
        // Inside a batch it would make the whole array unreadable, which is the prelude's business.
        return inBatch ? [] : [{ text: step.text }];
      case 'not-jsonrpc':
        return [{ text: JSON.stringify(step.value) }];
      case 'wrong-version': {
        const id = `bad-${++next}`;
        remember(id, 'error-at-most', 'wrong jsonrpc version');
        return [{ text: JSON.stringify({ jsonrpc: step.version, id, method: 'ping' }) }];
      }
      case 'bad-id':
        return [{ text: JSON.stringify({ jsonrpc: '2.0', id: step.id, method: 'tools/list', params: withMeta({}) }) }];
      case 'notification':
        return [notification(step.method, modern ? withMeta({}) : undefined)];
      case 'premature': {
        const id = `premature-${++next}`;
        remember(id, 'error-at-most', `${step.method} without envelope or handshake`);
        return [{ text: JSON.stringify({ jsonrpc: '2.0', id, method: step.method, ...(step.method === 'tools/call' ? { params: { name: 'fast' } } : {}) }), method: step.method }];
      }
      case 'progress-notification':
        return [notification('notifications/progress', { progressToken: 'nobody', progress: 1 })];
      case 'orphan-response': {
        const id = `orphan-${++next}`;
        remember(id, 'nothing', 'response to nothing');
        const body = step.error ? { error: { code: -32000, message: 'to nothing' } } : { result: {} };
        return [{ text: JSON.stringify({ jsonrpc: '2.0', id, ...body }) }];
      }
      case 'batch': {
        if (inBatch) return [];
        const items = step.items.flatMap((item) => frames(item, true));
        return [{ text: `[${items.map((item) => item.text).join(',')}]` }];
      }
      case 'oversize': {
        const id = `big-${++next}`;
        remember(id, 'error-at-most', 'oversize frame');
        return [{ text: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: withMeta({ name: 'fast', arguments: { pad: 'x'.repeat(step.bytes) } }) }), method: 'tools/call', tool: 'fast' }];
      }
      case 'burst': {
        const call: Extract<Step, { kind: 'ping' | 'list' | 'call' }> = step.tool === 'ping' ? { kind: 'ping' } : { kind: 'call', tool: step.tool, ms: 20 };
        const burst = Array.from({ length: step.count }, () => validRequest(call, 'answer', `burst of ${step.count} ${step.tool}`));
        settleMs += step.count * (step.tool === 'slow' ? 2 : 1);
        return burst;
      }
      case 'pause-reading':
      case 'wait':
        return [];
    }
  };

  const push = (list: Frame[]): void => {
    if (list.length === 0) return;
    framesSent += list.length;
    actions.push({ type: 'frames', frames: list });
  };
  for (const step of scenario.prelude) push(frames(step, false));
  if (!modern) {
    remember('init', 'answer', 'initialize', true).sends = 1;
    push([
      request('init', 'initialize', { protocolVersion: scenario.revision, capabilities: {}, clientInfo: { name: 'fuzz', version: '0.0.0' } }),
    ]);
    actions.push({ type: 'await', id: 'init' });
    push([notification('notifications/initialized')]);
  }
  for (const step of scenario.steps) {
    if (step.kind === 'pause-reading') {
      actions.push({ type: 'pause-reading', ms: step.ms });
      settleMs += step.ms;
    } else if (step.kind === 'wait') actions.push({ type: 'wait', ms: step.ms });
    else push(frames(step, false));
  }
  if (scenario.endInput === true) actions.push({ type: 'end-input' });
  if (scenario.stopReadingAtEnd) actions.push({ type: 'stop-reading' });
  return { actions, ledger, settleMs, framesSent };
}
