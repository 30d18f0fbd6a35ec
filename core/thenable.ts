/**
 * Whether a value is a thenable (a promise or anything with a `then` method, as `await` and `Promise.resolve`
 * treat it): what handlers and schema validators return is told apart with it, one rule everywhere.
 */
export function isThenable<T = unknown>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
