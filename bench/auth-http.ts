/**
 * What authorization costs per `tools/call` over Streamable HTTP (127.0.0.1): the same server and client, once
 * plain and once behind `bearerAuth` (an ES256 JWT checked against a JWKS served on loopback; after the first
 * call every request is a verified-token cache hit), runs alternating in one process. The client and the server
 * share the process, so CPU per call is both sides together. A benchmark, not a test.
 *
 *   node --import tsx bench/auth-http.ts [--rounds=6] [--count=5000] [--warmup=1000] [--window=8]   (--hook-only: the hook alone)
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { bearerAuth } from '../auth/index.ts';
import { createClient } from '../client/create-client.ts';
import { createServer } from '../server/create-server.ts';
import { createStreamableHttpClientTransport, createStreamableHttpServer } from '../transports/http/index.ts';
import { argInt, hasFlag } from './lib.ts';

const rounds = argInt('rounds', 6);
const count = argInt('count', 5000);
const warmup = argInt('warmup', 1000);
const window = argInt('window', 8);
const RESOURCE = 'https://mcp.example.test/mcp';

const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] });
const as = createHttpServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(req.url === '/jwks' ? jwks : JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
});
await new Promise<void>((resolve) => as.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
const token = await new SignJWT({ scope: 'mcp:tools', client_id: 'bench' }).setProtectedHeader({ alg: 'ES256', kid: 'k' }).setIssuer(issuer).setSubject('bench').setAudience(RESOURCE).setExpirationTime('2h').sign(privateKey);

async function served(auth: boolean) {
  const server = createServer({ name: 'bench', version: '1' });
  server.tool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, (args) => String(args['text']));
  const http = createStreamableHttpServer({ server, responseMode: 'json', ...(auth ? bearerAuth({ resource: RESOURCE, authorizationServers: [issuer], allowLoopbackHttp: true }) : {}) });
  const { url } = await http.listen();
  const client = await createClient({ name: 'bench', version: '1', era: 'legacy' }).connect(
    createStreamableHttpClientTransport(url, auth ? { headers: { authorization: `Bearer ${token}` } } : {}),
  );
  return {
    call: () => client.callTool('echo', { text: 'hi' }),
    close: async () => {
      await client.close();
      await http.close();
      await server.close();
    },
  };
}

async function measure(auth: boolean, inFlight: number): Promise<{ cpuUs: number; perSecond: number }> {
  const target = await served(auth);
  const run = async (n: number): Promise<void> => {
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next++ < n) await target.call();
    }));
  };
  await run(warmup);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run(count);
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await target.close();
  return { cpuUs: (used.user + used.system) / count, perSecond: (count / elapsed) * 1000 };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

{
  // The hook alone: what a request pays for its token once it was verified (a cache hit).
  const { authenticate } = bearerAuth({ resource: RESOURCE, authorizationServers: [issuer], allowLoopbackHttp: true });
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  const request = { method: 'POST', url: new URL('http://127.0.0.1/mcp'), header: (name: string) => headers[name], native: undefined as never };
  await authenticate(request);
  const hits = 200_000;
  const cpu = process.cpuUsage();
  for (let index = 0; index < hits; index++) await authenticate(request);
  const used = process.cpuUsage(cpu);
  console.log(`bearerAuth hook on a cache hit: ${(((used.user + used.system) / hits) * 1000).toFixed(0)} ns per request (${hits} calls)`);
}

for (const inFlight of hasFlag('hook-only') ? [] : [1, window]) {
  const figures = { plain: { cpu: [] as number[], rate: [] as number[] }, auth: { cpu: [] as number[], rate: [] as number[] } };
  for (let round = 0; round < rounds; round++) {
    // Alternating, so drift of a shared machine falls on both.
    for (const kind of round % 2 === 0 ? (['plain', 'auth'] as const) : (['auth', 'plain'] as const)) {
      const result = await measure(kind === 'auth', inFlight);
      figures[kind].cpu.push(result.cpuUs);
      figures[kind].rate.push(result.perSecond);
    }
  }
  const plain = median(figures.plain.cpu);
  const auth = median(figures.auth.cpu);
  console.log(
    `${inFlight === 1 ? 'sequential' : `${inFlight} in flight`}: CPU/call plain ${plain.toFixed(1)} µs, bearerAuth ${auth.toFixed(1)} µs (${auth >= plain ? '+' : ''}${(((auth - plain) / plain) * 100).toFixed(1)} %); ` +
      `calls/s plain ${Math.round(median(figures.plain.rate))}, bearerAuth ${Math.round(median(figures.auth.rate))} (${rounds} alternating runs of ${count})`,
  );
}
as.close();
