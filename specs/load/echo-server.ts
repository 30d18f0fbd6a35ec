/**
 * The rxmcp server the load specs load, both eras: an `echo` tool (`{ text, delayMs? }` -> the text, after
 * delayMs), a resource template `echo://{text}` (its text), and a prompt `repeat` (`{ text }`, one message
 * holding it). In process (over HTTP) or as a child (specs/load/fixtures/rxmcp-echo-server.ts).
 */
import { createServer } from '../../server/create-server.ts';

export function echoServer(): ReturnType<typeof createServer> {
  const server = createServer({ name: 'load-echo', version: '1.0.0' });
  server.tool(
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' }, delayMs: { type: 'integer', minimum: 0 } }, required: ['text'] },
    },
    async (args) => {
      const delay = typeof args['delayMs'] === 'number' ? args['delayMs'] : 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      return String(args['text']);
    },
  );
  server.resourceTemplate({ uriTemplate: 'echo://{text}', name: 'echo' }, (_uri, variables) => String(variables['text'] ?? ''));
  server.prompt({ name: 'repeat', arguments: [{ name: 'text', required: true }] }, (args) => `Repeat after me: ${args['text'] ?? ''}`);
  return server;
}
