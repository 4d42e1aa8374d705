/**
 * The `edgecron` command line: `next`, `validate` and `explain` for schedules, `help`
 * and `--version`. Pure of the process: arguments, output and the current instant are
 * passed in, so the same code runs under tests on Node, Deno and Bun; `main.ts` binds it
 * to `process`.
 *
 * @module
 */
import { SchedulerError } from "../src/core/errors.ts";
import { resolveCron, schedule as toSchedule } from "../src/core/mod.ts";
import type { Schedule } from "../src/core/types.ts";
import { type Args, parseArgs, type Request, UsageError } from "./args.ts";
import { type FireText, formatFire, pointAtField, ZONE_PREFIX } from "./format.ts";
import { modifierOptions } from "./modifiers.ts";
import { cronInWords as describe } from "../src/http/dashboard/_format.ts";
import { COMMAND_HELP, SHORT_USAGE, USAGE } from "./usage.ts";
import { VERSION } from "./version.ts";

export { COMMAND_HELP, SHORT_USAGE, USAGE } from "./usage.ts";
export { VERSION } from "./version.ts";

/** Exit codes: 0 ok, 1 the schedule (or zone) is invalid, 2 usage error. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** Where the CLI writes, and the instant it treats as now. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Epoch ms; `--from` overrides it. */
  now: number;
}

/**
 * A hint for text that looks like AWS EventBridge's form (`min hour dom mon dow year`,
 * with `?`) read as standard cron, where 6 fields start with seconds.
 */
function awsHint(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (ZONE_PREFIX.test(fields[0] ?? "")) fields.shift();
  if (fields.length !== 6 || expression.includes("(")) return undefined;
  const last = fields[5] ?? "";
  if (!expression.includes("?") && !/^(\d{4}|\*)([-,/].*)?$/.test(last)) return undefined;
  return "hint: 6 fields read as standard cron start with seconds. If this is AWS EventBridge's form " +
    "(minute hour day-of-month month day-of-week year), pass --format aws; standard cron with a year takes 7 fields " +
    "(second minute hour day-of-month month day-of-week year).";
}

/** Both day fields restricted: Vixie cron semantics fire when EITHER matches. */
function daysCombineWithOr(expression: string): boolean {
  const fields = expression.trim().split(/\s+/);
  if (fields.length < 5) return false;
  const [dom, , dow] = fields.slice(-3);
  const free = (f: string | undefined): boolean => f === "*" || f === "?";
  return !free(dom) && !free(dow);
}

/** The cron fields of a cron schedule (without any `CRON_TZ=` prefix), else undefined. */
const cronText = (schedule: Schedule): string | undefined => (schedule.toJSON() as { cron?: string }).cron;

/**
 * The cron fields with `H` replaced by the values the hash key gives (what the job
 * really fires on), or the fields as written when there is no `H`.
 */
function resolvedFields(schedule: Schedule, args: Args): string | undefined {
  const fields = cronText(schedule);
  if (fields === undefined || !fields.includes("H")) return fields;
  return resolveCron(fields, {
    ...(args.hashKey === undefined ? {} : { hashKey: args.hashKey }),
    ...(args.format === "aws" ? { format: "aws" as const } : {}),
  });
}

/**
 * The caret line for an error about `--except` number i (path `except[i]`), under that
 * exclusion's text, which is always read as standard cron; none for the other modifiers.
 */
function pointAtExclusion(error: SchedulerError, except: readonly string[]): string | undefined {
  const index = /^except\[(\d+)\]$/.exec(error.path ?? "")?.[1];
  const text = index === undefined ? undefined : except[Number(index)];
  return text === undefined ? undefined : pointAtField(text, error.message);
}

/**
 * Runs the CLI on `argv` (the arguments after the program name) and returns the exit code.
 *
 * @example runCli(["next", "CRON_TZ=Europe/Berlin 0 9 * * MON-FRI", "-n", "3"], { out: console.log, err: console.error, now: Date.now() })
 */
export function runCli(argv: readonly string[], io: CliIo): number {
  const json = argv.includes("--json");
  let request: Request;
  try {
    request = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const see = error.command === undefined ? "edgecron --help" : `edgecron help ${error.command}`;
    if (json) io.out(JSON.stringify({ ok: false, code: "usage", message: error.message }));
    else if (argv.length === 0) io.err(SHORT_USAGE);
    else io.err(`edgecron: ${error.message} (see "${see}")`);
    return EXIT.usage;
  }
  if ("version" in request) {
    io.out(VERSION);
    return EXIT.ok;
  }
  if ("help" in request) {
    io.out(request.help === undefined ? USAGE : COMMAND_HELP[request.help]);
    return EXIT.ok;
  }
  return runCommand(request, io);
}

function runCommand(args: Args, io: CliIo): number {
  const { command, expression, json } = args;
  let schedule: Schedule;
  // The main expression parsed alone first: an error after that is about a modifier.
  let about: "schedule" | "modifiers" = "schedule";
  try {
    const options = {
      timezone: args.timezone,
      ...(args.hashKey === undefined ? {} : { hashKey: args.hashKey }),
      ...(args.format === "aws" ? { format: "aws" as const } : {}),
    };
    schedule = toSchedule(expression, options);
    const { except, start, end } = args.modifiers;
    if (except.length > 0 || start !== undefined || end !== undefined) {
      about = "modifiers";
      schedule = toSchedule(expression, { ...options, ...modifierOptions(args.modifiers, schedule.timezone) });
    }
  } catch (error) {
    if (!(error instanceof SchedulerError)) throw error;
    if (json) {
      io.out(
        JSON.stringify({
          ok: false,
          expression,
          timezone: args.timezone,
          code: error.code,
          path: error.path ?? null,
          message: error.message,
        }),
      );
    } else {
      io.err(`invalid: ${error.message}${/hashKey/.test(error.message) ? " (pass --hash-key NAME)" : ""}`);
      const pointer = about === "schedule"
        ? pointAtField(expression, error.message, args.format === "aws" ? "aws" : "cron")
        : pointAtExclusion(error, args.modifiers.except);
      if (pointer) io.err(pointer);
      const hint = about === "modifiers" || args.format === "aws" ? undefined : awsHint(expression);
      if (hint) io.err(hint);
    }
    return EXIT.invalid;
  }
  const timezone = schedule.timezone;
  const from = args.from ?? io.now;
  const fires = (): FireText[] => schedule.nextRuns(from, args.count).map((ms) => formatFire(ms, timezone));

  const resolved = resolvedFields(schedule, args);
  const hashed = resolved !== undefined && resolved !== cronText(schedule) ? resolved : undefined;
  if (command === "validate") {
    if (json) {
      io.out(
        JSON.stringify({
          ok: true,
          expression,
          timezone,
          normalized: schedule.toString(),
          ...(hashed ? { resolved: hashed } : {}),
        }),
      );
    } else {io.out(
        `valid: ${JSON.stringify(expression)} (${schedule.toString()})${hashed ? `\nH resolves to: ${hashed}` : ""}`,
      );}
    return EXIT.ok;
  }
  const next = fires();
  const fields = resolvedFields(schedule, args);
  const description = command === "explain" && fields !== undefined
    ? describe(fields, args.format === "aws")
    : undefined;
  const either = command === "explain" && fields !== undefined && daysCombineWithOr(fields)
    ? "fires when EITHER the day of month or the day of week matches"
    : undefined;
  if (json) {
    io.out(
      JSON.stringify({
        ok: true,
        expression,
        timezone,
        ...(hashed ? { resolved: hashed } : {}),
        ...(command === "explain" ? { description: description ?? null, note: either ?? null } : {}),
        next,
      }),
    );
    return EXIT.ok;
  }
  if (hashed) io.out(`H resolves to: ${hashed}`);
  if (command === "explain") {
    io.out(`${description ?? schedule.toString()}${timezone === "UTC" ? " (UTC)" : ` (${timezone})`}`);
    if (either) io.out(`note: ${either}`);
  }
  if (next.length === 0) {
    io.out("no fire times after that instant");
    return EXIT.ok;
  }
  io.out(
    `next ${next.length} fire time${next.length === 1 ? "" : "s"} in ${timezone}${
      timezone === "UTC" ? "" : " and UTC"
    }:`,
  );
  for (const fire of next) io.out(timezone === "UTC" ? `  ${fire.text}` : `  ${fire.text}   = ${fire.utc}`);
  return EXIT.ok;
}
