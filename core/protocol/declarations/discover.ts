/** Discovery (modern era): what a server speaks and offers, asked without any handshake. */
import type { JsonObject } from '../../jsonrpc.ts';
import type { DiscoverResult } from '../modern-shapes.ts';
import { type MethodDeclaration, request } from './declaration.ts';

export const discoverMethods: readonly MethodDeclaration[] = [
  request<JsonObject, DiscoverResult>('server/discover', { modern: { sender: 'client', cacheable: { list: 'discover' } } }),
];
