// A legacy-era stdio server that will not stop: it ignores its stdin's end and SIGTERM (only SIGKILL ends it),
// the hung child of the stop specs. It answers initialize and ping; tools/call of `wait` is never answered.
// Plain JavaScript, so it starts fast and speaks raw lines and nothing of the project.
import { createInterface } from 'node:readline';
import { setInterval } from 'node:timers';

process.on('SIGTERM', () => process.stderr.write('stubborn: SIGTERM ignored\n'));
// Kept alive after stdin ends.
setInterval(() => undefined, 60_000);
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'stubborn', version: '1.0.0' } } });
  } else if (message.method === 'ping') send({ id: message.id, result: {} });
  else if (message.method !== 'tools/call') send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
});
lines.on('close', () => process.stderr.write('stubborn: stdin ended, staying\n'));
