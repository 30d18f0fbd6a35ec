/**
 * The interceptor shapes otel/ builds on, from the interceptor API (actors/interceptors.ts): one place to point
 * at, so the rest of otel/ names them the same way.
 */
export type { InterceptedRequest, Interceptor, InterceptorScope } from '../actors/interceptors.ts';
export type { RequestEvent } from '../actors/handler-types.ts';
