/**
 * A request's `params._meta` (`ctx.meta`) and a result's `_meta` are the receiver's own, on the fiftieth message as on
 * the first: code may write into them (top level and nested) and never sees what it wrote into another message's.
 * In both eras, with a `_meta` whose text repeats on every message (the modern envelope and server info; a fixed
 * `_meta` of the caller's in the legacy era), over Streamable HTTP on real sockets (its server decodes with the
 * JSON codec) and over a memory pair with the JSON codec (both sides decode with it, as on stdio and NATS): the
 * codec reads such a text once and gives every later message a copy (core/codecs/json-known-meta.ts); it used to
 * give a shared frozen object from the second sighting on, so writes worked on the first calls and threw later.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createClient } from '../../client/create-client.ts';
import type { ClientSession } from '../../client/session-api.ts';
import { knownMetaReads } from '../../core/codecs/json-known-meta.ts';
import { jsonCodec } from '../../core/codecs/json.ts';
import type { JsonObject } from '../../core/jsonrpc.ts';
import { type McpServer, createServer } from '../../server/create-server.ts';
import { createStreamableHttpClientTransport } from '../../transports/http/client/index.ts';
import { createStreamableHttpServer } from '../../transports/http/index.ts';
import { createMemoryPair } from '../../transports/memory/index.ts';

const CALLS = 50;
/** The same `_meta` on every legacy call (its text repeats, as the modern envelope's does). */
const FIXED_META = { 'com.example/trace': { tenant: 'acme', flags: ['a', 'b'] } };

type Writable = Record<string, unknown>;

/** Writes `stamp` into `meta` and into every object member of it; returns what was already there (another's writes). */
function stampInto(meta: Writable, stamp: number): string[] {
  const seen: string[] = [];
  if ('stamp' in meta) seen.push(`stamp ${String(meta['stamp'])}`);
  meta['stamp'] = stamp;
  for (const [key, value] of Object.entries(meta)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const nested = value as Writable;
    if ('stamp' in nested) seen.push(`${key}.stamp ${String(nested['stamp'])}`);
    nested['stamp'] = stamp;
  }
  return seen;
}

interface Medium {
  connect(server: McpServer, era: 'legacy' | 'modern'): Promise<{ session: ClientSession; close(): Promise<void> }>;
}

const MEDIA: Record<string, Medium> = {
  'Streamable HTTP': {
    async connect(server, era) {
      const http = createStreamableHttpServer({ server });
      const listening = await http.listen(0);
      const session = await createClient({ name: 'meta-writer', version: '1.0.0', era }).connect(createStreamableHttpClientTransport(listening.url));
      return {
        session,
        async close() {
          await session.close();
          await listening.close();
          await http.close();
        },
      };
    },
  },
  'a memory pair with the JSON codec': {
    async connect(server, era) {
      const [clientEnd, serverEnd] = createMemoryPair({ codec: jsonCodec });
      server.accept(serverEnd);
      const session = await createClient({ name: 'meta-writer', version: '1.0.0', era }).connect(clientEnd);
      return { session, close: () => session.close() };
    },
  },
};

for (const [mediumName, medium] of Object.entries(MEDIA)) for (const era of ['legacy', 'modern'] as const) {
  describe(`_meta written into across ${CALLS} calls, ${era} era, over ${mediumName}`, () => {
    test('the handler never throws and never sees another call\'s writes; neither does the caller in results', async () => {
      const server = createServer({ name: 'meta-writes', version: '1.0.0' });
      const problems: string[] = [];
      let calls = 0;
      server.tool({ name: 'stamp' }, (_args, ctx) => {
        const stamp = ++calls;
        try {
          const meta = ctx.meta as Writable | undefined;
          if (meta === undefined) problems.push(`call ${stamp}: no _meta`);
          else for (const seen of stampInto(meta, stamp)) problems.push(`call ${stamp} saw ${seen}`);
        } catch (error) {
          problems.push(`call ${stamp} threw: ${(error as Error).message}`);
        }
        // A fixed _meta of the result's own, so that results repeat their _meta text in the legacy era too.
        return { content: [{ type: 'text', text: `stamped ${stamp}` }], _meta: FIXED_META };
      });
      const { session, close } = await medium.connect(server, era);
      try {
        const readsBefore = knownMetaReads();
        for (let index = 1; index <= CALLS; index++) {
          const result = await session.callTool('stamp', {}, era === 'legacy' ? { meta: FIXED_META } : {});
          try {
            for (const seen of stampInto(result._meta as Writable, -index)) problems.push(`result ${index} saw ${seen}`);
          } catch (error) {
            problems.push(`result ${index} threw: ${(error as Error).message}`);
          }
        }
        assert.deepEqual(problems, []);
        assert.equal(calls, CALLS);
        assert.deepEqual((FIXED_META as JsonObject)['com.example/trace'], { tenant: 'acme', flags: ['a', 'b'] }, 'the caller\'s own object untouched');
        // The repeated texts were read from memory (requests on the server; results too where the client decodes
        // with the codec and the result ends with its _meta): the case that used to hand out a shared frozen object.
        const remembered = knownMetaReads() - readsBefore;
        assert.ok(remembered >= CALLS - 4, `${remembered} messages read with a remembered _meta`);
      } finally {
        await close();
        await server.close();
      }
    });
  });
}
