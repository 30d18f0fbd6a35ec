export { createMemoryPair } from './memory-transport.ts';
export type { MemoryPairOptions, MemoryTransport } from './memory-transport.ts';
