/**
 * The JSON API's one time convention: every instant field `x` (epoch milliseconds)
 * is sent with a sibling `xIso` (ISO-8601 UTC, or null when `x` is null); an array
 * of instants `xs` gets `xsIso`. Applied to every response body in one place.
 */

/** Field names that hold an instant (ms or null) wherever they appear. */
const INSTANT_KEYS: ReadonlySet<string> = new Set([
  "slot",
  "claimedAt",
  "startedAt",
  "finishedAt",
  "leaseUntil",
  "runningSince",
  "updatedAt",
  "lastTick",
  "now",
  "nextBefore",
  "first",
  "last",
  "at",
]);

/** Field names that hold instants only as arrays (`counters.missed` is a count, `missed: [ms]` slots). */
const INSTANT_LIST_KEYS: ReadonlySet<string> = new Set([
  "next",
  "slots",
  "planned",
  "won",
  "lost",
  "run",
  "skipped",
  "missed",
  "abandoned",
  "buffered",
]);

/** User data the conversion must leave exactly as stored. */
const OPAQUE_KEYS: ReadonlySet<string> = new Set(["payload", "spec", "target", "error"]);

function iso(ms: number): string | null {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null;
}

function isoOf(key: string, value: unknown): unknown {
  if (INSTANT_KEYS.has(key)) {
    if (value === null) return null;
    if (typeof value === "number") return iso(value);
  }
  if (INSTANT_LIST_KEYS.has(key) && Array.isArray(value) && value.every((x) => typeof x === "number")) {
    return value.map((x: number) => iso(x));
  }
  return undefined;
}

/**
 * Returns a copy of `value` with an `<key>Iso` field beside every instant field
 * (see `INSTANT_KEYS` and `INSTANT_LIST_KEYS`). Objects are copied into null-prototype objects, so a job
 * named `__proto__` stays a plain key. User data (`payload`, `spec`, `target`) is
 * copied as is.
 *
 * @example withIso({ slot: 0 }) // { slot: 0, slotIso: "1970-01-01T00:00:00.000Z" }
 */
export function withIso(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withIso);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, inner] of Object.entries(value)) {
    out[key] = OPAQUE_KEYS.has(key) ? inner : withIso(inner);
    const converted = isoOf(key, inner);
    if (converted !== undefined) out[`${key}Iso`] = converted;
  }
  return out;
}
