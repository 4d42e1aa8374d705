/** Query schemas of the paged list endpoints, and the page sizes they allow. */
import * as v from "valibot";
import { NameSchema, queryInt } from "./_schemas.ts";

/** Jobs per page of `GET /jobs` and of the dashboard overview, by default and at most. */
export const JOBS_PAGE = 100;

/** Query of `GET /jobs`: `next` slots per job, a page of `limit` jobs sorted by name `after` a cursor. */
export const JobsQuerySchema = v.strictObject({
  next: v.optional(queryInt(100)),
  limit: v.optional(queryInt(JOBS_PAGE)),
  after: v.optional(NameSchema),
});
