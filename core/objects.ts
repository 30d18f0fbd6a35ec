/**
 * Copies of plain objects with fields added or replaced, for the per-request paths. On Node 20 (V8 11.3) a
 * literal that spreads an object and then adds fields (`{ ...source, key: value }`) falls off the fast clone
 * path: about 1 µs per added field, measured (bench/RESULTS.md, "Modern era as lean as legacy"), against some
 * 0.1 µs for copying the own keys into a fresh object and then setting the fields, which is what these do.
 *
 * They copy what a spread copies for JSON-shaped data: the own enumerable string keys, in order, an own
 * `__proto__` key included as a plain field (never as the prototype). Symbol keys are not copied: nothing
 * that travels as JSON has them.
 */

function copyInto(target: Record<string, unknown>, source: object): void {
  const keys = Object.keys(source);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    const value = (source as Record<string, unknown>)[key];
    if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    else target[key] = value;
  }
}

/** `{ ...source }` as a fresh record that fields can then be set on without leaving the fast path. */
export function copyOwn(source: object | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  if (source !== undefined) copyInto(copy, source);
  return copy;
}

/** `{ ...source, [key]: value }`, fast. */
export function withField<T extends object, K extends string, V>(source: T | undefined, key: K, value: V): Omit<T, K> & { [P in K]: V } {
  const copy: Record<string, unknown> = {};
  if (source !== undefined) copyInto(copy, source);
  if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  else copy[key] = value;
  return copy as Omit<T, K> & { [P in K]: V };
}

/** `{ ...source, ...fields }`, fast. */
export function withFields<T extends object, F extends object>(source: T | undefined, fields: F): Omit<T, keyof F> & F {
  const copy: Record<string, unknown> = {};
  if (source !== undefined) copyInto(copy, source);
  copyInto(copy, fields);
  return copy as Omit<T, keyof F> & F;
}
