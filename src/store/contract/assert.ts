/**
 * The few assertions the store contract suite needs, portable (no `node:assert`), so
 * the suite runs under any test harness. Each failure throws an `Error` saying what was
 * expected and what came.
 */

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_, v: unknown) => (v === undefined ? "<undefined>" : v)) ?? String(value);
  } catch {
    return String(value);
  }
};

function fail(message: string | undefined, detail: string): never {
  throw new Error(message === undefined ? detail : `${message}: ${detail}`);
}

/**
 * Structural equality: primitives by `Object.is`, arrays element by element, objects by
 * their own enumerable keys and values whatever their prototype (a store may return
 * null-prototype records).
 */
export function isDeepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  const recordB = b as Record<string, unknown>;
  return keysA.every((key) => Object.hasOwn(b, key) && isDeepEqual((a as Record<string, unknown>)[key], recordB[key]));
}

/** The assertions of the contract suite. */
export const assert = {
  /** `actual` is `expected` (`Object.is`). */
  equal(actual: unknown, expected: unknown, message?: string): void {
    if (!Object.is(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  },
  /** `actual` has the same structure as `expected` (see `isDeepEqual`). */
  deepEqual(actual: unknown, expected: unknown, message?: string): void {
    if (!isDeepEqual(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  },
  /** `value` is truthy. */
  ok(value: unknown, message?: string): void {
    if (!value) fail(message, `expected a truthy value, got ${show(value)}`);
  },
  /** `text` matches `pattern`. */
  match(text: string, pattern: RegExp, message?: string): void {
    if (!pattern.test(text)) fail(message, `expected ${show(text)} to match ${String(pattern)}`);
  },
  /** `promise` rejects, and `check` (when given) accepts the error (returns true or throws). */
  async rejects(promise: Promise<unknown>, check?: (error: unknown) => boolean, message?: string): Promise<void> {
    let settled = false;
    try {
      await promise;
      settled = true;
    } catch (error) {
      if (check !== undefined && check(error) !== true) {
        fail(message, `the rejection was not the expected one: ${String(error)}`);
      }
    }
    if (settled) fail(message, "expected a rejection, but it resolved");
  },
};
