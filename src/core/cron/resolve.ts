/**
 * `resolveCron()`: an expression with its `H` terms replaced by the values they stand
 * for under a hash key, for showing a job's concrete times (CLI, dashboard).
 */
import { H } from "./chars.ts";
import {
  AWS_DAY_OF_WEEK,
  DAY_OF_MONTH,
  DAY_OF_WEEK,
  HOUR,
  MINUTE,
  MONTH,
  rangeFrom,
  rangeStep,
  rangeTo,
  SECOND,
  termRangeAt,
  YEAR,
} from "./fields.ts";
import type { FieldDef } from "./fields.ts";
import { parseCron } from "./parse.ts";
import type { ParseOptions } from "./parse.ts";

const FIVE: readonly FieldDef[] = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];
const SIX: readonly FieldDef[] = [SECOND, ...FIVE];
const SEVEN: readonly FieldDef[] = [...SIX, YEAR];
const AWS: readonly FieldDef[] = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, AWS_DAY_OF_WEEK, YEAR];

function rangeText(range: number): string {
  const from = rangeFrom(range), to = rangeTo(range), step = rangeStep(range);
  if (from === to) return String(from);
  return step === 1 ? `${from}-${to}` : `${from}-${to}/${step}`;
}

function resolveField(def: FieldDef, text: string, key: string | undefined): string {
  const plus = text.startsWith("+") ? "+" : "";
  const terms = text.slice(plus.length).split(",");
  return plus +
    terms.map((t) => (t.charCodeAt(0) === H ? rangeText(termRangeAt(def, t, 0, t.length, key)) : t)).join(",");
}

/**
 * The expression with every `H` term replaced by its values under `hashKey`
 * (`H` -> `N`, `H/S` and `H(A-B)/S` -> `A-B/S` from the hashed start); other terms,
 * spacing aside, stay as written. Options as {@link parseCron}.
 *
 * @throws {SchedulerError} `invalid-cron` for anything `cron()` would refuse
 * @example resolveCron("H H(1-4) * * *", { hashKey: "backup" }) // "9 4 * * *"
 */
export function resolveCron(expression: string, options: ParseOptions = {}): string {
  const fields = parseCron(expression, options);
  if (fields.normalized.startsWith("@")) return fields.normalized;
  const parts = expression.trim().split(/\s+/);
  const defs = options.format === "aws" ? AWS : parts.length === 5 ? FIVE : parts.length === 6 ? SIX : SEVEN;
  return parts.map((text, i) => (text.includes("H") ? resolveField(defs[i]!, text, options.hashKey) : text)).join(" ");
}
