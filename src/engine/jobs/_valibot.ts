/** Valibot building blocks with edgecron's error messages, for the job schemas in `_schema.ts`. */
import * as v from "valibot";
import { quote } from "../../core/errors.ts";
import { isTooLong, TOO_LONG, tryParseDuration } from "../../core/duration.ts";

/** The offending input, quoted and cut; never throws on cyclic or deep input. */
export const got = (issue: { input: unknown }): string => {
  if (typeof issue.input !== "object" || issue.input === null) return quote(issue.input);
  try {
    return quote(JSON.stringify(issue.input));
  } catch {
    return Array.isArray(issue.input) ? "an array" : "an object"; // cyclic or too deep to print
  }
};

/** A duration like `"30s"` or a number of ms. */
export const duration = v.custom<string | number>(
  (input) => tryParseDuration(input) !== undefined,
  (issue) => isTooLong(issue.input) ? `${got(issue)} ${TOO_LONG}` : `expected a duration like "30s", got ${got(issue)}`,
);

/** A string of at most `max` characters. */
export const text = (max: number) =>
  v.pipe(
    v.string((issue) => `expected a string, got ${got(issue)}`),
    v.maxLength(max, (issue) => `must be at most ${max} characters, got ${issue.input.length}`),
  );

/** One of `options`, naming them all when refused. */
export const choice = <const T extends readonly string[]>(options: T) =>
  v.picklist(options, (issue) => `expected ${options.map((o) => `"${o}"`).join(" or ")}, got ${got(issue)}`);

/** A strict object: an unknown field is "unknown field", a missing one "required field is missing". */
export const strict = <const E extends v.ObjectEntries>(entries: E) =>
  v.strictObject(entries, (issue) => {
    if (issue.expected === "never") return "unknown field";
    if (issue.expected.startsWith('"')) return "required field is missing";
    return `expected an object, got ${got(issue)}`;
  });
