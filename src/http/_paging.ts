/** Query schemas of the paged list endpoints, and the page sizes they allow. */
import * as v from "valibot";
import { quote } from "../core/errors.ts";
import { NameSchema } from "./_schemas.ts";

/** Jobs per page of `GET /jobs` and of the dashboard overview, by default and at most. */
export const JOBS_PAGE = 100;

/** A whole number from a query string, 1 to `max`. */
export function queryInt(max: number): v.GenericSchema<string, number> {
  return v.pipe(
    v.string(),
    v.check((s) => /^\d{1,16}$/.test(s), (issue) => `expected a whole number, got ${quote(issue.input)}`),
    v.transform(Number),
    v.minValue(1, `expected 1 to ${max}`),
    v.maxValue(max, `expected 1 to ${max}`),
  );
}

/** Query of `GET /jobs`: `next` slots per job, a page of `limit` jobs sorted by name `after` a cursor. */
export const JobsQuerySchema = v.strictObject({
  next: v.optional(queryInt(100)),
  limit: v.optional(queryInt(JOBS_PAGE)),
  after: v.optional(NameSchema),
});
