/**
 * The `edgecron` command line: `next`, `validate` and `explain` for cron expressions.
 * Pure of the process: arguments, output and the current instant are passed in, so the
 * same code runs under tests on Node, Deno and Bun; `main.ts` binds it to `process`.
 *
 * @module
 */
import cronstrue from "cronstrue";
import { SchedulerError } from "../src/core/errors.ts";
import { cron } from "../src/mod.ts";
import type { Schedule } from "../src/core/types.ts";
import { formatFire, type FireText, pointAtField } from "./format.ts";

/** Exit codes: 0 ok, 1 the expression (or zone) is invalid, 2 usage error. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** Where the CLI writes, and the instant it treats as now. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Epoch ms; `--from` overrides it. */
  now: number;
}

export const USAGE = `edgecron: cron expressions from the command line

Usage:
  edgecron next "<expr>" [--tz ZONE] [-n N] [--from INSTANT] [--json]
  edgecron validate "<expr>" [--tz ZONE] [--json]
  edgecron explain "<expr>" [--tz ZONE] [-n N] [--from INSTANT] [--json]

  <expr>    5 fields (minute hour day-of-month month day-of-week), 6 with a
            leading second, or a nickname such as @daily
  --tz      IANA zone the expression is read in (default UTC)
  -n        how many fire times to print, 1-1000 (default 5)
  --from    an ISO instant (2026-03-08T00:00:00Z) or epoch ms (default now)
  --json    print one JSON object on stdout

Exit codes: 0 ok, 1 the expression is invalid, 2 usage error.`;

interface Args {
  command: "next" | "validate" | "explain";
  expression: string;
  timezone: string;
  count: number;
  from: number | undefined;
  json: boolean;
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): Args | "help" {
  const positional: string[] = [];
  let timezone = "UTC";
  let count = 5;
  let from: number | undefined;
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === "-h" || flag === "--help") return "help";
    else if (flag === "--json") json = true;
    else if (flag === "--tz" || flag === "--timezone") timezone = value();
    else if (flag === "-n" || flag === "--count") {
      const text = value();
      count = Number(text);
      if (!/^\d+$/.test(text) || count < 1 || count > 1000) throw new UsageError(`-n must be a whole number from 1 to 1000, got ${JSON.stringify(text)}`);
    } else if (flag === "--from") {
      const text = value();
      from = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
      if (!Number.isFinite(from)) throw new UsageError(`--from must be an ISO instant or epoch ms, got ${JSON.stringify(text)}`);
    } else if (flag.startsWith("-") && flag.length > 1 && !/^-\d/.test(flag)) throw new UsageError(`unknown option ${JSON.stringify(flag)}`);
    else positional.push(arg);
  }
  const [command, expression, ...extra] = positional;
  if (command === undefined) throw new UsageError("missing command");
  if (command !== "next" && command !== "validate" && command !== "explain") {
    throw new UsageError(`unknown command ${JSON.stringify(command)}; expected next, validate or explain`);
  }
  if (expression === undefined) throw new UsageError(`${command} needs a cron expression, e.g. edgecron ${command} "*/5 * * * *"`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])} (quote the expression: "0 9 * * MON-FRI")`);
  return { command, expression, timezone, count, from, json };
}

/** Both day fields restricted: Vixie cron semantics fire when EITHER matches. */
function daysCombineWithOr(expression: string): boolean {
  const fields = expression.trim().split(/\s+/);
  if (fields.length < 5) return false;
  const [dom, , dow] = fields.slice(-3);
  const free = (f: string | undefined): boolean => f === "*" || f === "?";
  return !free(dom) && !free(dow);
}

function describe(expression: string): string | undefined {
  try {
    return cronstrue.toString(expression.trim(), { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false });
  } catch {
    return undefined;
  }
}

/**
 * Runs the CLI on `argv` (the arguments after the program name) and returns the exit code.
 *
 * @example runCli(["next", "0 9 * * MON-FRI", "--tz", "Europe/Berlin", "-n", "3"], { out: console.log, err: console.error, now: Date.now() })
 */
export function runCli(argv: readonly string[], io: CliIo): number {
  const json = argv.includes("--json");
  let args: Args | "help";
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    if (json) io.out(JSON.stringify({ ok: false, code: "usage", message: error.message }));
    else io.err(`edgecron: ${error.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (args === "help") {
    io.out(USAGE);
    return EXIT.ok;
  }
  const { command, expression, timezone } = args;
  let schedule: Schedule;
  try {
    schedule = cron(expression, { timezone });
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    if (json) {
      io.out(JSON.stringify({ ok: false, expression, timezone, code: error.code, path: error.path ?? null, message: error.message }));
    } else {
      io.err(`invalid: ${error.message}`);
      const pointer = pointAtField(expression, error.message);
      if (pointer) io.err(pointer);
    }
    return EXIT.invalid;
  }
  const from = args.from ?? io.now;
  const fires = (): FireText[] => schedule.nextRuns(from, args.count).map((ms) => formatFire(ms, timezone));

  if (command === "validate") {
    if (json) io.out(JSON.stringify({ ok: true, expression, timezone, normalized: schedule.toString() }));
    else io.out(`valid: ${JSON.stringify(expression)} (${schedule.toString()})`);
    return EXIT.ok;
  }
  const next = fires();
  const description = command === "explain" ? describe(expression) : undefined;
  const either = command === "explain" && daysCombineWithOr(expression)
    ? "fires when EITHER the day of month or the day of week matches"
    : undefined;
  if (json) {
    io.out(JSON.stringify({ ok: true, expression, timezone, ...(command === "explain" ? { description: description ?? null, note: either ?? null } : {}), next }));
    return EXIT.ok;
  }
  if (command === "explain") {
    io.out(`${description ?? schedule.toString()}${timezone === "UTC" ? " (UTC)" : ` (${timezone})`}`);
    if (either) io.out(`note: ${either}`);
  }
  if (next.length === 0) {
    io.out("no fire times after that instant");
    return EXIT.ok;
  }
  io.out(`next ${next.length} fire time${next.length === 1 ? "" : "s"} in ${timezone}${timezone === "UTC" ? "" : " and UTC"}:`);
  for (const fire of next) io.out(timezone === "UTC" ? `  ${fire.text}` : `  ${fire.text}   = ${fire.utc}`);
  return EXIT.ok;
}
