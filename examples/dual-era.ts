/**
 * Both protocol eras on one endpoint: a server on Streamable HTTP, a legacy-era client (the `initialize`
 * handshake and a session, revisions 2024-11-05 to 2025-11-25) and a modern-era client (2026-07-28:
 * stateless, every request carries its own `_meta` envelope), running the same handler.
 *
 * The handler asks the user a question with `ctx.elicit`. In the legacy era that is a request to the client in
 * the middle of the call. In the modern era the call answers `input_required`; the client answers with the same
 * elicitation handler and sends the call again, and the handler runs again from the start with the answer
 * already there (`ctx.round` counts the rounds). Handler code does not change between the eras.
 *
 * Run: node dual-era.js (after tsc), exits 0 when every assertion holds.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createClient, createServer, type ClientOptions } from 'rxmcp';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from 'rxmcp/http';

const server = createServer({
  name: 'booking',
  version: '1.0.0',
  // Seals the state a modern round carries between calls. Processes given the same keys can continue each
  // other's rounds (default: a random key per process).
  modern: { stateKeys: [randomBytes(32)] },
});

const rounds: number[] = [];
server.tool(
  { name: 'book', inputSchema: { type: 'object', properties: { room: { type: 'string' } }, required: ['room'] } },
  async (args, ctx) => {
    rounds.push(ctx.round);
    const answer = await ctx.elicit({
      message: `Book ${String(args['room'])} for how many people?`,
      requestedSchema: { type: 'object', properties: { people: { type: 'integer', minimum: 1 } }, required: ['people'] },
    });
    if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'not booked' }], isError: true };
    return `${String(args['room'])} booked for ${String(answer.content?.['people'])}`;
  },
);

const http = createStreamableHttpServer({ server });
const { url, close } = await http.listen(0);

const clientOptions = (era: ClientOptions['era']): ClientOptions => ({
  name: `${era ?? 'auto'}-client`,
  version: '1.0.0',
  era,
  elicitation: { form: () => ({ action: 'accept', content: { people: 4 } }) },
});

try {
  // A client of the older revisions: initialize, a session id, the elicitation request arrives mid-call.
  const legacy = await createClient(clientOptions('legacy')).connect(createStreamableHttpClientTransport(url));
  assert.equal(legacy.session.era, 'legacy');
  assert.equal(legacy.session.revision, '2025-11-25');
  rounds.length = 0;
  const legacyResult = await legacy.callTool('book', { room: 'Ada' });
  assert.deepEqual(legacyResult.content, [{ type: 'text', text: 'Ada booked for 4' }]);
  assert.deepEqual(rounds, [0], 'one run of the handler; the question was a request inside it');
  await legacy.close();

  // era 'auto' (the default) probes with server/discover and speaks 2026-07-28 when the server does.
  const modern = await createClient(clientOptions('auto')).connect(createStreamableHttpClientTransport(url));
  assert.equal(modern.session.era, 'modern');
  rounds.length = 0;
  const modernResult = await modern.callTool('book', { room: 'Turing' });
  assert.deepEqual(modernResult.content, [{ type: 'text', text: 'Turing booked for 4' }]);
  assert.deepEqual(rounds, [0, 1], 'the first round asked for input, the second ran with the answer');
  await modern.close();

  assert.equal(http.sessionCount, 0, 'the legacy session ended with its client; the modern client never had one');
} finally {
  await close();
  await http.close();
}
console.log('dual era: ok');
