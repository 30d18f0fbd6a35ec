// A legacy-era stdio server that, like some real ones, answers nothing it does not know before `initialize`
// (no error either). It answers initialize, ping and tools/call of `echo`; everything else before the handshake
// is ignored. Plain JavaScript, so it speaks raw lines and nothing of the project.
import { createInterface } from 'node:readline';

let initialized = false;
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    continue;
  }
  if (message.id === undefined) continue;
  if (message.method === 'initialize') {
    initialized = true;
    send({ id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'silent-legacy', version: '1.0.0' } } });
  } else if (message.method === 'ping') send({ id: message.id, result: {} });
  else if (initialized && message.method === 'tools/call') send({ id: message.id, result: { content: [{ type: 'text', text: 'echoed' }] } });
  else if (initialized) send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
}
