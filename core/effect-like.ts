/**
 * An Effect of the `effect` package (v4), described by its shape. `effect` is an optional peer of rxmcp: its
 * types and its root import must not need it installed. `Effect.Effect<A, E>` that needs no services fits
 * this type (the variance fields are those of effect's `Effect` interface, keyed by its `TypeId`).
 */
export const EFFECT_TYPE_ID = '~effect/Effect';

export interface EffectLike<out A, out E = unknown> {
  readonly [EFFECT_TYPE_ID]: {
    readonly _A: (_: never) => A;
    readonly _E: (_: never) => E;
    readonly _R: (_: never) => never;
  };
}

/** True for an Effect value, recognised as `Effect.isEffect` does (its TypeId key), without loading `effect`. */
export function isEffect(value: unknown): value is EffectLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && EFFECT_TYPE_ID in value;
}
