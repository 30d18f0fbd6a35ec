/**
 * The SDK 2.x modern interop server (specs/interop/modern/sdk2-modern-server.ts) on the SDK's dual-era stdio
 * entry: `node --import tsx sdk2-modern-stdio-server.ts`. `serveStdio` picks the era from the opening message
 * and pins one instance from the factory; its transport closes itself at stdin EOF, and the process then ends.
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { sdk2ServerFactory } from '../../../interop/modern/sdk2-modern-server.ts';

const handle = serveStdio(sdk2ServerFactory(), { onerror: (error) => console.error(`sdk2-modern-stdio-server: ${error.message}`) });
process.stdin.once('end', () => {
  console.error('sdk2-modern-stdio-server: stdin closed');
  void handle.close();
});
