import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { COMMAND_HELP, EXIT, runCli, SHORT_USAGE, USAGE, VERSION } from "../../cli/cli.ts";

const NOW = Date.UTC(2026, 2, 7, 12, 0, 0); // Sat 2026-03-07 12:00Z, the day before New York springs forward

function cli(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t), now: NOW });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

describe("edgecron next", () => {
  it("prints the next fires in the zone and in UTC, shifting a spring-forward gap by the gap", () => {
    const { code, out } = cli("next", "30 2 * * *", "--tz", "America/New_York", "-n", "3");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(out.split("\n"), [
      "next 3 fire times in America/New_York and UTC:",
      "  Sun 2026-03-08 03:30:00 -04:00   = 2026-03-08T07:30:00Z",
      "  Mon 2026-03-09 02:30:00 -04:00   = 2026-03-09T06:30:00Z",
      "  Tue 2026-03-10 02:30:00 -04:00   = 2026-03-10T06:30:00Z",
    ]);
  });

  it("defaults to 5 fires in UTC after now", () => {
    const { code, out } = cli("next", "0 */6 * * *");
    assert.equal(code, EXIT.ok);
    const lines = out.split("\n");
    assert.equal(lines[0], "next 5 fire times in UTC:");
    assert.deepEqual(lines.slice(1), [
      "  Sat 2026-03-07 18:00:00 +00:00",
      "  Sun 2026-03-08 00:00:00 +00:00",
      "  Sun 2026-03-08 06:00:00 +00:00",
      "  Sun 2026-03-08 12:00:00 +00:00",
      "  Sun 2026-03-08 18:00:00 +00:00",
    ]);
  });

  it("--json gives epoch ms, zoned and UTC text", () => {
    const { code, out } = cli("next", "0 9 * * MON-FRI", "--tz", "Europe/Berlin", "-n", "2", "--json");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(json(out), {
      ok: true,
      expression: "0 9 * * MON-FRI",
      timezone: "Europe/Berlin",
      next: [
        {
          epochMs: Date.UTC(2026, 2, 9, 8),
          local: "2026-03-09T09:00:00+01:00[Europe/Berlin]",
          utc: "2026-03-09T08:00:00Z",
          text: "Mon 2026-03-09 09:00:00 +01:00",
        },
        {
          epochMs: Date.UTC(2026, 2, 10, 8),
          local: "2026-03-10T09:00:00+01:00[Europe/Berlin]",
          utc: "2026-03-10T08:00:00Z",
          text: "Tue 2026-03-10 09:00:00 +01:00",
        },
      ],
    });
  });

  it("--from takes negative epoch ms (Date.parse read -1000 as the year 1000)", () => {
    const { out } = cli("next", "0 0 * * *", "--from", "-1000", "-n", "1", "--json");
    assert.equal(JSON.parse(out).next[0].utc, "1970-01-01T00:00:00Z");
  });

  it("--from sets the starting instant, and 6-field expressions fire on seconds", () => {
    const { out } = cli("next", "*/20 * * * * *", "--from", "2030-01-01T00:00:00Z", "-n", "3", "--json");
    assert.deepEqual((json(out).next as { utc: string }[]).map((f) => f.utc), [
      "2030-01-01T00:00:20Z",
      "2030-01-01T00:00:40Z",
      "2030-01-01T00:01:00Z",
    ]);
  });
});

describe("edgecron validate", () => {
  it("accepts a valid expression and prints its normal form", () => {
    const { code, out } = cli("validate", "30 00 * * *");
    assert.equal(code, EXIT.ok);
    assert.match(out, /^valid: "30 00 \* \* \*"/);
  });

  it("exits 1 and points at the offending field", () => {
    const { code, out, err } = cli("validate", "61 * * * *");
    assert.equal(code, EXIT.invalid);
    assert.equal(out, "");
    const lines = err.split("\n");
    assert.match(lines[0] ?? "", /^invalid: invalid-cron: .*minute.*"61"/);
    assert.deepEqual(lines.slice(1), ["  61 * * * *", "  ^^ minute"]);
  });

  it("points past a CRON_TZ= prefix, which is not a field, and gives no AWS hint for five fields after it", () => {
    // The prefix was counted as a field: the caret went under the seconds, and five fields
    // after a prefix got the hint about AWS's six-field form.
    const { code, err } = cli("validate", "CRON_TZ=Europe/Berlin 0 61 9 * * *");
    assert.equal(code, EXIT.invalid);
    assert.deepEqual(err.split("\n").slice(1, 3), [
      "  CRON_TZ=Europe/Berlin 0 61 9 * * *",
      "                          ^^ minute",
    ]);
    const five = cli("validate", "TZ=UTC 0 9 * * 8");
    assert.deepEqual(five.err.split("\n").slice(1, 3), ["  TZ=UTC 0 9 * * 8", "                 ^ day-of-week"]);
    assert.doesNotMatch(five.err, /--format aws/);
  });

  it("explains an expression that can never fire", () => {
    const { code, err } = cli("validate", "0 0 30 2 *");
    assert.equal(code, EXIT.invalid);
    assert.match(err, /day-of-month 30 never occurs in month 2/);
    assert.match(err, /\n {2}0 0 30 2 \*\n {6}\^\^ day-of-month$/);
  });

  it("--json reports code and message, and an unknown zone is invalid too", () => {
    const bad = cli("validate", "* * * *", "--json");
    assert.equal(bad.code, EXIT.invalid);
    const body = json(bad.out);
    assert.equal(body.ok, false);
    assert.equal(body.code, "invalid-cron");
    assert.match(String(body.message), /^invalid-cron: /);

    const zone = cli("validate", "0 9 * * *", "--tz", "Mars/Olympus", "--json");
    assert.equal(zone.code, EXIT.invalid);
    assert.equal(json(zone.out).code, "invalid-timezone");
    assert.match(String(json(zone.out).message), /Mars\/Olympus/);
  });
});

describe("edgecron explain", () => {
  it("says the expression in words, with the zone and the next fires", () => {
    const { code, out } = cli("explain", "0 9 * * MON-FRI", "--tz", "Europe/Berlin", "-n", "1");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(out.split("\n"), [
      "At 09:00, Monday through Friday (Europe/Berlin)",
      "next 1 fire time in Europe/Berlin and UTC:",
      "  Mon 2026-03-09 09:00:00 +01:00   = 2026-03-09T08:00:00Z",
    ]);
  });

  it("says what the schedule runs: a day-of-week N/S to Sunday, the AWS form's weekdays from Sunday = 1", () => {
    // The words said Friday to Saturday for `5/1` (the fires went on to Sunday), and Tuesday
    // to Saturday for AWS's `2/2` (Monday to Saturday).
    assert.match(cli("explain", "0 0 * * 5/1", "-n", "1").out, /^At 00:00, Friday through Sunday \(UTC\)$/m);
    assert.match(
      cli("explain", "0 12 ? * 2/2 *", "--format", "aws", "-n", "1").out,
      /^At 12:00, every 2 days of the week, Monday through Saturday \(UTC\)$/m,
    );
  });

  it("notes that restricted day-of-month and day-of-week combine with OR", () => {
    const { out } = cli("explain", "0 0 13 * 5", "--json", "-n", "2");
    const body = json(out);
    assert.match(String(body.description), /day 13 of the month/);
    assert.match(String(body.note), /EITHER/);
    // With AND the second fire would be Friday 13 November.
    assert.deepEqual((body.next as { utc: string }[]).map((f) => f.utc), [
      "2026-03-13T00:00:00Z",
      "2026-03-20T00:00:00Z",
    ]);
  });
});

describe("edgecron validate: which field, and the AWS form", () => {
  it("labels the field the error is about, not one named in passing", () => {
    const { code, err } = cli("validate", "0 12 * * ? 2027");
    assert.equal(code, EXIT.invalid);
    const lines = err.split("\n");
    assert.match(lines[0] ?? "", /^invalid: invalid-cron: month cannot be "\?"/);
    assert.deepEqual(lines.slice(1, 3), ["  0 12 * * ? 2027", "           ^ month"]);
  });

  it("hints at --format aws (and the 7-field year form) for AWS-looking text, and not when it was given", () => {
    const aws = cli("validate", "0 10 ? * MON-FRI *");
    assert.equal(aws.code, EXIT.invalid);
    assert.deepEqual(aws.err.split("\n").slice(1, 3), ["  0 10 ? * MON-FRI *", "       ^ hour"]);
    assert.match(aws.err, /^hint: .*pass --format aws; standard cron with a year takes 7 fields/m);
    assert.equal(cli("validate", "0 10 ? * MON-FRI *", "--format", "aws").code, EXIT.ok);
    const bad = cli("validate", "0 12 * 13 ? 2027", "--format", "aws");
    assert.deepEqual(bad.err.split("\n").slice(1), ["  0 12 * 13 ? 2027", "         ^^ month"]);
    assert.doesNotMatch(cli("validate", "61 * * * *").err, /hint/);
  });

  it("labels the year of a 7-field expression", () => {
    const { err } = cli("validate", "0 0 12 * * ? 1800");
    assert.deepEqual(err.split("\n").slice(1), ["  0 0 12 * * ? 1800", "               ^^^^ year"]);
  });

  it("the help lists the 7-field form with a year", () => {
    assert.match(USAGE, /7 with a leading second and a\s+trailing year \("0 0 12 \* \* \? 2027"\)/);
  });
});

describe("edgecron usage errors", () => {
  const cases: [string, string[], RegExp][] = [
    ["an unknown command", ["when", "* * * * *"], /unknown command "when"/],
    ["a missing expression", ["next"], /next needs a schedule/],
    ["an unquoted expression", ["next", "0", "9", "*", "*", "*"], /quote the schedule/],
    ["a bad -n", ["next", "* * * * *", "-n", "0"], /-n must be a whole number from 1 to 1000, got "0"/],
    ["a non-numeric -n", ["next", "* * * * *", "-n", "many"], /got "many"/],
    ["a missing --tz value", ["next", "* * * * *", "--tz"], /--tz needs a value/],
    ["a bad --from", ["next", "* * * * *", "--from", "yesterday"], /--from must be an ISO instant/],
    // `Date.parse` took these: the first in the machine's zone, the second past the instants a Date holds.
    ["a --from without a zone", ["next", "* * * * *", "--from", "2026-03-08 10:00"], /--from must be an ISO instant/],
    ["a --from past the last instant", ["next", "* * * * *", "--from", "99999999999999999999"], /--from must be/],
    ["an unknown option", ["next", "* * * * *", "--utc"], /unknown option "--utc"/],
  ];
  for (const [what, argv, message] of cases) {
    it(`exits 2 on ${what}`, () => {
      const { code, out, err } = cli(...argv);
      assert.equal(code, EXIT.usage);
      assert.equal(out, "");
      assert.match(err, message);
      assert.equal(err.split("\n").length, 1, "one line, not the whole usage");
      assert.match(err, /^edgecron: .*\(see "edgecron (--help|help next)"\)$/);
    });
  }

  it("with no arguments prints the short help on stderr and exits 2", () => {
    const { code, out, err } = cli();
    assert.equal(code, EXIT.usage);
    assert.equal(out, "");
    assert.equal(err, SHORT_USAGE);
    assert.match(err, /^Usage:\n {2}edgecron next/m);
    assert.match(err, /edgecron --help/);
  });

  it("points a usage error in a known command to that command's help", () => {
    assert.equal(
      cli("next", "* * * * *", "-n", "0").err,
      'edgecron: -n must be a whole number from 1 to 1000, got "0" (see "edgecron help next")',
    );
    assert.equal(
      cli("when").err,
      'edgecron: unknown command "when"; expected next, validate, explain (see "edgecron --help")',
    );
  });

  it("prints a JSON usage error with --json", () => {
    const { code, out } = cli("next", "--json");
    assert.equal(code, EXIT.usage);
    assert.deepEqual(json(out), {
      ok: false,
      code: "usage",
      message: 'next needs a schedule, e.g. edgecron next "*/5 * * * *"',
    });
  });

  it("--help prints the usage and exits 0", () => {
    const { code, out } = cli("--help");
    assert.equal(code, EXIT.ok);
    assert.equal(out, USAGE);
  });
});

describe("edgecron help and --version", () => {
  it("--version and -v print the package version", () => {
    assert.deepEqual(cli("--version"), { code: EXIT.ok, out: VERSION, err: "" });
    assert.deepEqual(cli("-v"), { code: EXIT.ok, out: VERSION, err: "" });
    assert.match(VERSION, /^\d+\.\d+\.\d+/);
  });

  it("help <command> and <command> --help print that command's page", () => {
    for (const command of ["next", "validate", "explain"] as const) {
      assert.deepEqual(cli("help", command), { code: EXIT.ok, out: COMMAND_HELP[command], err: "" });
      assert.deepEqual(cli(command, "--help"), { code: EXIT.ok, out: COMMAND_HELP[command], err: "" });
      assert.ok(COMMAND_HELP[command].startsWith(`edgecron ${command} "<schedule>"`));
    }
    assert.deepEqual(cli("help"), { code: EXIT.ok, out: USAGE, err: "" });
  });

  it("help for an unknown command is a usage error", () => {
    const { code, err } = cli("help", "nxet");
    assert.equal(code, EXIT.usage);
    assert.equal(err, 'edgecron: no help for "nxet"; commands: next, validate, explain (see "edgecron --help")');
  });
});

describe("schedules as schedule() accepts them", () => {
  it("next reads a CRON_TZ= prefix as the zone, over --tz", () => {
    const { code, out } = cli("next", "CRON_TZ=America/New_York 30 2 * * *", "--tz", "Asia/Tokyo", "-n", "1");
    assert.equal(code, EXIT.ok);
    assert.deepEqual(out.split("\n"), [
      "next 1 fire time in America/New_York and UTC:",
      "  Sun 2026-03-08 03:30:00 -04:00   = 2026-03-08T07:30:00Z",
    ]);
  });

  it("next and explain accept @every with an anchor", () => {
    const next = cli("next", "@every 15m", "-n", "2", "--json");
    assert.equal(next.code, EXIT.ok);
    assert.deepEqual((json(next.out).next as { utc: string }[]).map((f) => f.utc), [
      "2026-03-07T12:15:00Z",
      "2026-03-07T12:30:00Z",
    ]);
    const explain = cli("explain", "@every 90m from 2026-03-07T00:10:00Z", "-n", "1");
    assert.equal(explain.code, EXIT.ok);
    assert.deepEqual(explain.out.split("\n"), [
      "@every 1h30m from 2026-03-07T00:10:00.000Z (UTC)",
      "next 1 fire time in UTC:",
      "  Sat 2026-03-07 12:10:00 +00:00",
    ]);
  });

  it("explain describes the cron part of a CRON_TZ= schedule in words, in that zone", () => {
    const { out } = cli("explain", "CRON_TZ=Europe/Paris 0 8 * * 1-5", "-n", "1");
    assert.equal(out.split("\n")[0], "At 08:00, Monday through Friday (Europe/Paris)");
  });

  it("an invalid @every is exit 1 with the library's error code", () => {
    const { code, out } = cli("validate", "@every soon", "--json");
    assert.equal(code, EXIT.invalid);
    assert.equal(json(out).ok, false);
    assert.match(String(json(out).code), /^invalid-/);
  });
});

describe("H and the AWS form", () => {
  // FNV-1a 32-bit of "nightly-backup\0minute" and "\0hour", written out independently.
  const fnv = (text: string): number => {
    let h = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
    return h;
  };

  it("--hash-key resolves H to the job's values and prints them", () => {
    const minute = fnv("nightly-backup\u0000minute") % 60;
    const hour = 2 + (fnv("nightly-backup\u0000hour") % 4);
    const r = cli(
      "next",
      "H H(2-5) * * *",
      "--hash-key",
      "nightly-backup",
      "-n",
      "1",
      "--from",
      "2026-12-01T00:00:00Z",
    );
    assert.equal(r.code, EXIT.ok, r.err);
    assert.match(r.out, new RegExp(`^H resolves to: ${minute} ${hour} \\* \\* \\*$`, "m"));
    assert.match(
      r.out,
      new RegExp(`2026-12-01 ${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00`),
    );
    const json = JSON.parse(cli("validate", "H/15 * * * *", "--hash-key", "a", "--json").out) as { resolved: string };
    assert.equal(json.resolved, `${fnv("a\u0000minute") % 15}-59/15 * * * *`);
  });

  it("H without --hash-key is invalid and says which flag to pass", () => {
    const r = cli("next", "H * * * *");
    assert.equal(r.code, EXIT.invalid);
    assert.match(r.err, /H needs a hashKey.*\(pass --hash-key NAME\)/);
  });

  it("--format aws reads min hour dom mon dow year, and only with the flag", () => {
    const r = cli("next", "0 12 ? * 2 2027", "--format", "aws", "-n", "1", "--from", "2026-12-01T00:00:00Z");
    assert.equal(r.code, EXIT.ok, r.err);
    assert.match(r.out, /Mon 2027-01-04 12:00:00/);
    assert.equal(cli("next", "0 12 ? * 2 2027").code, EXIT.invalid);
    const bad = cli("next", "0 12 * * *", "--format", "quartz");
    assert.equal(bad.code, EXIT.usage);
    assert.match(bad.err, /--format must be cron or aws, got "quartz"/);
  });
});
