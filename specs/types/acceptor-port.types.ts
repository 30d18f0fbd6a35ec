/**
 * Type test (checked by `npm run typecheck`, not run): a server from `createServer` must fit the port that
 * multi-session transports accept connections through, so `createStreamableHttpServer({ server })` works as is.
 */
import type { SessionAcceptorPort } from '../../core/transport.ts';
import { createServer } from '../../server/create-server.ts';

export const serverFitsThePort: SessionAcceptorPort = createServer({ name: 'type-test', version: '0.0.0' });
