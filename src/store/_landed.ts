/**
 * The writes of a split `updateMany()` group that committed before the failure that
 * rejected it: a store that sends the group in several transactions attaches them to the
 * error, so the outcome writer reads back only the rest. Private to the store and engine.
 */
/**
 * The results of an `updateMany()` group's first writes, committed before the failure
 * that rejected it, when the store attached them (see {@link withLanded}); else undefined.
 */
export function landedOf(error: unknown): readonly boolean[] | undefined {
  const landed = typeof error === "object" && error !== null ? (error as { landed?: unknown }).landed : undefined;
  return Array.isArray(landed) && landed.every((r) => typeof r === "boolean") ? landed : undefined;
}

/** Attaches to `error` the results of the writes that committed before it (a split `updateMany()`). */
export function withLanded(error: unknown, landed: readonly boolean[]): unknown {
  if (landed.length > 0 && typeof error === "object" && error !== null) {
    Object.defineProperty(error, "landed", { value: [...landed], enumerable: false, configurable: true });
  }
  return error;
}
