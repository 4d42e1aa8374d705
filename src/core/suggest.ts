/** "Did you mean": the nearest names to a misspelt one, by edit distance. Pure and portable. */
import { quote, SchedulerError } from "./errors.ts";

/**
 * The Damerau–Levenshtein distance (adjacent swaps count as one edit) between `a` and
 * `b`, compared case-insensitively; stops early and returns `limit + 1` once every
 * path exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  if (Math.abs(s.length - t.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      if (d < best) best = d;
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[t.length]!;
}

/**
 * Up to `max` (default 3) of `candidates` nearest to `input`, nearest first: those within
 * `limit` edits (default a quarter of the input's length, at least 2) and at most one edit further than
 * the nearest, plus any whose last `/` part is the input (`Paris` → `Europe/Paris`).
 *
 * @example suggest("Europe/Pariss", ["Europe/Paris", "Europe/Prague"]) // ["Europe/Paris"]
 */
export function suggest(
  input: string,
  candidates: Iterable<string>,
  max = 3,
  limit = Math.max(2, Math.floor(input.length / 4)),
): string[] {
  const tail = input.toLowerCase().split("/").at(-1) ?? "";
  const scored: { name: string; d: number }[] = [];
  for (const name of candidates) {
    if (name.toLowerCase() === input.toLowerCase()) continue;
    const d = name.toLowerCase().split("/").at(-1) === tail && input.includes("/") === false
      ? 0.5
      : editDistance(input, name, limit);
    if (d <= limit) scored.push({ name, d });
  }
  scored.sort((x, y) => x.d - y.d || x.name.localeCompare(y.name));
  // Only the nearest (and one edit further): a close match should not come with noise.
  const best = scored[0]?.d ?? 0;
  return scored.filter((s) => s.d <= best + 1).slice(0, max).map((s) => s.name);
}

/**
 * The name of `names` that `input` most likely meant, as a list of at most one: the same
 * name in another case, else the nearest (`suggest`, within `limit` edits).
 *
 * @example nearestName("shcema", ["url", "schema"]) // ["schema"]
 */
export function nearestName(input: string, names: readonly string[], limit?: number): string[] {
  const same = names.find((name) => name.toLowerCase() === input.toLowerCase());
  return same !== undefined ? [same] : suggest(input, names, 1, limit);
}

/** `; did you mean "a" or "b"?`, or "" when there is nothing close. */
export function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return "";
  const quoted = names.map((n) => JSON.stringify(n));
  return `; did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`}?`;
}

/**
 * The first option of `options` that is not one of `allowed`, and `; did you mean "…"?`
 * for it (the nearest within `limit(key)` edits; default as {@link suggest}), for its
 * caller's own refusal. An option set to `undefined` counts as absent.
 *
 * @example unknownOption({ prefx: [] }, ["prefix", "closeKv"]) // { key: "prefx", hint: '; did you mean "prefix"?' }
 */
export function unknownOption(
  options: object,
  allowed: readonly string[],
  limit?: (key: string) => number,
): { key: string; hint: string } | undefined {
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && !allowed.includes(key)) {
      return { key, hint: didYouMean(nearestName(key, allowed, limit?.(key))) };
    }
  }
  return undefined;
}

/**
 * Refuses a key of `options` that `fn()` does not take (`{ tz }` and `{ timeZone }` ran in
 * UTC without a word), or options that are not an object (null threw a TypeError); keys
 * set to undefined pass.
 *
 * @throws {SchedulerError} `invalid-spec: options: unknown option "tz" of cron() (it takes timezone, ...)`
 */
export function checkOptionKeys(options: object, allowed: readonly string[], fn: string): void {
  if (typeof options !== "object" || options === null) {
    throw new SchedulerError("invalid-spec", `options: expected an object, got ${quote(options)}`, { path: "options" });
  }
  const unknown = unknownOption(options, allowed);
  if (unknown !== undefined) {
    throw new SchedulerError(
      "invalid-spec",
      `options: unknown option ${quote(unknown.key)} of ${fn}() (it takes ${allowed.join(", ")})${unknown.hint}`,
      { path: "options" },
    );
  }
}
