/**
 * The interceptor shapes limits/ builds on, from the interceptor API (actors/interceptors.ts): one place to
 * point at, so the rest of limits/ names them the same way.
 */
export type { InterceptedRequest, InterceptedSession, Interceptor } from '../actors/interceptors.ts';
