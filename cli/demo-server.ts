/**
 * The demo server behind `rxmcp serve`: a tool that streams progress, one that elicits, one with structured
 * output, one that says who is calling (for trying `--auth-issuer`), a resource that changes and notifies its
 * subscribers, a template, and a prompt. Every tool works for a client that declares no capabilities at all
 * (greet then takes the name as an argument).
 */
import { interval, map, take } from 'rxjs';
import { createServer, type McpServer } from '../server/create-server.ts';

export interface DemoServer {
  readonly server: McpServer;
  /** Stops the clock that changes the demo resource. */
  stop(): void;
}

export function createDemoServer(): DemoServer {
  const server = createServer({
    name: 'rxmcp-demo',
    version: '0.1.0',
    title: 'rxmcp demo server',
    instructions: 'Try the count tool for progress, greet for elicitation, and subscribe to demo://clock.',
  });
  server.tool(
    {
      name: 'count',
      title: 'Count with progress',
      description: 'Counts to n, reporting progress every 200 ms.',
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 20, default: 5 } } },
    },
    (args) => {
      const n = typeof args['n'] === 'number' ? args['n'] : 5;
      return interval(200).pipe(
        take(n + 1),
        map((step) => (step < n ? { progress: step + 1, total: n, message: `counted ${step + 1}` } : `Counted to ${n}.`)),
      );
    },
  );
  server.tool(
    {
      name: 'greet',
      title: 'Greet (asks your name)',
      description: 'Asks for your name by elicitation, then greets you. A client that cannot be asked (no elicitation) is greeted by the name argument.',
      inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Used when your client cannot be asked' } } },
    },
    async (args, ctx) => {
      const given = typeof args['name'] === 'string' && args['name'] !== '' ? args['name'] : undefined;
      // The official Inspector and mcp-remote declare no elicitation: asking them would fail the call.
      if (given !== undefined || !ctx.client.supports('elicitation.form')) {
        return `Hello, ${given ?? 'friend'}!${given === undefined ? ' (Your client cannot answer questions, so I did not ask your name: pass it as the name argument.)' : ''}`;
      }
      const answer = await ctx.elicit({
        message: 'What should I call you?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name', default: 'friend' } }, required: ['name'] },
      });
      return answer.action === 'accept' ? `Hello, ${String(answer.content?.['name'] ?? 'friend')}!` : 'Maybe another time.';
    },
  );
  server.tool(
    {
      name: 'stats',
      title: 'Number statistics',
      description: 'Returns the sum and mean of a list of numbers as structured output.',
      inputSchema: { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' }, minItems: 1 } }, required: ['numbers'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' }, mean: { type: 'number' } }, required: ['sum', 'mean'] },
    },
    (args) => {
      const numbers = (args['numbers'] as number[]) ?? [];
      const sum = numbers.reduce((total, value) => total + value, 0);
      return { structuredContent: { sum, mean: sum / numbers.length } };
    },
  );
  server.tool(
    {
      name: 'whoami',
      title: 'Who am I',
      description: 'Says who the server sees calling: the signed-in user and the scopes of their token, or anonymous.',
      inputSchema: { type: 'object', properties: {} },
    },
    (_args, ctx) => {
      const auth = ctx.auth;
      if (auth === undefined) return 'You are anonymous: this server takes no tokens (rxmcp serve --auth-issuer URL asks callers to log in).';
      const scopes = auth.scopes.length === 0 ? 'no scope' : `scope ${auth.scopes.join(' ')}`;
      return `You are ${auth.subject ?? auth.principal} (signed in at ${auth.issuer ?? 'your authorization server'}, ${scopes}).`;
    },
  );
  let now = new Date().toISOString();
  server.resource({ uri: 'demo://clock', name: 'clock', title: 'Server clock', description: 'Changes every 5 seconds', mimeType: 'text/plain' }, () => now);
  server.resourceTemplate({ uriTemplate: 'demo://echo/{text}', name: 'echo', description: 'Echoes the text in its URI', mimeType: 'text/plain' }, (_uri, variables) =>
    String(variables['text'] ?? ''),
  );
  server.prompt(
    { name: 'summarize', title: 'Summarize', description: 'Asks the model to summarize a text.', arguments: [{ name: 'text', description: 'What to summarize', required: true }] },
    (args) => `Please summarize:\n\n${args['text'] ?? ''}`,
  );
  const ticker = setInterval(() => {
    now = new Date().toISOString();
    server.notifyResourceUpdated('demo://clock');
  }, 5000);
  ticker.unref();
  return { server, stop: () => clearInterval(ticker) };
}
