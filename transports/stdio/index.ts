export { StdioServerTransport, createStdioServerTransport } from './server-transport.ts';
export type { StdioServerTransportOptions } from './server-transport.ts';
export { serveStdio } from './run-server.ts';
export type { ServeStdioOptions } from './run-server.ts';
export { StdioClientTransport, spawnStdioServer } from './client-transport.ts';
export type { ChildExit, SpawnStdioServerOptions } from './client-transport.ts';
export { SAFE_ENV_VARS, childEnvironment } from './child-env.ts';
export type { EnvInheritance } from './child-env.ts';
export { consoleGuarded } from './console-guard.ts';
