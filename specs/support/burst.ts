/**
 * The burst the reliability specs fire through a client: many `slow` tool calls at once, far past the server's
 * in-flight cap. Each call must settle exactly once (its result, or the refusal naming the bound and its value),
 * the client must hear no answer twice, and the session must serve again once the load fell.
 */
import assert from 'node:assert/strict';
import { WireError } from '../../core/errors.ts';
import type { Transport } from '../../core/transport.ts';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';

export interface Tally {
  results: number;
  refusals: number;
}

export interface BurstOptions {
  readonly calls: number;
  /** The server's maxIncomingInFlight. */
  readonly cap: number;
  /** Arguments of the `slow` tool. */
  readonly args?: Record<string, unknown>;
}

/** Fires `calls` calls at once; each must settle exactly once, as a result or as the named in-flight refusal. */
export async function burstCalls(client: ClientSession, { calls, cap, args = {} }: BurstOptions): Promise<Tally> {
  const settled = new Array<number>(calls).fill(0);
  const dropped: string[] = [];
  const diagnostics = client.session.diagnostics$.subscribe((diagnostic) => {
    if (diagnostic.type === 'dropped-response') dropped.push(diagnostic.detail);
  });
  const tally: Tally = { results: 0, refusals: 0 };
  await Promise.all(
    settled.map(async (_unused, index) => {
      try {
        const result = await client.callTool('slow', args, { timeoutMs: 60_000 });
        assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
        tally.results += 1;
      } catch (error) {
        assert.ok(error instanceof WireError, `a wire error, got ${String(error)}`);
        assert.match(error.message, new RegExp(`at most ${cap} at once \\(maxIncomingInFlight\\)`));
        assert.deepEqual(error.data, { bound: 'maxIncomingInFlight', value: cap });
        tally.refusals += 1;
      } finally {
        settled[index] = (settled[index] ?? 0) + 1;
      }
    }),
  );
  diagnostics.unsubscribe();
  assert.ok(settled.every((count) => count === 1), 'every call settled exactly once');
  assert.deepEqual(dropped, [], 'no answer came twice or for nothing');
  assert.equal(tally.results + tally.refusals, calls);
  assert.ok(tally.results >= cap, `at least the cap's worth of calls ran: ${tally.results}`);
  // The load fell: the same session serves again.
  const again = await client.callTool('slow', {}, { timeoutMs: 10_000 });
  assert.deepEqual(again.content, [{ type: 'text', text: 'done' }]);
  return tally;
}

/** Connects a client of `era` over `transport`, runs `run`, and closes it whatever happens. */
export async function withClient(transport: Transport, era: 'legacy' | 'modern', run: (client: ClientSession) => Promise<void>): Promise<void> {
  const client = await createClient({ name: 'burst-client', version: '1.0.0', era }).connect(transport);
  try {
    await run(client);
  } finally {
    await client.close();
  }
}
