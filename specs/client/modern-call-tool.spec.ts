/**
 * `callTool` in the modern era (2026-07-28), whose Promise its first round's sink settles (client/session-api.ts):
 * the result is checked against the tool's `outputSchema` (unless `validateOutput: false`), and a -32042 error's
 * elicitations are noted, as in the legacy era.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { map } from 'rxjs';
import { createClient } from '../../client/create-client.ts';
import { createServer } from '../../server/create-server.ts';
import { isLocalError, isWireError, urlElicitationRequired } from '../../core/errors.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import type { InboundFrame, Transport } from '../../core/transport.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';

/** The client's end, with every `structuredContent` it receives replaced: a server that breaks its own schema. */
function tampering(transport: Transport, structuredContent: JsonObject): Transport {
  const tamper = (frame: InboundFrame): InboundFrame => {
    if (frame.type !== 'message') return frame;
    const result = (frame.payload as { result?: JsonObject }).result;
    if (result?.['structuredContent'] === undefined) return frame;
    return { ...frame, payload: { ...(frame.payload as JsonObject), result: { ...result, structuredContent } } as unknown as typeof frame.payload };
  };
  return { kind: transport.kind, incoming$: transport.incoming$.pipe(map(tamper)), send: (frame) => transport.send(frame), close: (reason) => transport.close(reason) };
}

test('modern callTool - the result is checked against the outputSchema the listing gave, unless validateOutput is false', async () => {
  const server = createServer({ name: 's', version: '1', eras: 'modern' });
  server.tool({ name: 'temp', outputSchema: { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] } }, () => ({ structuredContent: { t: 21 } }));
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const session = await createClient({ name: 'c', version: '1', era: 'modern' }).connect(tampering(clientEnd, { t: 'warm' }));
  assert.equal(session.session.era, 'modern');
  const unchecked = await session.callTool('temp', {}, { validateOutput: false });
  assert.deepEqual(unchecked.structuredContent, { t: 'warm' }, 'not checked before the schema is known');
  await session.listTools();
  const error = await session.callTool('temp').then(() => undefined, (e: unknown) => e);
  assert.ok(isLocalError(error, 'ProtocolViolation'), `ProtocolViolation, got ${String(error)}`);
  assert.deepEqual((await session.callTool('temp', {}, { validateOutput: false })).structuredContent, { t: 'warm' }, 'validateOutput: false skips the check');
  await session.close();
  await server.close();
});

test('modern callTool - a -32042 error rejects as it came, and its elicitations are expected', async () => {
  const elicitations = [{ mode: 'url', message: 'Authorize', url: 'https://example.com/oauth?state=1', elicitationId: 'e-1' }] as const;
  const server = createServer({ name: 's', version: '1', eras: 'modern' });
  server.tool({ name: 'sync' }, () => {
    throw urlElicitationRequired(elicitations);
  });
  const [clientEnd, serverEnd] = createMemoryPair();
  server.accept(serverEnd);
  const session = await createClient({ name: 'c', version: '1', era: 'modern', capabilities: { elicitation: { url: {} } } }).connect(clientEnd);
  const error = await session.callTool('sync').then(() => undefined, (e: unknown) => e);
  assert.ok(isWireError(error) && error.code === -32042, `a WireError -32042, got ${String(error)}`);
  assert.deepEqual(error.data, { elicitations });
  const expected = (session as unknown as { urlElicitations: ReadonlySet<string> }).urlElicitations;
  assert.deepEqual([...expected], ['e-1'], 'the elicitation is expected (its completion will be passed on)');
  await session.close();
  await server.close();
});
