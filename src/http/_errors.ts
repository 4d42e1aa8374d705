/**
 * HTTP errors: one class the handlers throw, one function that turns anything thrown
 * into `{ error: { code, message, path? } }` without ever exposing an internal message.
 */
import * as v from "valibot";
import { SchedulerError, sentence } from "../core/errors.ts";
import { INSTANT_EXPECTED } from "../core/instant.ts";
import { didYouMean, nearestName } from "../core/suggest.ts";

export type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 500 | 503;

/** What an HTTP client may send as an instant (JSON and queries have no `Date`): said instead of the core's words. */
export const HTTP_INSTANT = "epoch milliseconds or an ISO-8601 instant with Z or an offset";

/** The JSON shape of every error answer. */
export interface ErrorBody {
  error: { code: string; message: string; path?: string };
}

/** An error whose message is safe to send to the client. */
export class HttpError extends Error {
  readonly status: ErrorStatus;
  readonly code: string;
  readonly path: string | undefined;

  constructor(status: ErrorStatus, code: string, message: string, path?: string) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.path = path;
  }
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.type === "strict_object" && issue.expected === "never") return "unknown field";
  if (issue.type === "strict_object" && issue.received === "undefined") return "required";
  // Valibot's own wording ("Invalid type: Expected boolean but received \"yes\""), in the API's.
  if (issue.message.startsWith("Invalid ")) return `expected ${issue.expected}, got ${issue.received}`;
  return issue.message;
}

/**
 * Validates `input` with `schema` or throws a 400 naming the first offending field.
 * `prefix` is prepended to the path (`"query"`, `"params"`).
 */
export function validate<S extends v.GenericSchema>(schema: S, input: unknown, prefix?: string): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const inner = v.getDotPath(issue) ?? undefined;
  const path = [prefix, inner].filter((p) => p !== undefined && p !== "").join(".") || undefined;
  const where = path ?? "body";
  const described = describeIssue(issue);
  // Suggested from this schema's own fields: a job field is no field of a query or an action's body.
  const field = inner?.split(".").at(-1) ?? "";
  const fields = Object.keys((schema as { entries?: object }).entries ?? {});
  const hint = described === "unknown field"
    ? didYouMean(nearestName(field, fields, Math.max(1, Math.floor(field.length / 3))))
    : "";
  throw new HttpError(400, "invalid-request", `${where}: ${described}${hint}`, path);
}

const STATUS_OF_CODE: Record<string, ErrorStatus> = {
  "unknown-job": 404,
  conflict: 409,
};

/**
 * Maps a thrown value to a status and a client-safe body. `SchedulerError`s with an
 * `invalid-*` code are input errors and keep their message (it quotes the user's own
 * text); anything else unexpected becomes a generic 500 (or 503 for the store).
 */
export function toErrorResponse(error: unknown): { status: ErrorStatus; body: ErrorBody; internal: boolean } {
  if (error instanceof HttpError) {
    return { status: error.status, body: errorBody(error.code, error.message, error.path), internal: false };
  }
  if (error instanceof SchedulerError) {
    // The code travels in `code`: the message is the sentence alone, said once.
    const message = sentence(error).replace(INSTANT_EXPECTED, HTTP_INSTANT);
    if (error.code.startsWith("invalid-")) {
      return { status: 400, body: errorBody(error.code, message, error.path), internal: false };
    }
    const status = STATUS_OF_CODE[error.code];
    if (status !== undefined) return { status, body: errorBody(error.code, message, error.path), internal: false };
    if (error.code === "store-error") {
      return {
        status: 503,
        body: errorBody("store-error", "the store is unavailable; try again later"),
        internal: true,
      };
    }
  }
  return { status: 500, body: errorBody("internal", "internal server error"), internal: true };
}

/** Builds an error body, leaving `path` out when unknown. */
export function errorBody(code: string, message: string, path?: string): ErrorBody {
  return { error: path === undefined ? { code, message } : { code, message, path } };
}
