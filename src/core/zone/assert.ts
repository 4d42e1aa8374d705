/** Validation of IANA time zone names. */
import { quote, SchedulerError } from "../errors.ts";
import { didYouMean, suggest } from "../suggest.ts";
import { Temporal } from "../temporal.ts";

const MAX_ZONE_LENGTH = 64;

/**
 * Returns the zone id Temporal uses for `name` (case-normalised, e.g.
 * `"america/new_york"` → `"America/New_York"`), or throws.
 *
 * @throws {SchedulerError} `invalid-timezone: timezone: unknown time zone "Mars/Olympus"`
 * @example
 * ```ts
 * import { assertTimeZone } from "edgecron";
 *
 * console.log(assertTimeZone("europe/berlin")); // "Europe/Berlin"
 * ```
 */
export function assertTimeZone(name: unknown): string {
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_ZONE_LENGTH) {
    throw new SchedulerError("invalid-timezone", `timezone: expected an IANA time zone name, got ${quote(name)}`, {
      path: "timezone",
    });
  }
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(name).timeZoneId;
  } catch (cause) {
    const near = didYouMean(suggest(name, knownZones()));
    throw new SchedulerError("invalid-timezone", `timezone: unknown time zone ${quote(name)}${near}`, {
      path: "timezone",
      cause,
    });
  }
}

/** The zone names this runtime knows, when it can list them (`Intl.supportedValuesOf`); else none. */
function knownZones(): readonly string[] {
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] };
  try {
    return typeof intl.supportedValuesOf === "function" ? [...intl.supportedValuesOf("timeZone"), "UTC"] : [];
  } catch {
    return [];
  }
}
