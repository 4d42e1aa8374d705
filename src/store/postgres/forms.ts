/**
 * The three forms of `postgresStore` options and the names each takes, so a misspelt
 * or misplaced option is refused rather than ignored (`shcema` put every environment's
 * tables in the default schema).
 */
import { SchedulerError } from "../../core/errors.ts";
import { unknownOption } from "../../core/suggest.ts";

/** The options each form takes. */
const FORMS = {
  url: ["url", "schema", "prepare", "max", "connectTimeout"],
  sql: ["sql", "schema", "prepare"],
  lease: ["url", "lease", "schema", "prepare"],
} as const;

/** Why an option of another form does nothing in this one. */
const MISPLACED: Record<string, string> = {
  max: "the store keeps no pool of its own",
  connectTimeout: "the store opens no connection itself",
  lease: "lease goes with url",
};

/**
 * @throws {SchedulerError} `invalid-spec` naming the first option that this form does not
 * take (with the nearest name it does), and for `url` beside `sql`. An option whose value
 * is `undefined` counts as absent.
 */
export function checkOptionNames(options: object): void {
  const given = Object.entries(options).filter(([, value]) => value !== undefined).map(([key]) => key);
  if (given.includes("sql") && given.includes("url")) {
    throw new SchedulerError("invalid-spec", "postgresStore: expected url or sql, not both", { path: "sql" });
  }
  const form = given.includes("sql") ? "sql" : given.includes("lease") ? "lease" : "url";
  const takes: readonly string[] = FORMS[form];
  const unknown = unknownOption(options, takes, (key) => Math.max(1, Math.ceil(key.length / 3)));
  if (unknown === undefined) return;
  const { key, hint } = unknown;
  const shape = form === "url" ? "{ url }" : `{ ${form === "sql" ? "sql" : "url, lease"} }`;
  const why = Object.hasOwn(MISPLACED, key)
    ? `not an option of ${shape}: ${MISPLACED[key]}`
    : `unknown option (${shape} takes ${takes.join(", ")})${hint}`;
  throw new SchedulerError("invalid-spec", `postgresStore.${key}: ${why}`, { path: key });
}
