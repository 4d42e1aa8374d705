/** Argument parsing of the `edgecron` command: flags, the command and its schedule. */
import { type Command, COMMANDS } from "./usage.ts";
import { epochMs, type ModifierArgs } from "./modifiers.ts";

/** A parsed command line that runs a command. */
export interface Args {
  command: Command;
  expression: string;
  timezone: string;
  count: number;
  from: number | undefined;
  json: boolean;
  /** `--hash-key`: the job name `H` fields hash (default none: `H` is refused). */
  hashKey: string | undefined;
  /** `--format aws`: read the AWS EventBridge form (`min hour dom mon dow year`). */
  format: "cron" | "aws";
  /** `--except` (repeatable), `--start`, `--end`: the schedule modifiers. */
  modifiers: ModifierArgs;
}

/** What the command line asks for: a command, help (overall or for one command) or the version. */
export type Request = Args | { help: Command | undefined } | { version: true };

/** A command line that does not parse; `command` is set when the command itself was understood. */
export class UsageError extends Error {
  /** The command whose help page the error points to, if known. */
  readonly command: Command | undefined;
  constructor(message: string, command?: Command) {
    super(message);
    this.command = command;
  }
}

const isCommand = (name: string | undefined): name is Command =>
  (COMMANDS as readonly (string | undefined)[]).includes(name);

/**
 * Parses the arguments after the program name.
 *
 * @throws {UsageError} naming the first thing that is wrong.
 * @example parseArgs(["next", "@every 15m", "-n", "2"]).count // 2
 */
export function parseArgs(argv: readonly string[]): Request {
  const positional: string[] = [];
  let timezone = "UTC";
  let count = 5;
  let from: number | undefined;
  let json = false;
  let help = false;
  let hashKey: string | undefined;
  let format: "cron" | "aws" = "cron";
  const modifiers: ModifierArgs = { except: [], start: undefined, end: undefined };
  const known = argv.find((a) => isCommand(a));
  const command = isCommand(known) ? known : undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`, command);
      return v;
    };
    if (flag === "-h" || flag === "--help") help = true;
    else if (flag === "-v" || flag === "--version") return { version: true };
    else if (flag === "--json") json = true;
    else if (flag === "--tz" || flag === "--timezone") timezone = value();
    else if (flag === "--hash-key") {
      hashKey = value();
      if (hashKey === "") throw new UsageError("--hash-key needs the job's name, got an empty string", command);
    } else if (flag === "--format") {
      const text = value();
      if (text !== "cron" && text !== "aws") {
        throw new UsageError(`--format must be cron or aws, got ${JSON.stringify(text)}`, command);
      }
      format = text;
    } else if (flag === "--except") modifiers.except.push(value());
    else if (flag === "--start") modifiers.start = value();
    else if (flag === "--end") modifiers.end = value();
    else if (flag === "-n" || flag === "--count") {
      const text = value();
      count = Number(text);
      if (!/^\d+$/.test(text) || count < 1 || count > 1000) {
        throw new UsageError(`-n must be a whole number from 1 to 1000, got ${JSON.stringify(text)}`, command);
      }
    } else if (flag === "--from") {
      const text = value();
      // As the core takes instants: whole epoch ms (negative too) or ISO with `Z` or an offset.
      // `Date.parse` read `-1000` as the year 1000 and `2026-03-08 10:00` in the machine's zone.
      from = epochMs(/^-?\d+$/.test(text) ? Number(text) : text);
      if (from === undefined) {
        throw new UsageError(
          `--from must be an ISO instant with Z or an offset (2026-03-08T00:00:00Z) or epoch ms, got ${
            JSON.stringify(text)
          }`,
          command,
        );
      }
    } else if (flag.startsWith("-") && flag.length > 1 && !/^-\d/.test(flag)) {
      throw new UsageError(`unknown option ${JSON.stringify(flag)}`, command);
    } else positional.push(arg);
  }
  const [first, expression, ...extra] = positional;
  if (first === "help" || (help && (first === undefined || isCommand(first)))) {
    const topic = first === "help" ? expression : first;
    if (topic !== undefined && !isCommand(topic)) {
      throw new UsageError(`no help for ${JSON.stringify(topic)}; commands: ${COMMANDS.join(", ")}`);
    }
    return { help: topic };
  }
  if (first === undefined) throw new UsageError("missing command");
  if (!isCommand(first)) {
    throw new UsageError(`unknown command ${JSON.stringify(first)}; expected ${COMMANDS.join(", ")}`);
  }
  if (expression === undefined) {
    throw new UsageError(`${first} needs a schedule, e.g. edgecron ${first} "*/5 * * * *"`, first);
  }
  if (extra.length > 0) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(extra[0])} (quote the schedule: "0 9 * * MON-FRI")`,
      first,
    );
  }
  return { command: first, expression, timezone, count, from, json, hashKey, format, modifiers };
}
