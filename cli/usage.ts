/** Help texts of the `edgecron` command: the overview and one page per command. */

/** The commands the CLI knows. */
export const COMMANDS = ["next", "validate", "explain"] as const;

/** One of `COMMANDS`. */
export type Command = (typeof COMMANDS)[number];

const SCHEDULE_TEXT = `  <schedule>  what schedule() accepts: 5 fields (minute hour day-of-month month
              day-of-week), 6 with a leading second, 7 with a leading second and a
              trailing year ("0 0 12 * * ? 2027"), a nickname such as @daily,
              "CRON_TZ=Europe/Paris 0 8 * * *" (the prefix sets the zone),
              "@every 15m [from ANCHOR]", or with --format aws AWS's 6 fields`;

const OPTIONS = {
  tz: "  --tz        IANA zone the schedule is read in when it names none (default UTC)",
  n: "  -n          how many fire times to print, 1-1000 (default 5)",
  from: "  --from      an ISO instant (2026-03-08T00:00:00Z) or epoch ms (default now)",
  json: "  --json      print one JSON object on stdout",
  hashKey: "  --hash-key  the job name H fields hash (H, H/15, H(0-29)); prints the values it gives",
  format: "  --format    aws: read the AWS EventBridge form (min hour dom mon dow year)",
  modifiers: `  --except    leave out slots matching a cron expression or a YYYY-MM-DD date (repeatable)
  --start     no slot before this instant, or from this local date on
  --end       no slot at or after this instant, or after this local date`,
};

/** The schedule and options of the commands that print fire times (`next`, `explain`). */
const FIRES_OPTIONS = [
  SCHEDULE_TEXT,
  OPTIONS.tz,
  OPTIONS.n,
  OPTIONS.from,
  OPTIONS.json,
  OPTIONS.hashKey,
  OPTIONS.format,
  OPTIONS.modifiers,
].join("\n");
/** The same for `validate`, which prints none. */
const VALIDATE_OPTIONS = [SCHEDULE_TEXT, OPTIONS.tz, OPTIONS.json, OPTIONS.hashKey, OPTIONS.format].join("\n");

const USAGE_LINES = `Usage:
  edgecron next "<schedule>" [--tz ZONE] [-n N] [--from INSTANT] [--hash-key NAME] [--format aws] [--json]
  edgecron validate "<schedule>" [--tz ZONE] [--hash-key NAME] [--format aws] [--json]
  edgecron explain "<schedule>" [--tz ZONE] [-n N] [--from INSTANT] [--hash-key NAME] [--format aws] [--json]
  edgecron help <command>
  edgecron --version`;

/** What `edgecron` with no arguments prints (on stderr, exit 2): the commands and where the rest is. */
export const SHORT_USAGE = `edgecron: cron schedules from the command line

${USAGE_LINES}

Example: edgecron next "0 9 * * MON-FRI" --tz Europe/Berlin
Run "edgecron --help" for the options, "edgecron help <command>" for one command.`;

/** The overview `edgecron --help` prints. */
export const USAGE = `edgecron: cron schedules from the command line

${USAGE_LINES}

${FIRES_OPTIONS}

Exit codes: 0 ok, 1 the schedule is invalid, 2 usage error.`;

/** `edgecron help <command>`: what the command does, its arguments and an example. */
export const COMMAND_HELP: Readonly<Record<Command, string>> = {
  next: `edgecron next "<schedule>" [--tz ZONE] [-n N] [--from INSTANT] [--hash-key NAME] [--format aws] [--json]
             [--except EXPR|DATE]... [--start INSTANT|DATE] [--end INSTANT|DATE]

Prints the next fire times, in the schedule's zone and in UTC.

${FIRES_OPTIONS}

Example: edgecron next "CRON_TZ=America/New_York 30 2 * * *" -n 3
Example: edgecron next "0 9 * * 1-5" --tz Europe/Berlin --except "* * 24-26 12 *" --start 2027-01-01 --end 2027-06-30 -n 10`,
  validate: `edgecron validate "<schedule>" [--tz ZONE] [--hash-key NAME] [--format aws] [--json]

Checks a schedule; exits 1 and points at the offending field when it is invalid.

${VALIDATE_OPTIONS}

Example: edgecron validate "0 9 * * MON-FRI"`,
  explain: `edgecron explain "<schedule>" [--tz ZONE] [-n N] [--from INSTANT] [--hash-key NAME] [--format aws] [--json]

Says the schedule in words, notes surprises (day-of-month OR day-of-week), and prints
the next fire times.

${FIRES_OPTIONS}

Example: edgecron explain "@every 15m" -n 2`,
};
