/**
 * The principal of a legacy-era Streamable HTTP session: the one `authenticate` gave the initialize POST reaches
 * the server's interceptors (incoming requests, and requests the server sends on the session) and `sessions$`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InterceptedRequest } from '../../../actors/interceptors.ts';
import { createClient } from '../../../client/create-client.ts';
import { createServer } from '../../../server/create-server.ts';
import type { ServerSessionEvent } from '../../../server/session-events.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../../../transports/http/index.ts';
import { eventually } from '../../support/harness.ts';

test('Streamable HTTP, legacy era: interceptors and sessions$ see the principal that opened the session', async () => {
  const server = createServer({ name: 'principal', version: '1' });
  server.tool({ name: 'ask' }, async (_args, context) => {
    const answer = await context.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return String(answer.content?.['name']);
  });
  const seen: InterceptedRequest[] = [];
  server.use((request, next) => {
    seen.push(request);
    return next(request);
  });
  const events: ServerSessionEvent[] = [];
  const watching = server.sessions$.subscribe((event) => events.push(event));
  const http = createStreamableHttpServer({
    server,
    authenticate: (request) => (request.header('authorization') === 'Bearer ada' ? 'ada' : undefined),
  });
  const { url } = await http.listen();
  try {
    for (const [header, principal] of [['Bearer ada', 'ada'], [undefined, undefined]] as const) {
      seen.length = 0;
      const transport = createStreamableHttpClientTransport(url, header === undefined ? {} : { headers: { authorization: header } });
      const client = await createClient({
        name: 'c',
        version: '1',
        era: 'legacy',
        elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) },
      }).connect(transport);
      assert.equal(client.session.era, 'legacy');
      await client.callTool('ask');
      assert.deepEqual(
        seen.map((request) => [request.direction, request.method, request.session.era, request.session.principal]),
        [
          ['incoming', 'tools/call', 'legacy', principal],
          ['outgoing', 'elicitation/create', 'legacy', principal],
        ],
      );
      const opened = events.filter((event) => event.type === 'opened').at(-1);
      assert.equal(opened?.principal, principal);
      assert.equal(opened?.session.principal, principal);
      await client.close();
      await eventually(() => events.filter((event) => event.type === 'closed').length === (principal === undefined ? 2 : 1), 2000, 'the session closed');
      assert.equal(events.at(-1)?.principal, principal);
    }
  } finally {
    watching.unsubscribe();
    await http.close();
    await server.close();
  }
});
